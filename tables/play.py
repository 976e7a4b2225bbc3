"""The one write path for moves from a thread (Django views, the bot driver), and match starts.

Every move goes to its room (tables.live.rooms): checked and applied in memory one at a time
(L12 races settle there, in order of arrival), group-committed to the action log, and
acknowledged and pushed once durable. A socket in the server loop calls `rooms.act` itself;
a thread hands the move to the loop here and waits. Presence, stand-ins, countdowns and
closing go through `touch`, in the same order as the moves.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
from collections.abc import Callable
from datetime import timedelta
from functools import partial
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext_noop

from games.registry import GAMES
from tables import current, fairness, server, signals, words
from tables.current import Table
from tables.errors import PlayError
from tables.live import owners, rooms, store, stream
from tables.live.room import ACTION_KEYS, Check
from tables.live.rooms import Outcome
from tables.models import Match

__all__ = ["ACTION_KEYS", "Outcome", "PlayError", "act", "checked", "close", "close_match", "touch"]


# --------------------------------------------------------------------------- starting


def start_match(room: Any, seats: list[Any]) -> Match:
    """Deal round 1 for a room that starts now; call inside the room's transaction."""
    game = GAMES[room.game]
    # A room arranged with a fixed deal (a duplicate round, the daily challenge) is dealt from it
    # (its maker committed to it); any other from the first of its committed seeds.
    secret = "" if room.deal_seed is not None else fairness.new_secret()
    seed = room.deal_seed if room.deal_seed is not None else fairness.first_seed(secret)
    state = game.new_match(len(seats), room.options, seed)
    # A deal the rules end at once (L14+: every 1 under a stack top) is a round scored already.
    scored = game.progress(state).rounds_scored > 0
    players = [
        store.NewPlayer(
            seat=seat.index,
            user=seat.user,
            # A bot's stored name is the same for every reader (pages word it: tables.words).
            name=seat.name if seat.user_id else words.stable_bot_name(seat.bot_level, seat.index),
            bot_level=seat.bot_level,
        )
        for seat in seats
    ]
    return store.create_match(
        room,
        seed,
        secret,
        players,
        number=game.progress(state).round,
        state=game.dump(state),
        scores=list(game.last_round_points(state)) if scored else None,
        starts_at=_countdown_end(),
        # This process owns it from the start (tables.live.owners).
        lease=owners.first_lease(),
    )


def _countdown_end() -> Any:
    return timezone.now() + timedelta(seconds=settings.TABLE_COUNTDOWN)


# --------------------------------------------------------------------------- the write path


def act(
    room_id: int,
    seat: int,
    action: Any,
    by_bot: bool = False,
    driver: str = "",
    check: Check | None = None,
    wants_view: bool = True,
    received: int | None = None,
) -> Outcome:
    """Apply `action` for `seat` in the room's match, or raise PlayError / IllegalAction.

    `check(table)` is the transport's authority check (tables.live.room.holder), run on the table
    before the rules: it raises when the caller no longer holds the seat.

    From a thread: the move is handed to the room in the server loop (tables.live.rooms.act)
    and this waits for its acknowledgement. Without a server loop it runs here, in a
    transaction on the locked match row. `wants_view`: a forwarded move brings the seat's
    view back (`Outcome.view`). `received`: when the request came in (tables.live.equalise.receipt).
    """
    action = checked(action)
    loop = _serving_loop()
    if loop is None:
        entry = rooms.act_inline(room_id, seat, action, by_bot, driver, check, received)
        return Outcome(current.copy_of(entry.table), entry.events, entry.version, seat)
    _not_in(loop)
    future = asyncio.run_coroutine_threadsafe(
        rooms.act(room_id, seat, action, by_bot, driver, check, wants_view, received), loop
    )
    outcome = _answer(future)
    if outcome.table is not None:  # the loop's own: this thread gets a copy
        outcome.table = current.copy_of(outcome.table)
    return outcome


class Waiting:
    """The loop's answers that threads wait for now (`abandon` ends them all at a stop), and
    whether it did: a thread that asks after that is answered at once, never after THREAD_WAIT.
    The live server's part (tables.server)."""

    def __init__(self) -> None:
        self.futures: set[concurrent.futures.Future[Any]] = set()
        self.abandoned = False


def _threads() -> Waiting:
    return server.current().part(Waiting)


def _serving_loop() -> asyncio.AbstractEventLoop | None:
    """The server loop to hand a move to, None where there is no server (act inline), or
    `unavailable` once this server stops: its loop is about to end, and a move written inline
    then would go behind the back of the room's next owner (and its push would wait for a
    loop that never runs again)."""
    if _threads().abandoned:
        raise _unavailable()
    return rooms.serving_loop()


def _answer[T](future: concurrent.futures.Future[T]) -> T:
    """The loop's answer, waited for at most THREAD_WAIT seconds: a loop that stopped (the
    server shuts down) must not keep a request thread, and with it the process, for ever."""
    threads = _threads()
    threads.futures.add(future)
    try:
        if threads.abandoned:  # the server stops: the loop may never run this
            raise concurrent.futures.CancelledError
        return future.result(timeout=settings.THREAD_WAIT)
    except (concurrent.futures.TimeoutError, concurrent.futures.CancelledError):
        future.cancel()
        raise _unavailable() from None
    finally:
        threads.futures.discard(future)


def _unavailable() -> PlayError:
    return PlayError(
        "unavailable",
        gettext_noop("The table did not answer in time; look at it again and retry."),
        503,
    )


def waiting() -> int:
    """How many threads wait for the loop's answer now."""
    return len(_threads().futures)


def abandon() -> int:
    """The server stops: every thread still waiting for the loop gets `unavailable` now (its
    move was not made; the client retries on another process), and every one that asks from
    now on too. Returns how many waited."""
    threads = _threads()
    threads.abandoned = True
    waiting = list(threads.futures)
    for future in waiting:
        future.cancel()
    return len(waiting)


def checked(action: Any) -> dict[str, Any]:
    """`action` as the rules may see it (tables.live.stream), or PlayError bad_action (400)."""
    try:
        return stream.action(action, code="bad_action")
    except stream.WireError as refusal:
        raise PlayError("bad_action", refusal.message, 400) from None


def _not_in(loop: asyncio.AbstractEventLoop) -> None:
    try:
        running = asyncio.get_running_loop()
    except RuntimeError:
        return
    if running is loop:
        raise RuntimeError("tables.play: in the server loop, await tables.live.rooms.act/touch")


def touch(room_id: int, change: Callable[[Table], bool]) -> Table | None:
    """Run `change(table)` on the room's match (presence, stand-ins, countdown) and push it.

    `change` gets a table whose rows it may change and save; it returns True when it changed
    something players can see, and then the version grows. With a server loop it runs in the
    room, its moves waiting; called inside a transaction (a room operation), it runs once that
    commits, so that the writer never waits for the caller's lock.
    """
    loop = _serving_loop()
    if loop is None:
        return rooms.touch_inline(room_id, change)
    _not_in(loop)
    if transaction.get_connection().in_atomic_block:
        transaction.on_commit(partial(_touch_in, loop, room_id, change))
        return None
    return _touch_in(loop, room_id, change)


def _touch_in(
    loop: asyncio.AbstractEventLoop, room_id: int, change: Callable[[Table], bool]
) -> Table | None:
    return _answer(asyncio.run_coroutine_threadsafe(rooms.touch(room_id, change), loop))


def close_match(room_id: int, reason: str) -> None:
    """Stop the room's match where it stands (its room was closed): no winner, no more moves."""

    touch(room_id, partial(close, reason=reason))


def close(table: Table, reason: str) -> bool:
    """In a `touch`: stop the table's match where it stands, for `reason`; False if it is over.

    The layers above learn it in the same transaction (`signals.match_closed`): the lobby
    closes the room when the match ended here (nobody there: tables.presence.end_unwatched)."""
    match = table.match
    if match.status != Match.Status.PLAYING:
        return False
    match.status = Match.Status.CLOSED
    match.closed_reason = reason
    match.finished_at = timezone.now()
    store.save_match(match, "status", "closed_reason", "finished_at")
    signals.match_closed.send(sender=Match, match=match)
    return True
