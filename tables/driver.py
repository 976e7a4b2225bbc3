"""The bot driver: plays bot seats, ends countdowns and replaces leavers, inside Daphne.

Every process runs one driver (started with the first request it serves). A driver holds a
lease on each match it drives, renewed every second in the database; a match whose lease has
run out (its process died) is claimed by another driver within `DRIVER_LEASE` seconds, so
exactly one process drives a room's bots at a time. The lease holder is also the room's owner:
other processes forward their moves to it (tables.live.owners). Bots act through the same
write path as people (`tables.play.act`), from their seat's view only (G3), at their level's
pace times `settings.BOT_PACE` (0 in tests: full speed), divided by a paced table's
`bot_speed`, and never sooner than its pace after their last action (tables.pacing).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import logging
import random
import time
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import close_old_connections
from django.utils import timezone

from games.engine import IllegalAction
from tables import clocks, current, play, presence, server
from tables.live import owners, rooms, store
from tables.models import Match
from tables.pacing import bot_speed_of, pace_of

log = logging.getLogger(__name__)

RENEW_EVERY = 1.0  # seconds between lease renewals and leaver checks
# The share of a lease its holder uses: it stops stepping a room's bots this much before the
# lease's end, whatever the clocks of the processes that may take the room over say.
LEASE_SAFE = 0.8
# How often a bot with nothing to do looks again (an Allegra bot waiting for its turn): without
# it, a table of idle bots would be polled in a busy loop.
IDLE_LOOK = 0.25
# At full speed (BOT_PACE 0, tests) an idle bot still waits a moment: a table of bots waiting
# for a human would otherwise query the database in a tight loop and starve every other move.
IDLE_LOOK_AT_FULL_SPEED = 0.02


class Background(concurrent.futures.ThreadPoolExecutor):
    """One of the driver's own database threads, never the thread the sockets' database calls
    share (Channels' one sync thread), so that a takeover's burst of work (every room's first
    steps) does not hold up the pages and streams reconnecting at that very moment.

    The bot steps run in one ("bot-driver"); the lease renewals and the presence heartbeat in
    another ("liveness"): a renewal queued behind a busy table's steps came later than the
    lease's end on a loaded machine, and the other process took the room over while this one
    was alive, back and forth (CI: 28 drivers for one 12-seat match)."""

    def __init__(self, name: str) -> None:
        super().__init__(max_workers=1, thread_name_prefix=name)


class Running:
    """This process's bot driver, its task, the presence heartbeat's task and the driver's
    database thread: the live server's part (tables.server)."""

    def __init__(self) -> None:
        self.driver: Driver | None = None
        self.task: asyncio.Task | None = None
        self.heartbeat: asyncio.Task | None = None
        self.background = Background("bot-driver")
        self.liveness = Background("liveness")

    def shut(self) -> None:
        self.background.shutdown(wait=False)
        self.liveness.shutdown(wait=False)


def _running() -> Running:
    return server.current().part(Running)


async def in_background[T](fn: Callable[[], T], liveness: bool = False) -> T:
    """`fn()` in the driver's thread (the liveness thread for leases and heartbeats), with the
    connection hygiene Channels' calls have."""

    def run() -> T:
        close_old_connections()
        try:
            return fn()
        finally:
            close_old_connections()

    running = _running()
    thread = running.liveness if liveness else running.background
    return await asyncio.get_running_loop().run_in_executor(thread, run)


class Driver:
    """Drives the matches whose lease this process holds, one asyncio task per match."""

    def __init__(self) -> None:
        self.id = presence.PROCESS
        self.held: set[int] = set()
        self.tasks: dict[int, asyncio.Task] = {}
        self.stale: set[int] = set()  # held rooms with a dead process's presence (claim)
        self.stopping = False
        # Until when (this process's monotonic clock) the leases held are surely still ours: a
        # little before the end written with them. A renewal that comes late must not leave
        # two processes stepping one room's bots at once (CI: 28 drivers alternating in one
        # match after a late renewal); a step waits for the renewal instead.
        self.leased_until = float("-inf")
        # Set when another process hands rooms over: claim them now, not at the next renewal.
        self.wake = asyncio.Event()

    def claim_now(self, room_ids: list[int]) -> None:
        self.wake.set()

    async def run(self) -> None:
        """Claim and renew leases forever; start a task for each newly held match."""
        owners.when_released(self.claim_now)
        while not self.stopping:
            self.wake.clear()
            try:
                held = await in_background(self.claim, liveness=True)
            except Exception:  # the database may be away for a moment; never let the driver die
                log.exception("bot driver: claiming leases failed")
                held = set()
            self.held = held
            for room_id in held:
                task = self.tasks.get(room_id)
                if task is None or task.done():
                    self.tasks[room_id] = asyncio.create_task(self.drive(room_id))
            for room_id in list(self.tasks):
                if room_id not in held and self.tasks[room_id].done():
                    del self.tasks[room_id]
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.wake.wait(), RENEW_EVERY)

    async def stop(self, release: bool = True) -> list[int]:
        """Stop driving: every bot task ends, and the leases are released unless the caller
        hands them over itself (`release_all`). Returns the rooms it held."""
        self.stopping = True
        self.wake.set()
        for task in self.tasks.values():
            task.cancel()
        await asyncio.gather(*self.tasks.values(), return_exceptions=True)
        if release:
            return await in_background(self.release, liveness=True)
        return sorted(self.held)

    def claim(self) -> set[int]:
        """Renew this process's leases and take over playing matches whose lease ran out."""
        close_old_connections()
        started = _monotonic()
        now = timezone.now()
        until = now + timedelta(seconds=settings.DRIVER_LEASE)
        free, rows = store.claim_leases(self.id, now, until)
        self.leased_until = started + settings.DRIVER_LEASE * LEASE_SAFE
        # The leases this took, as they stood: since when nobody has owned each room.
        lost = {room_id: _lost_at(*lease) for room_id, lease in free.items()}
        # Every playing room's lease holder: the owner its moves go to (tables.live.owners).
        rooms.moved_threadsafe(owners.note(rows))
        held = {room_id for room_id, driver, _ in rows if driver == self.id}
        # Whose sockets' process died, for all held rooms at once (each room's bots look).
        self.stale = presence.stale_rooms(now) & held if held else set()
        taken = {room: lost[room] for room in held - self.held if lost.get(room) is not None}
        if taken:
            resumed = resume(taken, now)
            log.info("bot driver: took %d rooms over (%d resumed)", len(taken), len(resumed))
        return held

    def release(self) -> list[int]:
        """Give up every lease this process holds; return their rooms."""
        return release_all(self.id, hand_over=False)

    async def drive(self, room_id: int) -> None:
        """Play one match's bots and timers while this process holds its lease."""
        seed = await in_background(lambda: bot_seed_of(room_id))
        rng = random.Random(seed) if seed is not None else None
        bots = MatchBots(room_id, rng=rng, driver=self.id, stale=lambda: room_id in self.stale)
        while room_id in self.held and not self.stopping:
            if _monotonic() >= self.leased_until:  # the renewal is late: step on once it came
                await asyncio.sleep(0.05)
                continue
            try:
                wait = await in_background(bots.step)
            except Exception:
                log.exception("bot driver: room %s failed a step", room_id)
                wait = 1.0
            if wait is None:
                return  # the match is over
            await asyncio.sleep(wait)


def bot_seed_of(room_id: int) -> int | None:
    """The fixed seed of a match's bots (the daily challenge's), None for fresh randomness."""
    return store.bot_seed_of(room_id)


def release_all(process: str, hand_over: bool = True) -> list[int]:
    """Give up every lease `process` holds; return their rooms. `hand_over`: a graceful stop,
    whose moment the next owner reads to charge nobody for the pause (`resume`)."""
    return store.release_leases(process, timezone.now() if hand_over else None)


def _lost_at(driver: str, until: datetime | None, paused_at: datetime | None) -> datetime | None:
    """Since when a room whose lease is free has had no owner (None: it never had one).

    A graceful stop says when it handed the room over; a process that died renewed its lease
    last `DRIVER_LEASE` seconds before the lease's end.
    """
    if paused_at is not None:
        return paused_at
    if driver and until is not None:
        return until - timedelta(seconds=settings.DRIVER_LEASE)
    return None


def resume(taken: dict[int, datetime | None], now: datetime) -> list[int]:
    """The rooms in `taken` had no owner from their moment there until `now`: that time is
    the server's, not a player's. An away player's grace and a countdown go on where they
    stood (tables.clocks gives a running decision clock its whole time again from the
    takeover). A few statements per room, in the claim's thread: no room is loaded for it
    (a room this process held for one is rebuilt anyway, tables.live.owners.note); a room
    that changed gets a new version, so that nobody serves it from memory. Returns them."""
    gaps = {
        room_id: lost_at
        for room_id, lost_at in taken.items()
        if lost_at is not None and lost_at < now
    }
    return store.shift_for_pause(gaps, now)


class MatchBots:
    """One match's bots: each bot seat chooses from its view, waits its delay, then acts."""

    def __init__(
        self,
        room_id: int,
        rng: random.Random | None = None,
        driver: str = "",
        stale: Callable[[], bool] | None = None,
    ) -> None:
        self.room_id = room_id
        self.driver = driver
        self.stale = stale  # whether the room has a dead process's presence (None: read it)
        self.rng = rng or random.Random()
        self.due: dict[int, float] = {}  # seat -> monotonic time of its next action
        self.pending: dict[int, dict[str, Any] | None] = {}
        # seat -> the version its pending action was chosen at, and the kinds of action it had
        self.chosen_at: dict[int, tuple[int, frozenset[str]]] = {}
        self.released: int | None = None  # the round whose countdown end was pushed
        # seat -> monotonic time its last action was acknowledged: a paced table's bots keep
        # to its pace here (tables.pacing), so that this thread never waits in the room.
        self.acted_at: dict[int, float] = {}
        self.resumed = False  # whether acted_at went on from the log (the first look)
        self.next_check = 0.0
        self.unwatched_since: float | None = None  # monotonic: since no socket here listens
        # The decision clocks (a timed Allegra table; Ligretto's idle rounds): from now, the
        # moment this process took the room, downtime before it is never a player's.
        self.clock = clocks.Keeper(
            room_id, driver, timezone.now(), self.rng, touch=play.touch, act=play.act, rows=store
        )

    def _table(self) -> current.Table | None:
        # The owner's actor holds the table in memory (the lease holder is the room's owner):
        # a room's bots, countdown and leavers are looked at without reading the database.
        return rooms.live_table(self.room_id) or rooms.read(self.room_id)

    def step(self) -> float | None:
        """Do whatever is due now; return seconds until the next thing is due (None: done)."""
        close_old_connections()
        now = _monotonic()
        table = self._table()
        if table is None or table.match.status == Match.Status.FINISHED:
            return None
        if now >= self.next_check:
            self.next_check = now + RENEW_EVERY
            stale = self.stale() if self.stale is not None else None
            if presence.replace_absent(self.room_id, table=table, stale=stale) is not None:
                table = self._table()  # the room took its turn: read again
                if table is None:
                    return None
            if self._unwatched(now) and presence.end_unwatched(self.room_id, table):
                return None  # nobody was there: the match is over, abandoned
        starts_at = table.match.starts_at
        if starts_at is not None and table.counting_down():
            left = (starts_at - timezone.now()).total_seconds()
            return max(left, 0.0) + 0.001
        round_no = table.progress.round
        if self.released != round_no:
            self.released = round_no
            # The countdown is over: everyone's page must say so (the version grows).
            play.touch(self.room_id, lambda t: t.match.starts_at is not None)
            table = self._table()
            if table is None:
                return None
        table = self.clock.tick(table, self._table)
        if table is None or table.match.status == Match.Status.FINISHED:
            return None
        options = table.match.options
        # The bots' delays: their level's, times the site's pace, slower at a paced table.
        pace = settings.BOT_PACE / bot_speed_of(options)
        gap = pace_of(options)  # a paced table: each bot's plays this far apart too
        bots = [p for p in table.players if p.is_bot]
        if gap and not self.resumed:
            self._resume(table.match.pk, gap)
        for p in bots:
            self.due.setdefault(p.seat, now)
        for seat in list(self.due):
            if not any(p.seat == seat for p in bots):
                del self.due[seat]  # a human took his seat back
                self.pending.pop(seat, None)
                self.chosen_at.pop(seat, None)
        acted = False
        for p in bots:
            if self.due[p.seat] > now:
                continue
            action = self.pending.pop(p.seat, None)
            level = p.bot_level or "normal"
            version, kinds = self.chosen_at.get(p.seat, (-1, frozenset()))
            if action is None and version == table.version:
                # Nothing to do, and nothing changed since it looked: no need to look again.
                self.due[p.seat] = now + (IDLE_LOOK if pace > 0 else IDLE_LOOK_AT_FULL_SPEED)
                continue
            if action is not None and version != table.version:
                # Something new may be done since the bot chose (an Allegra knock it may
                # answer): it looks again, as a person would, and takes its time again.
                view = table.view(p.seat)
                if _kinds(view) != kinds:
                    action, delay = table.game.bot_choose(view, level, self.rng)
                    self.pending[p.seat] = action
                    self.chosen_at[p.seat] = (table.version, _kinds(view))
                    self.due[p.seat] = self._paced(p.seat, _monotonic() + delay * pace, gap)
                    continue
            if action is not None:
                try:
                    play.act(self.room_id, p.seat, action, by_bot=True, driver=self.driver)
                    acted = True
                    self.acted_at[p.seat] = _monotonic()
                except IllegalAction:
                    pass  # too slow, or the round ended: the bot looks again
                table = self._table()
                if table is None or table.match.status == Match.Status.FINISHED:
                    return None
            view = table.view(p.seat)
            action, delay = table.game.bot_choose(view, level, self.rng)
            self.pending[p.seat] = action
            self.chosen_at[p.seat] = (table.version, _kinds(view))
            idle = 0.0
            if action is None:
                idle = IDLE_LOOK if pace > 0 else IDLE_LOOK_AT_FULL_SPEED
            self.due[p.seat] = self._paced(p.seat, _monotonic() + delay * pace + idle, gap)
        if not self.due:
            return min(RENEW_EVERY, max(self.next_check - _monotonic(), 0.01))
        soonest = min(self.due.values())
        wait = max(soonest - _monotonic(), 0.0)
        if acted and pace == 0:
            return 0.0
        return min(wait, max(self.next_check - _monotonic(), 0.0) + 0.001)

    def _unwatched(self, now: float) -> bool:
        """Whether no socket of this process (the room's owner, where a room's sockets go)
        has listened to the room for the away grace, as this driver saw it (a takeover
        starts counting again). Never, where the site keeps tables nobody watches
        (`END_UNWATCHED` off)."""
        if not settings.END_UNWATCHED or rooms.watched(self.room_id):
            self.unwatched_since = None
            return False
        if self.unwatched_since is None:
            self.unwatched_since = now
        return now - self.unwatched_since >= settings.LEAVER_GRACE

    def _resume(self, match_id: int, gap: float) -> None:
        """Go on from the bots' last actions as the log has them: a driver that took the room
        over keeps its bots to the pace itself too, rather than waiting in the room."""
        self.resumed = True
        ago = time.time() - _monotonic()  # the log's wall clock, on this monotonic one
        for seat, at in store.last_plays(match_id, gap).items():
            self.acted_at[seat] = max(self.acted_at.get(seat, at - ago), at - ago)

    def _paced(self, seat: int, due: float, gap: float) -> float:
        """`due`, or later: no sooner than `gap` seconds after the seat's last action."""
        if gap and seat in self.acted_at:
            return max(due, self.acted_at[seat] + gap)
        return due


def _kinds(view: dict[str, Any]) -> frozenset[str]:
    return frozenset(a["type"] for a in view.get("legal", ()))


def _monotonic() -> float:
    return time.monotonic()


# --------------------------------------------------------------------------- starting it


async def stop(release: bool = True) -> list[int]:
    """Stop this process's driver, if it runs; return the rooms it held (their leases given
    up unless `release` is False: the caller hands them over, `release_all`)."""
    running = _running()
    driver, task = running.driver, running.task
    if driver is None or task is None or task.done():
        return []
    held = await driver.stop(release)
    task.cancel()
    return held


async def _heartbeat() -> None:
    """Renew this process's presence every second, driver or not (tables.presence.sweep)."""
    while True:
        try:
            await in_background(presence.heartbeat, liveness=True)
        except Exception:
            log.exception("presence heartbeat failed")
        await asyncio.sleep(RENEW_EVERY)


def ensure_started() -> None:
    """Start this process's driver in the running loop, once (a new loop gets a new one)."""
    loop = asyncio.get_running_loop()
    rooms.bind(loop)  # the live rooms and their pushes live in the server's loop
    if owners.reaches_others():
        owners.ensure_serving()  # moves forwarded here by other processes
    state = owners.here()
    if not settings.BOT_DRIVER or state.leaving:
        return  # no driver, or this process is stopping: it takes no room any more
    state.drives_here = True  # the matches started here are leased here from the start
    running = _running()
    beat = running.heartbeat
    if beat is None or beat.done() or beat.get_loop() is not loop:
        running.heartbeat = loop.create_task(_heartbeat())
    task = running.task
    if task is not None and not task.done() and task.get_loop() is loop:
        return
    running.driver = Driver()
    running.task = loop.create_task(running.driver.run())


class StartDriver:
    """ASGI wrapper: the first connection a process serves starts its bot driver and sender.

    A plain call that hands back the inner application's coroutine (called in the server's
    loop, as an ASGI application is), so that it is not one more frame every message of
    every connection resumes through."""

    _asgi_single_callable = True  # one call with (scope, receive, send), as async ones are

    def __init__(self, app: Any) -> None:
        self.app = app

    def __call__(self, scope: dict, receive: Any, send: Any) -> Any:
        if scope["type"] in ("http", "websocket"):
            ensure_started()
        return self.app(scope, receive, send)
