"""The one write path for moves, used by the browser's socket, the bots and the Board API.

Every move goes to its room's actor (`tables.actor`): checked and applied in memory one at a
time (L12 races settle there, in order of arrival), group-committed to the action log, and
acknowledged and pushed (`tables.push`) once durable. Presence, stand-ins, countdowns and
closing go through `touch`, in the same order as the moves.
"""

from __future__ import annotations

import asyncio
import secrets
from dataclasses import dataclass
from datetime import timedelta
from functools import partial
from typing import Any

from channels.db import database_sync_to_async
from django.conf import settings
from django.db import transaction
from django.utils import timezone

from games.engine import Action
from games.registry import GAMES
from tables import actor, authority, current, owners, wire
from tables.actor import ACTION_KEYS, Check, PlayError
from tables.current import Table
from tables.models import Match, Player, Round

__all__ = [
    "ACTION_KEYS",
    "Outcome",
    "PlayError",
    "act",
    "act_async",
    "close_match",
    "table_async",
    "touch",
]


# --------------------------------------------------------------------------- starting


def start_match(room: Any, seats: list[Any]) -> Match:
    """Deal round 1 for a room that starts now; call inside the room's transaction."""
    game = GAMES[room.game]
    seed = secrets.randbits(53)
    state = game.new_match(len(seats), room.options, seed)
    match = Match.objects.create(
        room=room,
        game=room.game,
        options=room.options,
        seed=seed,
        starts_at=_countdown_end(),
        **owners.first_lease(),  # this process owns it from the start (tables.owners)
    )
    Player.objects.bulk_create(
        Player(
            match=match,
            seat=seat.index,
            user=seat.user,
            name=seat.name,
            bot_level=seat.bot_level,
            # A human's grace period runs from the start until his first socket (tables.presence).
            away_since=match.created_at if seat.user_id else None,
        )
        for seat in seats
    )
    Round.objects.create(
        match=match, number=game.progress(state).round, seed=seed, state=game.dump(state), version=1
    )
    return match


def _countdown_end() -> Any:
    return timezone.now() + timedelta(seconds=settings.TABLE_COUNTDOWN)


# --------------------------------------------------------------------------- the write path


@dataclass
class Outcome:
    """What an accepted action did: the engine's events and the version it made.

    `table` is the table after it when it was applied in this process; a move forwarded to
    the room's owner (tables.owners) has no table here, only the seat's view if it was asked.
    """

    table: Table | None
    events: list[dict[str, Any]]
    version: int = 0
    seat: int | None = None
    seen: dict[str, Any] | None = None  # the seat's view, from the owner

    def view(self, seat: int | None) -> dict[str, Any]:
        """`seat`'s view of the table right after the action."""
        if self.table is not None:
            return self.table.view(seat)
        if self.seen is None or seat != self.seat:
            raise ValueError("the owner sent no view for this seat (ask for it: wants_view)")
        return self.seen


def act(
    room_id: int,
    seat: int,
    action: Any,
    by_bot: bool = False,
    driver: str = "",
    check: Check | None = None,
    wants_view: bool = True,
) -> Outcome:
    """Apply `action` for `seat` in the room's match, or raise PlayError / IllegalAction.

    `check(table)` is the transport's authority check (tables.authority), run on the table
    before the rules: it raises when the caller no longer holds the seat.

    From a thread (a Django view, the database thread): the move is handed to the room's actor
    in the server loop (or to the room's owner process, `_apply`) and this waits for its
    acknowledgement. Without a server loop it runs here, in a transaction on the locked match
    row. `wants_view`: a forwarded move brings the seat's view back (`Outcome.view`).
    """
    action = _checked(action)
    loop = actor.serving_loop()
    if loop is None:
        entry = actor.act_inline(room_id, seat, action, by_bot, driver, check)
        return Outcome(
            table=current.copy_of(entry.table),
            events=entry.events,
            version=entry.version,
            seat=seat,
        )
    _not_in(loop)
    future = asyncio.run_coroutine_threadsafe(
        _apply(room_id, seat, action, by_bot, driver, check, wants_view, copy=True), loop
    )
    return future.result()


async def act_async(
    room_id: int,
    seat: int,
    action: Any,
    by_bot: bool = False,
    driver: str = "",
    check: Check | None = None,
    wants_view: bool = True,
) -> Outcome:
    """`act` from a coroutine of the server loop: applied right here, answered once durable."""
    action = _checked(action)
    return await _apply(room_id, seat, action, by_bot, driver, check, wants_view, copy=False)


async def _apply(
    room_id: int,
    seat: int,
    action: Action,
    by_bot: bool,
    driver: str,
    check: Check | None,
    wants_view: bool,
    copy: bool,
) -> Outcome:
    # Here or at the room's owner: the one place that decides (tables.owners).
    actor.bind(asyncio.get_running_loop())
    owner = await owners.elsewhere_now(room_id)
    # A check that cannot travel as data is run here, on this process's table (the fence on
    # the match's version keeps that correct): never dropped.
    if owner is not None and (check is None or isinstance(check, authority.Holder)):
        answer = await owners.forward(
            owner, room_id, seat, action, by_bot, driver, check, view=wants_view
        )
        return Outcome(
            table=None, events=answer.events, version=answer.version, seat=seat, seen=answer.view
        )
    entry = await actor.act(room_id, seat, action, by_bot, driver or owners.me(), check)
    # The durable table: act_async's caller reads it only; a thread gets its own copy.
    table = current.copy_of(entry.table) if copy else entry.table
    return Outcome(table=table, events=entry.events, version=entry.version, seat=seat)


async def table_async(room_id: int) -> Table | None:
    """The room's table as it stands now (read it only), or None before the start.

    From the actor in this loop when this process owns the room; from the database when
    another does (this process's actor would not see that one's moves).
    """
    actor.bind(asyncio.get_running_loop())
    if owners.elsewhere(room_id) is not None:
        return await database_sync_to_async(current.load_table)(room_id)
    try:
        room = await actor.actor_for(room_id)
    except PlayError:
        return None
    return room.table


def _checked(action: Any) -> dict[str, Any]:
    try:
        # Every caller's action is checked here, so the rules and the log see known fields only.
        return wire.action(action, code="bad_action")
    except wire.WireError as refusal:
        raise PlayError("bad_action", refusal.message, 400) from None


def _not_in(loop: asyncio.AbstractEventLoop) -> None:
    try:
        running = asyncio.get_running_loop()
    except RuntimeError:
        return
    if running is loop:
        raise RuntimeError("tables.play: in the server loop, await act_async / touch_async")


def touch(room_id: int, change: Any) -> Table | None:
    """Run `change(table)` on the room's match (presence, stand-ins, countdown) and push it.

    `change` gets a table whose rows it may change and save; it returns True when it changed
    something players can see, and then the version grows. With a server loop it runs in the
    room's actor, its moves waiting; called inside a transaction (a room operation), it runs
    once that commits, so that the actor's writer never waits for the caller's lock.
    """
    loop = actor.serving_loop()
    if loop is None:
        return actor.touch_inline(room_id, change)
    _not_in(loop)
    if transaction.get_connection().in_atomic_block:
        transaction.on_commit(partial(_touch_in, loop, room_id, change))
        return None
    return _touch_in(loop, room_id, change)


def _touch_in(loop: asyncio.AbstractEventLoop, room_id: int, change: Any) -> Table | None:
    return asyncio.run_coroutine_threadsafe(actor.touch(room_id, change), loop).result()


async def touch_async(room_id: int, change: Any) -> Table | None:
    """`touch` from a coroutine of the server loop."""
    actor.bind(asyncio.get_running_loop())
    return await actor.touch(room_id, change)


def close_match(room_id: int, reason: str) -> None:
    """Stop the room's match where it stands (its room was closed): no winner, no more moves."""

    def change(table: Table) -> bool:
        match = table.match
        if match.status != Match.Status.PLAYING:
            return False
        match.status = Match.Status.CLOSED
        match.closed_reason = reason
        match.finished_at = timezone.now()
        match.save(update_fields=["status", "closed_reason", "finished_at"])
        return True

    touch(room_id, change)
