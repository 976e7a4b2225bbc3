"""Push a table change to every open socket of the room, rendered once.

A change renders the public parts that changed once and sends the same bytes to the room's
group; a part private to a seat (his own interactive tableau) is rendered only for the seats
whose part changed and sent to that seat's group. Nothing here queries the database per
recipient: consumers forward the bytes as they come. Every frame carries the match version, so
a socket that misses one resyncs with the whole table.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.template.loader import render_to_string

from games.allegra import table as allegra_table
from games.play import Table, cache_key

log = logging.getLogger(__name__)
_SPACES = re.compile(r"\s+")


def table_group(room_id: int) -> str:
    return f"table.{room_id}"


def seat_group(room_id: int, seat: int) -> str:
    return f"table.{room_id}.seat.{seat}"


@dataclass(frozen=True)
class Layout:
    """How one game's table page is cut into parts, each a partial with a stable id.

    `public(view)` maps each public part to the data it is drawn from (compared between
    versions to find what changed); `private(table, view, seat)` is the data of a seat's own
    part (`me`). Both take the spectator's view, which holds everything public. `context(table,
    view, seat, events)` adds the game's own template context to the common one, and
    `partial(context, part)` names the partial that draws a part (and sets what it draws).
    """

    template: str
    public: Callable[[dict[str, Any]], dict[str, Any]]
    private: Callable[[Table, dict[str, Any], int], Any]
    context: Callable[[Table, dict[str, Any], int | None, list[dict[str, Any]]], dict[str, Any]]
    partial: Callable[[dict[str, Any], str], str]


def _ligretto_public(view: dict[str, Any]) -> dict[str, Any]:
    parts: dict[str, Any] = {
        "status": (
            view["status"],
            view["round"],
            view.get("message"),
            view.get("starts_at"),
            tuple(view.get("ready", ())),
        ),
        "scores": (repr(view["players"]), repr(view["scores"])),
        "center": repr(view["center"]),
    }
    for t in view["tableaus"]:
        parts[f"seat-{t['seat']}"] = repr(t)
    return parts


def _ligretto_private(table: Table, view: dict[str, Any], seat: int) -> Any:
    return (
        repr(view["tableaus"][seat]),
        view["status"],
        view["round"],
        seat in view.get("ready", ()),
        view.get("starts_at"),
    )


def _ligretto_context(
    table: Table, view: dict[str, Any], seat: int | None, events: list[dict[str, Any]]
) -> dict[str, Any]:
    players = {p["seat"]: p for p in view["players"]}
    tableaus = [dict(t, player=players[t["seat"]]) for t in view.get("tableaus", ())]
    return {
        "tableaus": tableaus,
        "message": _named(view.get("message"), players),
        "me": tableaus[seat] if seat is not None and seat < len(tableaus) else None,
        "match_end": table.game.describe_end(view.get("options") or table.match.options),
        "final_round": view.get("status") == "round_over" and _last_round(view),
    }


_SEAT = re.compile(r"\b[Ss]eats? (\d+(?:, \d+)*)")


def _named(message: str | None, players: dict[int, dict[str, Any]]) -> str | None:
    """Put the players' names where the engine's sentence names seats ("seat 1 emptied…")."""
    if not message:
        return message

    def names(match: re.Match) -> str:
        seats = [int(n) for n in match.group(1).split(", ")]
        if any(n not in players for n in seats):
            return match.group(0)
        return " and ".join(players[n]["name"] for n in seats)

    return _SEAT.sub(names, message)


def _ligretto_partial(context: dict[str, Any], part: str) -> str:
    if part.startswith("seat-"):
        context["t"] = context["tableaus"][int(part.removeprefix("seat-"))]
        return "seat"
    return part


def _allegra_legal(table: Table, view: dict[str, Any], seat: int) -> list[dict[str, Any]]:
    if view["status"] in ("starting", "closed"):
        return []
    return table.game.legal_actions(table.state, seat)


def _allegra_private(table: Table, view: dict[str, Any], seat: int) -> Any:
    return allegra_table.private_part(view, _allegra_legal(table, view, seat), seat)


def _allegra_context(
    table: Table, view: dict[str, Any], seat: int | None, events: list[dict[str, Any]]
) -> dict[str, Any]:
    legal = _allegra_legal(table, view, seat) if seat is not None else []
    return allegra_table.context(view, seat, legal, events)


def _allegra_partial(context: dict[str, Any], part: str) -> str:
    kind, _, seat = part.partition("-")
    if kind == "grid":
        context["g"] = context["grids"]()[int(seat)]
    elif kind == "col":
        context["c"] = context["cols"]()[int(seat)]
    return kind


LAYOUTS: dict[str, Layout] = {
    "ligretto": Layout(
        "games/ligretto/table.html",
        _ligretto_public,
        _ligretto_private,
        _ligretto_context,
        _ligretto_partial,
    ),
    "ligretto-mini": Layout(
        "games/ligretto/table.html",
        _ligretto_public,
        _ligretto_private,
        _ligretto_context,
        _ligretto_partial,
    ),
    "allegra": Layout(
        "games/allegra/table.html",
        allegra_table.public_parts,
        _allegra_private,
        _allegra_context,
        _allegra_partial,
    ),
}


def layout_for(game: str) -> Layout:
    return LAYOUTS[game]


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
    """The template context of a table page or part (`view` is the spectator's).

    `events` are what the change being pushed did (a page or a whole table has none).
    """
    context = {
        "room_id": table.match.room_id,
        "game_name": table.game.name,
        "view": view,
        "seat": seat,
        "version": view["version"],
    }
    context.update(layout_for(table.match.game).context(table, view, seat, events or []))
    return context


def _last_round(view: dict[str, Any]) -> bool:
    options = view.get("options") or {}
    rounds, target = options.get("rounds"), options.get("target")
    if rounds and len(view.get("scores", ())) >= rounds:
        return True
    return target is not None and any(p["total"] >= target for p in view["players"])


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
    return _SPACES.sub(" ", render_to_string(f"{layout.template}#{partial}", context))


def render_full(table: Table, seat: int | None) -> str:
    """The whole live table for one connection: every public part and the seat's own."""
    view = table.view(None)
    layout = layout_for(table.match.game)
    public = render_context(table, view, None)  # built once for every public part
    parts = [_render(table, public, name) for name in layout.public(view)]
    if seat is not None:
        parts.append(render_part(table, view, "me", seat))
    else:
        # A page that held a seat and reconnects as a spectator (banned, or signed out) must
        # lose its own cards: this takes the place of that part, by the same id.
        parts.append(render_to_string(f"{layout.template}#watching"))
    return version_tag(table.version) + "".join(parts)


def table_changed(table: Table, events: list[dict[str, Any]]) -> None:
    """Render what changed at `table.version` once and send it to the room's sockets."""
    room_id, version = table.match.room_id, table.version
    view = table.view(None)
    layout = layout_for(table.match.game)
    public = layout.public(view)
    seats = [p.seat for p in table.players]
    private = {s: layout.private(table, view, s) for s in seats}
    key = cache_key(table.match)
    cached = _last.get(key)
    full = cached is None or cached[0] != version - 1
    if cached is None or cached[0] < version:
        _last[key] = (version, public, private)
    changed = [k for k, v in public.items() if full or cached[1].get(k) != v]
    mine = [s for s in seats if full or cached[2].get(s) != private[s]]

    messages: list[tuple[str, dict[str, Any]]] = []
    # A seat's own part goes first, so that it is there when the public frame names it.
    for s in mine:
        html = render_part(table, view, "me", s, events)
        messages.append(
            (seat_group(room_id, s), {"type": "table.private", "version": version, "html": html})
        )
    context = render_context(table, view, None, events)  # built once for every public part
    html = version_tag(version) + "".join(_render(table, context, k) for k in changed)
    messages.append(
        (
            table_group(room_id),
            {
                "type": "table.public",
                "version": version,
                "html": html,
                "full": full,
                "private": mine,
            },
        )
    )
    _dispatch(messages)


# Pushes leave through one sender task in the server's event loop: the thread that committed
# a move hands them over without waiting, and they go out in the order of the commits.
_loop: asyncio.AbstractEventLoop | None = None
_outbox: asyncio.Queue | None = None


def bind_loop(loop: asyncio.AbstractEventLoop) -> None:
    """Send pushes from `loop` (the server's); called for each connection, cheap when bound."""
    global _loop, _outbox
    if _loop is loop:
        return
    _loop, _outbox = loop, asyncio.Queue()
    loop.create_task(_sender(_outbox))


async def _sender(outbox: asyncio.Queue) -> None:
    while True:
        messages = await outbox.get()
        try:
            await _send_all(messages)
        except Exception:  # a push that fails must not stop the ones after it
            log.exception("push failed")


def _dispatch(messages: list[tuple[str, dict[str, Any]]]) -> None:
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
        outbox.put_nowait(messages)
    else:
        loop.call_soon_threadsafe(outbox.put_nowait, messages)


async def _send_all(messages: list[tuple[str, dict[str, Any]]]) -> None:
    layer = get_channel_layer()
    if layer is None:
        return
    for group, message in messages:
        await layer.group_send(group, message)


def rematch_opened(room_id: int, rematch_id: int, username: str) -> None:
    """Tell a finished table's sockets that someone opened its rematch (a live join link)."""
    html = _SPACES.sub(
        " ",
        render_to_string(
            "games/_rematch.html", {"room_id": room_id, "rematch_id": rematch_id, "by": username}
        ),
    )
    # The room's group also holds Board API streams: they take the facts, browsers the HTML.
    notice = {"type": "table.notice", "html": html, "rematch": rematch_id, "by": username}
    _dispatch([(table_group(room_id), notice)])
