"""Push a table change to every open socket of the room, rendered once.

A change renders the public parts that changed once and hands the same bytes to every socket
of the room; a part private to a seat (his own interactive tableau) is rendered only for the
seats whose part changed. The sockets of this process are handed the frames directly
(`listen`), without a channel-layer dispatch per recipient; when the channel layer reaches
other processes (Redis), each change is also published once to the room's groups, and a socket
ignores what it already got from its own process. Nothing here queries the database per
recipient. Every frame carries the match version, so a socket that misses one resyncs with
the whole table.
"""

from __future__ import annotations

import asyncio
import contextvars
import json
import logging
import secrets
from collections.abc import Iterable
from dataclasses import dataclass, field
from itertools import compress
from operator import is_not
from types import ModuleType
from typing import Any

import orjson
from asgiref.sync import async_to_sync
from channels.layers import InMemoryChannelLayer, get_channel_layer
from django.template.loader import render_to_string

from games.registry import GAMES
from tables import languages, words
from tables.current import Table, cache_key

log = logging.getLogger(__name__)
# This process, as the changes it publishes to other processes name it.
ORIGIN = secrets.token_hex(8)


def table_group(room_id: int) -> str:
    return f"table.{room_id}"


def seat_group(room_id: int, seat: int) -> str:
    return f"table.{room_id}.seat.{seat}"


def layout_for(game: str) -> ModuleType:
    """The game's pure layout module (`<package>.layout`), from its registry entry."""
    return GAMES[game].layout


# The last parts pushed per match in this process, with their version: a change compares with
# them to render only what differs. When the cache is not exactly one version behind (another
# process wrote in between, or a commit overtook another), everything is rendered.
_last: dict[tuple[int, int], tuple[int, dict[str, Any], dict[int, Any]]] = {}


def version_tag(version: int) -> str:
    return f'<div id="table-version" data-version="{version}" hidden></div>'


def render_context(
    table: Table,
    view: dict[str, Any],
    seat: int | None,
    events: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """The template context of a table page or part, drawn from `view`: `seat`'s own view for
    its part, the spectator's for every public one.

    `events` are what the change being pushed did (a page or a whole table has none).
    """
    context = {
        "room_id": table.match.room_id,
        "game_name": words.game_name(table.match.game),
        "view": view,
        "seat": seat,
        "version": view["version"],
    }
    layout = layout_for(table.match.game)
    context.update(layout.context(view, seat, view.get("legal") or [], events or []))
    return context


def render_part(
    table: Table,
    view: dict[str, Any],
    part: str,
    seat: int | None = None,
    events: list[dict[str, Any]] | None = None,
) -> str:
    return _render(table, render_context(table, view, seat, events), part)


def _render(table: Table, context: dict[str, Any], part: str) -> str:
    layout = layout_for(table.match.game)
    context = dict(context)  # a partial may set what it draws
    partial = layout.partial(context, part)
    # Indentation is most of a part's bytes, and every byte goes to every socket.
    return squeeze(render_to_string(f"{layout.TEMPLATE}#{partial}", context))


def squeeze(html: str) -> str:
    r"""`html` with every run of whitespace made one space (what `re.sub(r"\s+", " ", html)`
    gives, in a fifth of its time: split and join run in C, a regular expression visits
    every single space too)."""
    inner = " ".join(html.split())
    if not inner:
        return " " if html else ""
    if html[0].isspace():
        inner = " " + inner
    if html[-1].isspace():
        inner += " "
    return inner


def outer(layout: ModuleType, names: Iterable[str]) -> list[str]:
    """`names` without the parts drawn inside another of them (a layout's `container`): a
    part inside one that is drawn anyway comes with it."""
    container = getattr(layout, "container", None)
    names = list(names)
    if container is None:
        return names
    drawn = set(names)
    return [name for name in names if container(name) not in drawn]


def render_full(table: Table, seat: int | None) -> str:
    """The whole live table for one connection: every public part and the seat's own."""
    view = table.view(None)
    layout = layout_for(table.match.game)
    public = render_context(table, view, None)  # built once for every public part
    parts = [_render(table, public, name) for name in outer(layout, layout.public_parts(view))]
    if seat is not None:
        parts.append(render_part(table, table.view(seat), "me", seat))
    else:
        # A page that held a seat and reconnects as a spectator (banned, or signed out) must
        # lose its own cards: this takes the place of that part, by the same id.
        parts.append(render_to_string(f"{layout.TEMPLATE}#watching"))
    return version_tag(table.version) + "".join(parts)


def table_changed(table: Table, events: list[dict[str, Any]]) -> None:
    """Render what changed at `table.version` once and send it to the room's sockets."""
    room_id, version = table.match.room_id, table.version
    if not _html_wanted(room_id):
        # Only Board API streams listen, here and nowhere else: they build their own views,
        # so no HTML is drawn. The next change draws every part again (nothing to diff with).
        _last.pop(cache_key(table.match), None)
        public = {"type": "table.public", "version": version, "html": "", "full": True}
        _dispatch([(table_group(room_id), {**public, "private": []})], room_id, table)
        return
    seats = [p.seat for p in table.players]
    # A seat's own part is drawn from that seat's view, never from the spectator's.
    views = table.views([None, *seats])
    view = views[None]
    layout = layout_for(table.match.game)
    public = layout.public_parts(view)
    private = {s: _private_pieces(layout, views[s], s) for s in seats}
    key = cache_key(table.match)
    cached = _last.get(key)
    full = cached is None or cached[0] != version - 1
    if cached is None or cached[0] < version:
        _last[key] = (version, public, private)
    changed = outer(layout, [k for k, v in public.items() if full or cached[1].get(k) != v])
    mine = [s for s in seats if full or cached[2].get(s) != private[s]]

    # Each part is rendered once per language its readers use (noted by their sockets), never
    # once per socket: one cache read for the room's and the changed seats' languages.
    places = [table_group(room_id)] + [seat_group(room_id, s) for s in mine]
    spoken = languages.present_many(places)
    spoken[table_group(room_id)] = languages.present(table_group(room_id))

    messages: list[tuple[str, dict[str, Any]]] = []
    # A seat's own part goes first, so that it is there when the public frame names it.
    for s in mine:
        before = None if full else cached[2].get(s)
        if before is None or before.get("me") != private[s].get("me"):
            names = ["me"]  # the whole part (what lies around its pieces changed)
        else:
            names = [k for k, v in private[s].items() if before.get(k) != v]
        by_language = languages.render_each(
            spoken[seat_group(room_id, s)],
            lambda s=s, names=names: _render_mine(table, views[s], names, s, events),
        )
        messages.append(
            (
                seat_group(room_id, s),
                {
                    "type": "table.private",
                    "version": version,
                    **languages.split(by_language),
                    "seat": s,
                },
            )
        )
    context = render_context(table, view, None, events)  # built once for every public part
    by_language = languages.render_each(
        spoken[table_group(room_id)],
        lambda: version_tag(version) + "".join(_render(table, context, k) for k in changed),
    )
    messages.append(
        (
            table_group(room_id),
            {
                "type": "table.public",
                "version": version,
                **languages.split(by_language),
                "full": full,
                "private": mine,
            },
        )
    )
    _dispatch(messages, room_id, table)


def _private_pieces(layout: ModuleType, view: dict[str, Any], seat: int) -> dict[str, Any]:
    """What a seat's own part is drawn from: {"me": the data of the whole part}, or, for a
    layout with `private_pieces`, the data of each piece that can be redrawn alone (its own
    partial, by its own id inside `me`) and under "me" what lies around them."""
    pieces = getattr(layout, "private_pieces", None)
    if pieces is not None:
        return dict(pieces(view, view["legal"], seat))
    return {"me": layout.private_part(view, view["legal"], seat)}


def _render_mine(
    table: Table, view: dict[str, Any], names: list[str], seat: int, events: list[dict[str, Any]]
) -> str:
    context = render_context(table, view, seat, events)
    return "".join(_render(table, context, name) for name in names)


# The table sockets (and Board API streams) of this process, per room: a change is handed to
# each by a direct call (`push_private`, `push_public`: what its group handlers do with a
# change that came from another process).
_listeners: dict[int, set[Any]] = {}


def listen(room_id: int, socket: Any) -> None:
    """Hand `socket` every change of the room pushed from this process (it has `seat`)."""
    _listeners.setdefault(room_id, set()).add(socket)


def unlisten(room_id: int, socket: Any) -> None:
    sockets = _listeners.get(room_id)
    if sockets is not None:
        sockets.discard(socket)
        if not sockets:
            del _listeners[room_id]


def _html_wanted(room_id: int) -> bool:
    """Whether a change must be drawn: a browser socket of the room is here, or may be elsewhere."""
    if not isinstance(get_channel_layer(), InMemoryChannelLayer):
        return True
    return any(getattr(s, "wants_html", True) for s in _listeners.get(room_id, ()))


def from_here(event: dict[str, Any]) -> bool:
    """Whether a group message is a change this process already handed its sockets."""
    return event.get("origin") == ORIGIN


# The last encoded Board API view per match and seat, at one version: every stream of a seat
# (and every spectator's) sends the same text, encoded once. The seats' views of one version
# share most of their fields (everything public, built once by `Table.views`): each field's
# JSON is kept with its value, and a seat whose field is that very object reuses it, so only
# what differs is encoded again.
_encoded: dict[tuple[int, int], _Encoded] = {}


@dataclass
class _Encoded:
    version: int
    texts: dict[int | None, str] = field(default_factory=dict)
    shared: dict[str, tuple[Any, str]] = field(default_factory=dict)
    views: dict[int | None, Any] = field(default_factory=dict)
    # The seats' views built together: the JSON of what they share, and each seat's own fields.
    plan: tuple[str, list[str]] | None = None
    planned: frozenset[int | None] = frozenset()


def prepare(table: Table) -> None:
    """Encode every seat's Board API message of a move's `table` while the move is written.

    Nothing is sent before the move is durable; this only moves the work of the push that
    follows (`view_text`) ahead of the commit, so that the push itself just sends. Only for a
    room whose sockets here are all streams: browsers' parts are drawn after the commit.
    """
    if _html_wanted(table.match.room_id):
        return
    seats = [p.seat for p in table.players]
    if len(seats) < 2:
        return
    views = table.views(seats)
    plan = _plan([views[s] for s in seats])
    table.texts = {s: _encode_planned(views[s], plan) for s in seats}


def view_text(table: Table, seat: int | None) -> str:
    """The Board API stream's message for `seat`'s view of `table`, encoded once per version.

    A move's table comes with its seats' messages (`prepare`). Otherwise the first seat asked
    builds every seat's view at once (`Table.views`: what they share is built once); each is
    encoded when its seat's socket asks."""
    texts = table.texts
    if texts is not None and seat in texts:
        return texts[seat]
    key = cache_key(table.match)
    cached = _encoded.get(key)
    if cached is None or cached.version != table.version:
        if cached is not None and cached.version > table.version:
            return encode_message({"type": "view", "view": table.view(seat)})  # an old one: rare
        cached = _encoded[key] = _Encoded(table.version)
    text = cached.texts.get(seat)
    if text is None:
        if seat not in cached.views:
            seats = [p.seat for p in table.players]
            together = seats if seat in seats else [seat]
            built = table.views(together)
            cached.views.update(built)
            if len(together) > 1:
                cached.plan = _plan([built[s] for s in together])
                cached.planned = frozenset(together)
        view = cached.views[seat]
        if seat in cached.planned:
            text = _encode_planned(view, cached.plan)
        else:
            text = _encode_view(view, cached.shared)
        cached.texts[seat] = text
    return text


def _plan(views: list[dict[str, Any]]) -> tuple[str, list[str]]:
    """How to encode each of `views` quickly: the JSON of every field they all share (the very
    same object in each), encoded once here in one call, and the names of the other fields."""
    first = views[0]
    names, values = list(first), list(first.values())
    own: set[str] = set()
    for view in views[1:]:
        if list(view) == names:  # the usual case: compared field by field in C
            own.update(compress(names, map(is_not, values, view.values())))
        else:
            own.update(n for n, v in view.items() if first.get(n) is not v)
            own |= first.keys() ^ view.keys()  # a field some seat lacks is nobody's shared
    common = {name: value for name, value in first.items() if name not in own}
    return _dumps(common)[1:-1], sorted(own)


def _encode_planned(view: dict[str, Any], plan: tuple[str, list[str]]) -> str:
    """The stream's message for a view of the plan's seats: what they share, then its own
    fields (JSON objects have no order; the content is exactly the view's)."""
    common, names = plan
    own = _dumps({name: view[name] for name in names if name in view})[1:-1]
    body = common + "," + own if common and own else common or own
    return '{"type":"view","view":{' + body + "}}"


def _label(name: str) -> str:
    label = _LABELS.get(name)
    if label is None:
        label = _LABELS[name] = _dumps(name) + ":"
    return label


def _encode_view(view: dict[str, Any], shared: dict[str, tuple[Any, str]]) -> str:
    """`encode_message({"type": "view", "view": view})`, reusing the fields in `shared`."""
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
        fields.append(_label(name) + text)
    return '{"type":"view","view":{' + ",".join(fields) + "}}"


_LABELS: dict[str, str] = {}  # a view field's name as JSON, with its colon


def _dumps(value: Any) -> str:
    """Compact JSON (orjson: several times quicker than json, and no spaces to send)."""
    try:
        return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()
    except orjson.JSONEncodeError:  # what only json takes (an integer over 64 bits): the same
        return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def encode_message(message: Any) -> str:
    """A Board API stream message as its text: compact JSON, as every pushed view is."""
    return _dumps(message)


# Pushes leave in the server's event loop, in the order of the commits. One made in the loop
# while nothing is queued goes out at once (usually without waiting for anything: every
# socket's frame is written right away); the others, and those handed over by a thread, queue
# for one sender task. A push that had to wait for something keeps the ones after it waiting
# (`_order`), so that they still go out in order.
_loop: asyncio.AbstractEventLoop | None = None
_outbox: asyncio.Queue | None = None
_order: asyncio.Lock | None = None
_queued = 0  # pushes dispatched in the loop and not sent yet (one being sent included)
_at_once: set[asyncio.Task] = set()


def bind_loop(loop: asyncio.AbstractEventLoop) -> None:
    """Send pushes from `loop` (the server's); called for each connection, cheap when bound."""
    global _loop, _outbox, _order, _queued
    if _loop is loop:
        return
    _loop, _outbox, _order, _queued = loop, asyncio.Queue(), asyncio.Lock(), 0
    loop.create_task(_sender(_outbox, _order), context=contextvars.Context())


async def _sender(outbox: asyncio.Queue, order: asyncio.Lock) -> None:
    while True:
        messages = await outbox.get()
        await _send_in_order(messages, order)


async def _send_in_order(messages: list[tuple[str, dict[str, Any]]], order: asyncio.Lock) -> None:
    global _queued
    async with order:
        try:
            await _send_all(messages)
        except Exception:  # a push that fails must not stop the ones after it
            log.exception("push failed")
        finally:
            _queued -= 1


def _enqueue(messages: list[tuple[str, dict[str, Any]]]) -> None:
    global _queued
    if _queued == 0 and _order is not None and not _order.locked():
        rest = _hand_over_now(messages)
        if rest is None:
            return  # every socket took it at once, and no other process needs it
        messages = rest
    _queued += 1
    if _queued == 1 and _order is not None and not _order.locked():
        # Nothing before it: sent now, up to the first thing it must wait for (if any).
        # In a context of its own, as the sender's: not the one of whoever committed (a thread
        # inside asgiref's sync_to_async, whose marks would refuse the sockets' database calls).
        task = asyncio.Task(
            _send_in_order(messages, _order),
            loop=_loop,
            context=contextvars.Context(),
            eager_start=True,
        )
        if not task.done():
            _at_once.add(task)
            task.add_done_callback(_at_once.discard)
        return
    _outbox.put_nowait(messages)


def _dispatch(
    messages: list[tuple[str, dict[str, Any]]],
    room_id: int | None = None,
    table: Table | None = None,
) -> None:
    if room_id is not None:
        messages = [(group, {**m, "origin": ORIGIN}) for group, m in messages]
        # The local hand-over, in order; this process's sockets get the very table pushed (the
        # memory of the newest one may be ahead by then: the writer publishes a batch at once).
        messages.append(("", {"room": room_id, "table": table}))
    loop, outbox = _loop, _outbox
    if loop is None or outbox is None or loop.is_closed() or not loop.is_running():
        # No server loop here (a management command, a plain test): send and wait.
        async_to_sync(_send_all)(messages)
        return
    try:
        here = asyncio.get_running_loop()
    except RuntimeError:
        here = None
    if here is loop:
        _enqueue(messages)
    else:
        loop.call_soon_threadsafe(_enqueue, messages)


def _hand_over_now(
    messages: list[tuple[str, dict[str, Any]]],
) -> list[tuple[str, dict[str, Any]]] | None:
    """Hand a push to the sockets here that take it at once (`push_now`), without a task.

    Only for one process (no other process needs the push) and a push with nothing private:
    a Board API stream's frame is its seat's view, already encoded, written straight to its
    socket. Returns None when every socket took it, else the push for the others (in order:
    nothing is queued before it).
    """
    # [the room's public message, the local hand-over]: no seat's own part in it.
    if len(messages) != 2 or messages[-1][0] != "" or messages[0][1]["type"] != "table.public":
        return messages
    layer = get_channel_layer()
    if layer is not None and not isinstance(layer, InMemoryChannelLayer):
        return messages
    local = messages[-1][1]
    public = messages[0][1]
    rest = []
    for socket in list(_listeners.get(local["room"], ())):  # a socket may leave meanwhile
        now = getattr(socket, "push_now", None)
        try:
            if now is not None and now(public, local["table"]):
                continue
        except Exception:  # one broken socket must not keep the frame from the others
            log.exception("push to a socket failed")
            continue
        rest.append(socket)
    if not rest:
        return None
    return [messages[0], ("", {**local, "sockets": rest})]


async def _send_all(messages: list[tuple[str, dict[str, Any]]]) -> None:
    layer = get_channel_layer()
    local = messages[-1][1] if messages and messages[-1][0] == "" else None
    if local is not None:
        messages = messages[:-1]
        await _hand_over(local["room"], messages, local["table"], local.get("sockets"))
        if layer is None or isinstance(layer, InMemoryChannelLayer):
            return  # one process: every socket had it already
    if layer is None:
        return
    for group, message in messages:
        await layer.group_send(group, message)


async def _hand_over(
    room_id: int,
    messages: list[tuple[str, dict[str, Any]]],
    table: Table | None = None,
    only: list[Any] | None = None,
) -> None:
    sockets = list(_listeners.get(room_id, ())) if only is None else only
    if not sockets:
        return
    public = messages[-1][1]
    private = {m["seat"]: m for _, m in messages[:-1]}
    for socket in sockets:
        try:
            mine = private.get(socket.seat)
            if mine is not None:
                await socket.push_private(mine)
            await socket.push_public(public, table)
        except Exception:  # one broken socket must not keep the frame from the others
            log.exception("push to a socket failed")


def rematch_opened(room_id: int, rematch_id: int, username: str) -> None:
    """Tell a finished table's sockets that someone opened its rematch (a live join link)."""
    context = {"room_id": room_id, "rematch_id": rematch_id, "by": username}
    by_language = languages.render_each(
        languages.present(table_group(room_id)),
        lambda: squeeze(render_to_string("games/_rematch.html", context)),
    )
    # The room's group also holds Board API streams: they take the facts, browsers the HTML.
    notice = {
        "type": "table.notice",
        **languages.split(by_language),
        "rematch": rematch_id,
        "by": username,
    }
    _dispatch([(table_group(room_id), notice)])
