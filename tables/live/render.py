"""What a change of a live room looks like to its readers: HTML parts and Board API texts.

A change draws only the public parts whose data differ from the last ones pushed from this
process (`Pushed`, kept on the room), once per language its readers use, and a seat's own part
only for the seats whose part changed, from that seat's own view (never the spectator's). A
Board API stream's text is encoded once per seat and version (`view_text`, kept on the room as
`Encoded`): what every seat's view shares (the very same objects) is encoded once, and each
seat's text adds only its own fields. Nothing here queries the database.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from functools import partial
from itertools import compress
from operator import is_not
from typing import Any

import orjson
from django.conf import settings
from django.template.loader import render_to_string
from django.utils import translation

from games.engine import Event, LayoutModule, View, Words, squeeze
from games.registry import GAMES
from tables import claims, languages, server, words
from tables.current import Table
from tables.live.room import Delivery, Encoded, LiveRoom, Pushed


def table_group(room_id: int) -> str:
    return f"table.{room_id}"


def seat_group(room_id: int, seat: int) -> str:
    """Where a seat's sockets note the languages its own part is drawn in (tables.languages);
    no group of that name carries changes: a seat's part travels with its room's change."""
    return f"table.{room_id}.seat.{seat}"


def layout_for(game: str) -> LayoutModule:
    """The game's pure layout module, from its registry entry."""
    return GAMES[game].layout


def version_tag(version: int) -> str:
    return f'<div id="table-version" data-version="{version}" hidden></div>'


def seat_tag(seat: int | None) -> str:
    """The seat a whole table was drawn for (a reconnecting page says it: only the same seat's
    page may be brought up to date by changes instead of the whole table)."""
    shown = "" if seat is None else str(seat)
    return f'<div id="table-seat" data-seat="{shown}" hidden></div>'


def reader_view(view: dict[str, Any], players: Iterable[words.Named]) -> dict[str, Any]:
    """`view` with its players' names as `words.player_name` says them in the active language
    (a copy; the view itself is shared by every reader and the Board API, which keeps the stored
    name). Plain strings: the layouts join and format names, which a lazy word would break,
    so a context holding them is built in the language it is drawn in."""
    bots = {p.seat: p for p in players if p.user_id is None and p.bot_level in words.BOT_NAMES}
    if not bots or not view.get("players"):
        return view
    shown = [
        {**p, "name": str(words.player_name(bots[p["seat"]]))} if p.get("seat") in bots else p
        for p in view["players"]
    ]
    return {**view, "players": shown}


def render_each(languages: Iterable[str], render: Callable[[], str]) -> dict[str, str]:
    """Call `render` once per language, each under that language."""
    out = {}
    active = translation.get_language()
    for code in languages:
        if code == active:
            out[code] = render()  # already under it: no switch there and back
            continue
        with translation.override(code):
            out[code] = render()
    return out


def split(by_language: dict[str, str]) -> dict[str, object]:
    """The `html` and `translations` fields of a pushed event rendered in several languages:
    `html` is the first rendering (the site's language when it was rendered), so a reader of
    a language nobody noted still gets a whole frame."""
    first, *rest = by_language
    return {"html": by_language[first], "translations": {code: by_language[code] for code in rest}}


class Said(dict[tuple[str, ...] | str, str]):
    """The words of one language (games.engine.Words), each asked of the catalogue once, when
    first said, under that language: kept on the rooms (`LiveRoom.words`, one per language)
    for every change drawn here, made afresh for a page."""

    def gettext(self, message: str) -> str:
        said = self.get(message)
        if said is None:
            said = self[message] = squeeze(translation.gettext(message))
        return said

    def pgettext(self, context: str, message: str) -> str:
        key = (context, message)
        said = self.get(key)
        if said is None:
            said = self[key] = squeeze(translation.pgettext(context, message))
        return said

    def ngettext(self, singular: str, plural: str, count: int) -> str:
        key = (singular, plural, str(count))
        said = self.get(key)
        if said is None:
            said = self[key] = squeeze(translation.ngettext(singular, plural, count))
        return said


def words_in(kept: dict[str, Said]) -> Said:
    """The active language's words, of those `kept` (made and kept there on first use)."""
    code = translation.get_language()
    said = kept.get(code)
    if said is None:
        said = kept[code] = Said()
    return said


def render_context(
    table: Table,
    view: View,
    seat: int | None,
    events: list[Event] | None = None,
    words: Words | None = None,
) -> dict[str, Any]:
    """The template context of a table page or part, drawn from `view`: `seat`'s own view for
    its part, the spectator's for every public one. `events`: what the change pushed did;
    `words`: the active language's (`Said`; None: asked afresh)."""
    view = reader_view(view, table.players)  # a bot's name, worded per reader
    context = {
        "room_id": table.match.room_id,
        "view": view,
        "seat": seat,
        "version": view["version"],
    }
    layout = layout_for(table.match.game)
    said = Said() if words is None else words
    context.update(layout.context(view, seat, view.get("legal") or [], events or [], said))
    return context


def render_part(
    table: Table, view: View, part: str, seat: int | None = None, events: list[Event] | None = None
) -> str:
    return _render(table, render_context(table, view, seat, events), part)


def _render(table: Table, context: dict[str, Any], part: str) -> str:
    layout = layout_for(table.match.game)
    drawn = layout.draw_part(context, part)  # a part the layout draws itself, in Python
    if drawn is not None:
        return drawn
    context = dict(context)  # a partial may set what it draws
    partial = layout.partial(context, part)
    # Indentation is most of a part's bytes, and every byte goes to every socket.
    return squeeze(render_to_string(f"{layout.TEMPLATE}#{partial}", context))


def outer(layout: LayoutModule, names: Iterable[str]) -> list[str]:
    """`names` without the parts drawn inside another of them (a layout's `container`): a
    part inside one that is drawn anyway comes with it."""
    names = list(names)
    drawn = set(names)
    return [name for name in names if layout.container(name) not in drawn]


def render_full(table: Table, seat: int | None, watcher: int | None = None) -> str:
    """The whole live table for one connection: every public part and the seat's own
    (`watcher`: the user id of a spectator, whose part says when he takes a claimed seat)."""
    view = table.view(None)
    layout = layout_for(table.match.game)
    public = render_context(table, view, None)  # built once for every public part
    parts = [_render(table, public, name) for name in outer(layout, layout.public_parts(view))]
    if seat is not None:
        parts.append(render_part(table, table.view(seat), "me", seat))
    else:
        # A page that held a seat and reconnects as a spectator (banned, or signed out) must
        # lose its own cards: this takes the place of that part, by the same id.
        claimed = {"claimed_seat": claims.claim_of(table, watcher)}
        parts.append(render_to_string(f"{layout.TEMPLATE}#watching", claimed))
    return version_tag(table.version) + seat_tag(seat) + "".join(parts)


# --------------------------------------------------------------------------- a change


def wants_html(room: LiveRoom, alone: bool) -> bool:
    """Whether a change must be drawn: a browser socket of the room is here, or, when other
    processes hear this one (not `alone`: tables.server.alone), one noted its language there
    (tables.languages: a browser's table socket notes it before it draws its table; an API
    stream never does). A browser elsewhere whose note this process has not read yet gets a
    change marked undrawn, and draws its whole table instead (lobby.table_consumers)."""
    if any(listener.wants_html for listener in room.listeners):
        return True
    return not alone and languages.noted(table_group(room.room_id))


def spoken(room: LiveRoom, seats: list[int], alone: bool) -> tuple[list[str], dict[int, list[str]]]:
    """The languages the room's public parts are drawn in (the site's first), and each of
    `seats`' own part: asked once per change.

    Alone, the room's readers are its listeners here, which know their language: no cache is
    asked. With other processes, the languages their sockets noted (tables.languages: one
    cache read, renewed in the background) and this process's own.
    """
    site = settings.LANGUAGE_CODE
    readers = [listener for listener in room.listeners if listener.wants_html]
    here = {listener.language for listener in readers}
    mine = {s: {listener.language for listener in readers if listener.seat == s} for s in seats}
    if not alone:
        group = table_group(room.room_id)
        places = [group] + [seat_group(room.room_id, s) for s in seats]
        noted = languages.present_many(places)
        here.update(noted[group])
        for s in seats:
            mine[s].update(noted[seat_group(room.room_id, s)])
    order = [code for code, _name in settings.LANGUAGES]
    public = [site] + [c for c in order if c in here and c != site]
    own = {s: [c for c in order if c in mine[s]] or [site] for s in seats}
    return public, own


def change(room: LiveRoom, table: Table, events: list[Event], alone: bool = True) -> Delivery:
    """What changed at `table.version`, drawn once per language its readers use."""
    room_id, version = table.match.room_id, table.version
    if not wants_html(room, alone):
        # Only Board API streams listen, here and nowhere else: they build their own views,
        # so no HTML is drawn. The next change draws every part again (nothing to diff with).
        room.pushed = None
        public = {"type": "table.public", "version": version, "html": "", "full": True}
        public["drawn"] = False  # a browser that gets it draws its whole table
        return Delivery(room_id, version, {**public, "private": []}, table=table)
    seats = [p.seat for p in table.players]
    views = table.views([None, *seats])  # a seat's own part: from that seat's own view
    view = views[None]
    layout = layout_for(table.match.game)
    public = layout.public_parts(view)
    private = {s: layout.private_pieces(views[s], views[s]["legal"], s) for s in seats}
    cached = room.pushed
    full = cached is None or cached.version != version - 1
    if cached is None or cached.version < version:
        room.pushed = Pushed(version, public, private)
    before_public = cached.public if cached is not None and not full else {}
    before_private = cached.private if cached is not None and not full else {}
    changed = outer(layout, [k for k, v in public.items() if full or before_public.get(k) != v])
    mine = [s for s in seats if full or before_private.get(s) != private[s]]

    # Each part is rendered once per language its readers use, never once per socket.
    in_public, in_own = spoken(room, mine, alone)

    own: dict[int, dict[str, Any]] = {}
    for s in mine:
        before = before_private.get(s)
        if before is None or before.get("me") != private[s].get("me"):
            names = ["me"]  # the whole part (what lies around its pieces changed)
        else:
            names = [k for k, v in private[s].items() if before.get(k) != v]
        by_language = render_each(
            in_own[s], partial(_render_mine, table, views[s], names, s, events, room.words)
        )
        own[s] = {
            "type": "table.private",
            "version": version,
            **split(by_language),
            "seat": s,
        }

    def public_parts() -> str:
        # Built once per language its readers use, for every public part: a bot's name is
        # worded in that language (`reader_view`).
        context = render_context(table, view, None, events, words_in(room.words))
        return version_tag(version) + "".join(_render(table, context, k) for k in changed)

    by_language = render_each(in_public, public_parts)
    message = {
        "type": "table.public",
        "version": version,
        **split(by_language),
        "full": full,
        "private": mine,
    }
    return Delivery(room_id, version, message, own, table)


def _render_mine(
    table: Table,
    view: View,
    names: list[str],
    seat: int,
    events: list[Event],
    kept: dict[str, Said],
) -> str:
    context = render_context(table, view, seat, events, words_in(kept))
    return "".join(_render(table, context, name) for name in names)


def rematch_notice(room_id: int, rematch_id: int, username: str) -> dict[str, Any]:
    """The message that tells a finished table's sockets someone opened its rematch."""
    context = {"room_id": room_id, "rematch_id": rematch_id, "by": username}
    by_language = render_each(
        languages.present(table_group(room_id)),
        lambda: squeeze(render_to_string("games/_rematch.html", context)),
    )
    # The room's group also holds Board API streams: they take the facts, browsers the HTML.
    return {
        "type": "table.notice",
        **split(by_language),
        "rematch": rematch_id,
        "by": username,
    }


# --------------------------------------------------------------------------- Board API texts


# How many versions before the newest keep their prepared texts (moves of one room that are
# written in one batch: at 40 moves a second a room, 18 % of the pushes came after the next
# move was prepared, and were encoded again seat by seat).
KEEP_OLDER = 3


def prepare(room: LiveRoom, table: Table, alone: bool = True) -> None:
    """Encode every seat's Board API text of a move's `table` while the move is written.

    Nothing is sent before the move is durable; this only moves the work of the push that
    follows (`view_text`) ahead of the commit. Only for a room whose sockets here are all
    streams: browsers' parts are drawn after the commit.
    """
    if wants_html(room, alone):
        return
    seats: list[int | None] = [p.seat for p in table.players]
    if len(seats) < 2:
        return
    engine, shared = table.view_parts(seats)
    if shared is None:  # the seats' room parts differ: each view joined, then planned
        views = table.joined(seats, engine, shared)
        plan = _plan([views[s] for s in seats])
        texts = {s: _encode_planned(views[s], plan) for s in seats}
    else:  # planned from the parts, no seat's view joined but the first (the same texts)
        plan = _plan_parts(seats, engine, shared)
        texts = {s: _encode_own(engine[s], s, plan) for s in seats}
    encoded = Encoded(table.version, planned=frozenset(seats), plan=plan)
    encoded.texts = texts
    previous = room.encoded
    if previous is None or previous.version <= table.version:
        if previous is not None:
            # Its push may still be to come (one batch): kept beside, a few versions at most.
            older = [previous] if previous.version < table.version else []
            encoded.older = [*older, *previous.older][:KEEP_OLDER]
            previous.older = []
        room.encoded = encoded


def view_text(room: LiveRoom | None, table: Table, seat: int | None) -> str:
    """The Board API stream's message for `seat`'s view of `table`, encoded once per version.

    The first seat asked builds every seat's view at once (`Table.views`: what they share is
    built once); each is encoded when its seat's socket asks. Without a room here (a table
    read for one socket), it is encoded for that socket alone."""
    if room is None:
        return encode_message({"type": "view", "view": table.view(seat)})
    cached = room.encoded
    if cached is None or cached.version != table.version:
        if cached is not None and cached.version > table.version:
            # A move prepared after this one (one batch): its texts were kept beside.
            kept = next((e for e in cached.older if e.version == table.version), None)
            if kept is None:
                return encode_message({"type": "view", "view": table.view(seat)})  # rare
            cached = kept
        else:
            cached = room.encoded = Encoded(table.version)
    text = cached.texts.get(seat)
    if text is None:
        if seat not in cached.views:
            seats: list[int | None] = [p.seat for p in table.players]
            together = seats if seat in seats else [seat]
            built = table.views(together)
            cached.views.update(built)
            if len(together) > 1:
                cached.plan = _plan([built[s] for s in together])
                cached.planned = frozenset(together)
        view = cached.views[seat]
        if seat in cached.planned and cached.plan is not None:
            text = _encode_planned(view, cached.plan)
        else:
            text = _encode_view(view, cached.shared)
        cached.texts[seat] = text
    return text


def _plan(views: list[View]) -> tuple[str, list[str]]:
    """How to encode each of `views` quickly: the JSON of every field they all share (the very
    same object in each), encoded once here in one call, and the names of the other fields."""
    # A copy of the first view, in its order, as a comprehension would keep it.
    return _planned(dict(views[0]), _own(views))


def _own(views: list[View]) -> set[str]:
    """The fields of `views` that are not the very same object in every one of them."""
    first = views[0]
    names, values = list(first), list(first.values())
    own: set[str] = set()
    for view in views[1:]:
        if list(view) == names:  # the usual case: compared field by field in C
            own.update(compress(names, map(is_not, values, view.values())))
        else:
            own.update(n for n, v in view.items() if first.get(n) is not v)
            own |= first.keys() ^ view.keys()  # a field some seat lacks is nobody's shared
    return own


def _planned(common: View, own: set[str]) -> tuple[str, list[str]]:
    """The plan: `common` (the first view, or a copy of it a caller may change) without the
    `own` fields, in its order, encoded once; and the own fields' names."""
    for name in own:
        common.pop(name, None)
    return _dumps(common)[1:-1], sorted(own)


def _plan_parts(
    seats: list[int | None], engine: dict[int | None, View], shared: View
) -> tuple[str, list[str]]:
    """`_plan` of the seats' joined views (`Table.joined`: each engine view updated with the
    room's `shared` part, then its `seat`), from the parts: a field of the room's part is
    the very same object in every view, each seat's `seat` its own (the seats differ), and
    the engine's fields are compared as `_plan` compares the joined ones. Only the first
    seat's view is joined (what they share is encoded in its order)."""
    own = _own([engine[s] for s in seats]) - shared.keys()
    own.add("seat")
    first = dict(engine[seats[0]])
    first.update(shared)
    first["seat"] = seats[0]
    return _planned(first, own)  # a view of its own: changed in place


def _encode_own(engine_view: View, seat: int | None, plan: tuple[str, list[str]]) -> str:
    """`_encode_planned` of `seat`'s joined view, from its engine view (`_plan_parts`: its
    own fields are its engine view's but `seat`)."""
    common, names = plan
    fields = {
        name: seat if name == "seat" else engine_view[name]
        for name in names
        if name == "seat" or name in engine_view
    }
    own = _dumps(fields)[1:-1]
    body = common + "," + own if common and own else common or own
    return '{"type":"view","view":{' + body + "}}"


def _encode_planned(view: View, plan: tuple[str, list[str]]) -> str:
    """The stream's message for a view of the plan's seats: what they share, then its own
    fields (JSON objects have no order; the content is exactly the view's)."""
    common, names = plan
    own = _dumps({name: view[name] for name in names if name in view})[1:-1]
    body = common + "," + own if common and own else common or own
    return '{"type":"view","view":{' + body + "}}"


class Labels(dict[str, str]):
    """A view field's name as JSON, with its colon (a few dozen names): the live server's part
    (tables.server), kept so that a view's names are not encoded for every seat and move."""

    def __missing__(self, name: str) -> str:
        label = self[name] = _dumps(name) + ":"
        return label


def _encode_view(view: View, shared: dict[str, tuple[Any, str]]) -> str:
    """`encode_message({"type": "view", "view": view})`, reusing the fields in `shared`."""
    labels = server.current().part(Labels)
    fields = []
    for name, value in view.items():
        known = shared.get(name)
        # The same object only: == would take 0 for False and 1.0 for 1, which encode apart.
        if known is not None and known[0] is value:
            text = known[1]
        else:
            text = _dumps(value)
            if known is None:
                shared[name] = (value, text)
        fields.append(labels[name] + text)
    return '{"type":"view","view":{' + ",".join(fields) + "}}"


def _dumps(value: Any) -> str:
    """Compact JSON (orjson: several times quicker than json, and no spaces to send)."""
    try:
        # Keys that are not text (a seat's number) are rare: orjson's option for them takes a
        # slower road for every dict, so it is asked for only when a view has one.
        return orjson.dumps(value).decode()
    except orjson.JSONEncodeError:
        pass
    try:
        return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()
    except orjson.JSONEncodeError:  # what only json takes (an integer over 64 bits): the same
        return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def encode_message(message: Any) -> str:
    """A Board API stream message as its text: compact JSON, as every pushed view is."""
    return _dumps(message)
