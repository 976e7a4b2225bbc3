"""The live rooms of this process: the registry (get, build, drop), the one door to a room,
and the delivery of their changes (`Outbox`, `Relay`: at the end of this module).

Every move (browser socket, Board API, bots) comes through `act`: the room's owner is another
process (tables.live.owners) → forwarded there; else the room here applies it (`LiveRoom.apply`,
one move at a time), its entry goes to the loop's `Writer` (group commit through the store), and
once durable, `published` keeps its table for readers, draws what changed once
(tables.live.render) and hands it to the room's listeners in order (its outbox, below).
Presence, stand-ins, countdowns and closing go through `touch`, in the same order as the moves.

A room is built on its first move or socket and dropped when its match has ended or closed
(after LIVE_ROOM_GRACE seconds for late readers, once no socket of this process listens to it)
and when another process takes it over: nothing of a match stays in the process after that.

Without a server loop (management commands, plain tests) `act_inline` and `touch_inline` run
the same room code in the caller's thread, in a transaction on the locked match row.
"""

from __future__ import annotations

import asyncio
import collections
import contextvars
import logging
import secrets
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from functools import cached_property, partial
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.conf import settings
from django.db import close_old_connections, transaction

from games.engine import Action, Event, View
from tables import current, server
from tables.current import Table
from tables.errors import PlayError
from tables.live import owners, render, store
from tables.live.equalise import Equaliser, Turn, receipt
from tables.live.render import table_group
from tables.live.room import Check, Delivery, Entry, Holder, Listener, LiveRoom, unknown_room
from tables.live.store import DB, Writer, in_db_thread
from tables.models import Match
from tables.pacing import Pacer, pace_of

log = logging.getLogger(__name__)

# How long the reaction times rooms hand in are gathered before they are written together
# (tables.reaction: nothing waits for them; a stopping process waits for them, `settle`).
REACTIONS_GATHER = 1.0


@dataclass
class Outcome:
    """What an accepted action did: the engine's events and the version it made.

    `table` is the table after it when it was applied in this process; a move forwarded to
    the room's owner has no table here, only the seat's view if it was asked.
    """

    table: Table | None
    events: list[Event]
    version: int = 0
    seat: int | None = None
    seen: View | None = None  # the seat's view, from the owner

    def view(self, seat: int | None) -> View:
        """`seat`'s view of the table right after the action."""
        if self.table is not None:
            return self.table.view(seat)
        if self.seen is None or seat != self.seat:
            raise ValueError("the owner sent no view for this seat (ask for it: wants_view)")
        return self.seen


# A room as a process builds it: its table, and when each seat last played (a paced table's).
Built = tuple[Table, dict[int, float]]


class Rooms:
    """The rooms of one server loop, with its writer and its outbox."""

    def __init__(self, loop: asyncio.AbstractEventLoop | None, alone: bool | None = None) -> None:
        self.loop = loop
        # Whether no other process can hear this one (tables.server.alone, asked once: when
        # the rooms are bound to the server's loop, else at the first change): then no move is
        # forwarded, no change is published, and a room whose listeners here are all streams
        # draws no HTML.
        self._alone = alone
        self.rooms: dict[int, LiveRoom] = {}
        # The words the rooms' parts are drawn in, per language (render.Said): every room's.
        self.words: dict[str, render.Said] = {}
        self.building: dict[int, asyncio.Future[Built | None]] = {}
        self.saving: set[asyncio.Task[object]] = set()  # reaction times being written
        # The reaction times handed in and not written yet, per game, and the one task that
        # writes them (none while there are none).
        self.reactions: dict[str, dict[int, list[int]]] = {}
        self.reactions_writer: asyncio.Task[None] | None = None
        self.reactions_due: asyncio.TimerHandle | None = None  # when they are written
        self.writer = Writer(self.store, self.published) if loop is not None else None
        self.outbox = Outbox(loop, self.alone) if loop is not None else None
        # What other processes publish of the rooms listened to here: one subscriber.
        self.relay = (
            Relay(loop, self.outbox, self.listeners_of, self.last_change)
            if loop is not None and self.outbox is not None
            else None
        )

    def shut(self) -> None:
        """Close the store's own connections, if it made any, and end the relay's task
        (tables.server.LiveServer.shut)."""
        if "store" in self.__dict__:
            self.store.shut()
        if self.relay is not None:
            self.relay.stop()

    def listeners_of(self, room_id: int) -> list[Listener]:
        """The room's listeners here now (none: no room)."""
        room = self.rooms.get(room_id)
        return list(room.listeners) if room is not None else []

    def last_change(self, room_id: int) -> Delivery | None:
        """The room's last change made here, while the room is held here (else None)."""
        room = self.rooms.get(room_id)
        return room.recent[-1] if room is not None and room.recent else None

    async def listen(self, room_id: int, listener: Listener) -> None:
        """Deliver every change of the room to `listener` from now on: this process's, and
        (once the relay hears the room's group) the other processes'."""
        self.room(room_id).listeners.add(listener)
        if self.relay is not None:
            await self.relay.join(room_id)

    def unlisten(self, room_id: int, listener: Listener) -> None:
        room = self.rooms.get(room_id)
        if room is None:
            return
        room.listeners.discard(listener)
        if room.listeners:
            return
        if self.relay is not None:
            self.relay.leave(room_id)
        if room.table is None:
            self.rooms.pop(room_id, None)
        elif room.over:
            self.drop_later(room)

    @cached_property
    def store(self) -> store.Store:
        """The store the settings choose, made at first use (the database is known by then)."""
        return store.store()

    @property
    def alone(self) -> bool:
        if self._alone is None:
            self._alone = server.alone()
        return self._alone

    def get(self, room_id: int) -> LiveRoom | None:
        """The room's entry here, if it has one."""
        return self.rooms.get(room_id)

    def room(self, room_id: int) -> LiveRoom:
        """The room's entry here, made if it has none (its table is loaded on first use)."""
        room = self.rooms.get(room_id)
        if room is None:
            room = self.rooms.setdefault(room_id, LiveRoom(room_id))
            room.reaction.write = self.write_reactions  # its reaction times: to the store
            room.words = self.words
        return room

    def write_reactions(self, game: str, batch: dict[int, list[int]]) -> None:
        """A room's reaction times (tables.reaction), written by the store: in the rooms'
        database thread when a loop runs (nothing waits for them), else at once.

        With a loop, every room's samples of the next REACTIONS_GATHER seconds go in one
        write (one transaction a game): at 40 x 4 a room's tracker hands in a batch about
        every tenth of a second, each a transaction of its own before (docs/performance.md).
        """
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            store.write_reactions(game, batch)
            return
        if loop is not self.loop:  # rooms bound to no loop (a test's): this batch alone
            task = loop.create_task(in_db_thread(store.write_reactions, game, batch))
            self.saving.add(task)
            task.add_done_callback(self.saving.discard)
            return
        gathered = self.reactions.setdefault(game, {})
        for user_id, times in batch.items():
            gathered.setdefault(user_id, []).extend(times)
        if self.reactions_due is None and self.reactions_writer is None:
            self.reactions_due = loop.call_later(REACTIONS_GATHER, self.write_reactions_now)

    def write_reactions_now(self) -> None:
        """Write the reaction times gathered so far now (in the loop; a stopping process's
        `settle`), after any write of them under way."""
        if self.reactions_due is not None:
            self.reactions_due.cancel()
            self.reactions_due = None
        if self.reactions_writer is not None or not self.reactions or self.loop is None:
            return  # the write under way takes what came meanwhile
        task = self.loop.create_task(self._write_gathered())
        self.reactions_writer = task
        self.saving.add(task)  # a stopping process waits for it (settle)
        task.add_done_callback(self.saving.discard)

    async def _write_gathered(self) -> None:
        try:
            while self.reactions:
                gathered, self.reactions = self.reactions, {}
                await in_db_thread(_write_reactions, gathered)
        finally:
            self.reactions_writer = None

    def published(self, entries: list[Entry]) -> None:
        """The entries are durable: keep each table for readers and push it, in order."""
        for entry in entries:
            if not entry.refused:
                self.changed(entry.table, entry.events)

    def changed(self, table: Table, events: list[Event]) -> None:
        """`table` is durable: keep it for readers and push what changed, in order.

        A room that is not here (dropped meanwhile, or a move without a loop) gets a room for
        this push alone: the other processes still hear of it, and nothing stays.
        """
        room_id = table.match.room_id
        serving = self.serving()
        # Without a loop a room is kept here too (its parts diffed), until its match is over.
        room = self.rooms.get(room_id) if serving else self.room(room_id)
        room = room or LiveRoom(room_id, words=self.words)
        room.remember(table)
        delivery = render.change(room, table, room.news_for(events), self.alone)
        room.pushed_change(delivery)
        listeners = list(room.listeners)
        if serving and self.outbox is not None:
            self.outbox.publish(delivery, listeners)
        else:
            send_inline(delivery, listeners)
        if room.over:
            self.drop_later(room)

    def serving(self) -> bool:
        """Whether the loop these rooms were bound to runs (else: no server here)."""
        loop = self.loop
        return loop is not None and not loop.is_closed() and loop.is_running()

    def drop_later(self, room: LiveRoom) -> None:
        """Drop a room whose match is over once the grace for late readers has passed."""
        if self.loop is None or not self.serving():
            self.drop(room.room_id)  # no loop, no late readers: at once
            return
        self.loop.call_soon_threadsafe(
            self.loop.call_later, settings.LIVE_ROOM_GRACE, self.drop_if_over, room.room_id
        )

    def drop_if_over(self, room_id: int) -> None:
        room = self.rooms.get(room_id)
        if room is None or room.over_since is None:
            return
        if time.monotonic() - room.over_since >= settings.LIVE_ROOM_GRACE - 0.01:
            self.drop(room_id)

    def drop(self, room_id: int) -> None:
        """Give back what the room holds; its entry goes too once no socket here listens."""
        room = self.rooms.get(room_id)
        if room is None:
            return
        if room.reaction.pending:  # the samples short of a batch: written, not lost with it
            room.reaction.save()
        room.release()
        if not room.listeners:
            self.rooms.pop(room_id, None)

    async def loaded(self, room_id: int) -> tuple[LiveRoom, Table]:
        """The room and its table, built from the database the first time (or when stale)."""
        room = self.room(room_id)
        while room.table is None or room.stale:
            building = self.building.get(room_id)
            if building is None:
                building = asyncio.get_running_loop().run_in_executor(DB, _build, room_id)
                self.building[room_id] = building
                try:
                    built = await building
                finally:
                    self.building.pop(room_id, None)
                if built is None:
                    raise unknown_room()
                table, played = built
                room = self.room(room_id)  # dropped meanwhile: a new entry
                room.loaded(table)
                # A paced table's pacer goes on from the log, not afresh: a process that took
                # the room over lets no play through sooner than its pace (tables.pacing).
                room.pacer.resume(played)
                if room.over:  # built for a late touch or read: it goes again after the grace
                    self.drop_later(room)
            else:
                await asyncio.shield(building)
                # A build that was already done returns at once, before its builder has
                # resumed to keep its table: yield, or this loop spins and the builder (and the
                # whole server loop with it) never runs again.
                await asyncio.sleep(0)
                room = self.room(room_id)
        assert room.table is not None
        return room, room.table

    # ----------------------------------------------------------------- moves and touches

    async def act(
        self,
        room_id: int,
        seat: int,
        action: Action,
        by_bot: bool = False,
        driver: str = "",
        check: Check | None = None,
        wants_view: bool = True,
        received: int | None = None,
        rtt: int | None = None,
    ) -> Outcome:
        """Apply `action` (checked: tables.live.stream) for `seat`; answer once durable, or raise.

        `received`: when the transport got it (tables.live.equalise.receipt), kept for races;
        `rtt`: its socket's measured round trip (µs), for an equalised table's order.

        Here or at the room's owner: the one place that decides (tables.live.owners; never
        asked when no other process can hear this one). A check that cannot travel as data is
        run here, on this process's table (the fence on the match's version keeps that
        correct): never dropped.
        """
        owner = None if self.alone else await owners.elsewhere_now(room_id)
        if owner is not None and (check is None or isinstance(check, Holder)):
            try:
                answer = await owners.forward(
                    owner, room_id, seat, action, by_bot, driver, check, view=wants_view
                )
            except owners.Moved:
                # It let the room go without applying the move (it stopped): nobody is known to
                # own it now, so it is applied here (the fence keeps that right if one just did).
                owners.forget(room_id)
            else:
                return Outcome(None, answer.events, answer.version, seat, answer.view)
        entry = await self.apply_here(
            room_id, seat, action, by_bot, driver or owners.PROCESS, check, received, rtt
        )
        return Outcome(entry.table, entry.events, entry.version, seat)

    async def apply_here(
        self,
        room_id: int,
        seat: int,
        action: Action,
        by_bot: bool,
        driver: str,
        check: Check | None,
        received: int | None = None,
        rtt: int | None = None,
    ) -> Entry:
        """Apply one move in its room here; return its entry once it is durable.

        On an equalised table (tables.live.equalise) the move first waits for its turn."""
        assert self.writer is not None
        if received is None:
            received = receipt()
        held: list[tuple[Equaliser, Turn]] = []  # its turn, once it has one
        queued: list[Pacer] = []  # the pacer whose one waiting place it holds (tables.pacing)
        try:
            return await self._apply_here(
                room_id, seat, action, by_bot, driver, check, received, rtt, held, queued
            )
        finally:
            for equaliser, turn in held:
                equaliser.done(turn)  # refused, failed or cancelled: the next one goes
            for pacer in queued:
                pacer.unqueue(seat)  # refused, failed or cancelled: the seat's next may wait

    async def _apply_here(
        self,
        room_id: int,
        seat: int,
        action: Action,
        by_bot: bool,
        driver: str,
        check: Check | None,
        received: int,
        rtt: int | None,
        held: list[tuple[Equaliser, Turn]],
        queued: list[Pacer],
    ) -> Entry:
        assert self.writer is not None
        while True:
            room, table = await self.loaded(room_id)
            pace = room.pace
            if not held and room.equalise:
                # Held for the window, then in order of estimated sending time: the table is
                # loaded again after the wait (it may have changed meanwhile).
                equaliser = room.equaliser
                held.append((equaliser, await equaliser.wait_turn(received, rtt)))
                continue
            async with room.lock:
                if room.table is not table or room.stale:
                    continue  # rebuilt while this waited for the lock: apply it to the new one
                # Unpaced: no pacer. Paced: a queue of one a seat (tables.pacing).
                early = room.pacer.turn(seat, pace, room.pacer in queued) if pace else 0.0
                if early <= 0:
                    for pacer in queued:
                        pacer.unqueue(seat)  # its turn: the seat's next play may wait
                    queued.clear()
                    sent = held[0][1][0] if held else None
                    entry = room.apply(table, seat, action, by_bot, driver, check, received, sent)
                    for equaliser, turn in held:
                        equaliser.done(turn)  # applied: the next held play may go
                    entry.future = asyncio.get_running_loop().create_future()
                    self.writer.submit(entry)
                    room.reaction.note(table, entry)  # reaction times (tables.reaction)
                    if entry.refusal is None:
                        if pace:
                            room.pacer.applied(seat)
                        # While its row is written: what the push will send (it only sends).
                        try:
                            render.prepare(room, entry.table, self.alone)
                        except Exception:  # the push encodes it after the commit instead
                            log.exception("preparing the push of a move failed")
            if early > 0:
                for equaliser, turn in held:
                    equaliser.done(turn)  # an equalised turn is not kept through a pace wait
                # A paced table: the play waits for its turn (tables.pacing), then is applied.
                # It keeps the seat's waiting place until then, its wait for the room's lock
                # included: a later play of the seat cannot take the place meanwhile.
                if room.pacer not in queued:  # its first wait, or the room was built anew
                    for pacer in queued:
                        pacer.unqueue(seat)
                    queued[:] = [room.pacer.queue(seat)]
                await asyncio.sleep(early)
                continue
            assert entry.future is not None  # set under the lock with the apply
            durable = False
            try:
                durable = await entry.future
            finally:
                if pace and entry.refusal is None:
                    # From its durable moment (the log's clock); a failed write frees the seat.
                    room.pacer.settled(seat, durable)
            if entry.refusal is not None:
                raise entry.refusal  # a race lost, and logged (L12)
            if durable:
                if not by_bot and _marked_away(entry.table, seat):
                    await self.touch(room_id, partial(_back, seat))
                return entry

    async def touch(self, room_id: int, change: Callable[[Table], bool]) -> Table | None:
        """Run `change(table)` on the room's table in the database thread, moves waiting."""
        try:
            room, _ = await self.loaded(room_id)
        except PlayError:
            return None
        async with room.lock:
            last = room.last
            if last is not None and last.future is not None:
                await asyncio.wait([last.future])  # everything before it is written first
            if room.stale or room.table is None:
                room, _ = await self.loaded(room_id)
            assert room.table is not None
            table, changed = await in_db_thread(store.touch, room.table, change)
            room.table = table
            if changed:
                self.changed(table, [])
        return table


def _build(room_id: int) -> Built | None:
    """The room's table from the database (the database thread), and its seats' last plays
    within its pace; None before the start."""
    table = store.load(room_id)
    if table is None:
        return None
    return table, store.last_plays(table.match.pk, pace_of(table.match.options))


def here() -> Rooms:
    """This process's rooms (of the server loop, once one is bound): the live server's."""
    return server.current().part(Rooms)


def bind(loop: asyncio.AbstractEventLoop) -> Rooms:
    """Serve the rooms in `loop` (the server's); cheap when already bound."""
    live = server.current()
    rooms = live.part(Rooms)
    if rooms.loop is loop:
        return rooms
    # Rooms of a loop that ended (tests) held nothing that was not written or refused.
    rooms.shut()
    rooms = Rooms(loop, server.alone())
    live.replace(rooms)
    return rooms


def serving_loop() -> asyncio.AbstractEventLoop | None:
    """The server loop the rooms live in, or None (no server here: act inline)."""
    rooms = here()
    return rooms.loop if rooms.serving() else None


def get(room_id: int) -> LiveRoom | None:
    return here().rooms.get(room_id)


def count() -> int:
    """How many rooms this process holds (a finished match's is gone after the grace)."""
    return len(here().rooms)


# --------------------------------------------------------------------------- listening


def unlisten(room_id: int, listener: Listener) -> None:
    here().unlisten(room_id, listener)


def watched(room_id: int) -> bool:
    """Whether a socket of this process listens to the room (a player's or a spectator's).

    Read from the driver's thread: a glance at a set the loop keeps, never relied on to stay."""
    room = here().rooms.get(room_id)
    return room is not None and bool(room.listeners)


# --------------------------------------------------------------------------- reading


def read(room_id: int) -> Table | None:
    """The room's match as it stands now (any thread), or None if the room never started.

    The newest durable table the room here holds when the match row is at its version (one
    consistent moment: no torn read), else rebuilt from the database (tables.live.store.recover).
    """
    match = store.match_row(room_id)
    if match is None:
        return None
    return from_row(match)


def version_of(room_id: int) -> int | None:
    """The room's match version now, from its row (any thread; None: it never started)."""
    return store.version_of(room_id)


def from_row(match: Match) -> Table:
    """The table of `match` (a row just read), from the room here if current, else recovered."""
    room = here().rooms.get(match.room_id)
    known = room.durable if room is not None else None
    key = current.cache_key(match)
    same = known is not None and current.cache_key(known.match) == key
    if known is not None and same and known.version == match.version:
        return current.copy_of(known)
    table = store.recover(match)
    if room is not None and room.listeners:
        room.remember(current.copy_of(table))  # durable: the room's next reader reuses it
    return table


def durable(room_id: int, version: int) -> Table | None:
    """The room's table at exactly `version` from this process's memory, or None (load it)."""
    room = here().rooms.get(room_id)
    known = room.durable if room is not None else None
    if known is None or known.version != version:
        return None
    return current.copy_of(known)


def newest(room_id: int) -> Table | None:
    """The newest durable table the room here holds (read it only), or None."""
    room = here().rooms.get(room_id)
    return room.durable if room is not None else None


def live_table(room_id: int) -> Table | None:
    """The room's table as it is applied here now, or None (not here).

    It may be a move or two ahead of the database (rows being written): what the room's next
    move is checked against. Any thread may read it; only the room replaces it.
    """
    room = here().rooms.get(room_id)
    if room is None or room.stale:
        return None
    return room.table


async def table_now(room_id: int) -> Table | None:
    """The room's table as it stands now, in the loop (read it only), or None before the start.

    From the room here when this process owns it; from the database when another does (this
    process's room would not see that one's moves).
    """
    rooms = bind(asyncio.get_running_loop())
    if owners.elsewhere(room_id) is not None:
        return await in_db_thread(_read, room_id)
    try:
        _, table = await rooms.loaded(room_id)
    except PlayError:
        return None
    return table


def _read(room_id: int) -> Table | None:
    close_old_connections()
    return read(room_id)


# --------------------------------------------------------------------------- moves


async def act(
    room_id: int,
    seat: int,
    action: Action,
    by_bot: bool = False,
    driver: str = "",
    check: Check | None = None,
    wants_view: bool = True,
    received: int | None = None,
    rtt: int | None = None,
) -> Outcome:
    """`Rooms.act` in this process's rooms of the running loop (a socket holds them itself)."""
    rooms = bind(asyncio.get_running_loop())
    return await rooms.act(room_id, seat, action, by_bot, driver, check, wants_view, received, rtt)


async def apply_here(
    room_id: int, seat: int, action: Action, by_bot: bool, driver: str, check: Check | None
) -> Entry:
    """`Rooms.apply_here` in the running loop's rooms (a forwarded move: tables.live.owners)."""
    rooms = bind(asyncio.get_running_loop())
    return await rooms.apply_here(room_id, seat, action, by_bot, driver, check)


async def touch(room_id: int, change: Callable[[Table], bool]) -> Table | None:
    """`Rooms.touch` in the running loop's rooms."""
    return await bind(asyncio.get_running_loop()).touch(room_id, change)


def _marked_away(table: Table, seat: int) -> bool:
    """Whether `seat`'s player, here with a socket, is marked away (he sat a round out:
    tables.clocks): his own move says he is back."""
    # `is_bot` last: a plain move of a seat not marked away asks the rows nothing more.
    return any(
        p.seat == seat and p.away_since is not None and p.connections > 0 and not p.is_bot
        for p in table.players
    )


def _back(seat: int, table: Table) -> bool:
    for player in table.players:
        if player.seat == seat and player.away_since is not None and not player.is_bot:
            player.away_since = None
            store.save_player(player, "away_since")
            return True
    return False


def _write_reactions(gathered: dict[str, dict[int, list[int]]]) -> None:
    """Several rooms' reaction times, one game at a time (in the rooms' database thread)."""
    for game, batch in gathered.items():
        store.write_reactions(game, batch)


async def settle(timeout: float) -> bool:
    """Wait until every move submitted here is durable and pushed, and every reaction time
    noted here written (a stopping process); False if that took longer than `timeout` seconds."""
    rooms = here()
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    flushed = False
    while loop.time() < deadline:
        writer, out = rooms.writer, rooms.outbox
        busy = writer is not None and bool(writer.pending or writer.writing or writer.waiting)
        busy = busy or (out is not None and out.busy())
        if not busy and not flushed:
            # Every move is written: the reaction times short of a batch go too (tables.reaction).
            flushed = True
            for room in list(rooms.rooms.values()):
                if room.reaction.pending:
                    room.reaction.save()
        if not busy:
            rooms.write_reactions_now()  # those gathered: now, not at the end of the gathering
        busy = busy or bool(rooms.saving)
        if not busy and not rooms.building:
            return True
        await asyncio.sleep(0.01)
    return False


def moved(room_ids: list[int]) -> None:
    """These rooms' owner changed: give back what this process holds of them (in the loop)."""
    rooms = here()
    for room_id in room_ids:
        rooms.drop(room_id)


def moved_threadsafe(room_ids: list[int]) -> None:
    loop = serving_loop()
    if loop is not None and room_ids:
        loop.call_soon_threadsafe(moved, room_ids)


async def room_for(room_id: int) -> LiveRoom:
    """The room here with its table loaded (built from the database the first time)."""
    room, _ = await bind(asyncio.get_running_loop()).loaded(room_id)
    return room


def forget_all() -> None:
    """Forget every room's tables (as after another process wrote them all); listeners stay."""
    for room in list(here().rooms.values()):
        room.release()


def forget(room_id: int) -> None:
    """The database was changed behind the room's back (tests, operators): read it again."""
    room = here().rooms.get(room_id)
    if room is not None:
        room.release()


# --------------------------------------------------------------------------- without a loop


def act_inline(
    room_id: int,
    seat: int,
    action: Action,
    by_bot: bool,
    driver: str,
    check: Check | None = None,
    received: int | None = None,
) -> Entry:
    """The same move without a server loop: apply and write in the caller's transaction."""
    rooms = here()
    with transaction.atomic():
        match = store.match_row(room_id, lock=True)
        if match is None:
            raise unknown_room()
        table = from_row(match)
        entry = LiveRoom(room_id).apply(table, seat, action, by_bot, driver, check, received)
        rooms.store.write([entry])
        if entry.refusal is None:
            transaction.on_commit(lambda: rooms.published([entry]))
    if entry.refusal is not None:
        raise entry.refusal
    if not by_bot and _marked_away(entry.table, seat):
        touch_inline(room_id, partial(_back, seat))
    return entry


def touch_inline(room_id: int, change: Callable[[Table], bool]) -> Table | None:
    rooms = here()
    with transaction.atomic():
        match = store.match_row(room_id, lock=True)
        if match is None:
            return None
        table = current.copy_of(from_row(match))
        if change(table):
            store.bump_version(table)
            transaction.on_commit(lambda: rooms.changed(table, []))
    return table


# --------------------------------------------------------------------------- connections


async def close_connections() -> None:
    """Close the rooms' database connections (a test database is dropped after)."""
    from django.db import connections

    here().store.shut()
    await in_db_thread(connections.close_all)


def shut_sqlite() -> None:
    """Close the rooms' own SQLite connections and stop their checkpointers, from any thread
    once no loop uses them (a test database file is deleted after: a checkpointer left running
    would report a disk error every few milliseconds until the process ends)."""
    here().store.shut()


def rematch_opened(room_id: int, rematch_id: int, username: str) -> None:
    """Tell a finished table's sockets that someone opened its rematch (a live join link)."""
    notice(room_id, render.rematch_notice(room_id, rematch_id, username))


# --------------------------------------------------------------------------- delivery
#
# Deliveries of room changes: one ordered route to this process's listeners, one publish for
# the others, one relay for what the others publish, and the `Gate` every socket keeps its
# versions with.
#
# A change (tables.live.room.Delivery) reaches a listener of this process by `deliver` (awaited
# in the order of the commits) or, when nothing is queued before it and it has no seat's own
# part, by `deliver_now` in a plain call (a Board API stream writes its seat's text at once).
# When the channel layer reaches other processes (Redis) and another process listens to the
# room, each change is also published once to the room's group, its room and its seats' own parts
# with it, tagged with this process's origin. The publishes go out in order too, but after the
# sockets here, and a socket here never waits for one (`Outbox.publishing`). No socket is in a
# room's group: each process's `Relay` is, and hands what other processes published to the room's
# listeners here, once per process. The relays tell each other which rooms they hear (`LISTENING`),
# so that a room nobody hears elsewhere (with the proxy's room hash, nearly every room) costs no
# publish at all. Without a server loop (a management command, a plain test) a change is delivered,
# published and waited for.

# This process, as the changes it publishes to other processes name it.
ORIGIN = secrets.token_hex(8)
# Where every process's relay says which rooms it hears (`Relay`).
LISTENING = "tables.listening"
# A relay says again every REFRESH seconds which rooms it hears (a lost message is mended by the
# next one); what a process said is forgotten EXPIRE seconds after it last said it (it died).
REFRESH = 2.0
EXPIRE = 7.0


def from_here(event: dict[str, Any]) -> bool:
    """Whether a group message is a change this process already delivered to its sockets."""
    return event.get("origin") == ORIGIN


class Outbox:
    """The deliveries of one server loop, in the order they were published.

    One published in the loop while nothing is queued goes out at once (usually without
    waiting for anything: every socket's frame is written right away); the others, and those
    published from a thread, queue for one sender task, which ends when the queue is empty
    (no task outlives its deliveries). A delivery that had to wait for something keeps the
    ones after it waiting (`order`), so that they still go out in order.
    """

    def __init__(self, loop: asyncio.AbstractEventLoop, alone: bool = True) -> None:
        self.loop = loop
        self.alone = alone  # no other process hears this one: nothing is published
        self.queue: collections.deque[tuple[Delivery, list[Listener], bool]] = collections.deque()
        self.sender: asyncio.Task[None] | None = None
        self.order = asyncio.Lock()
        self.queued = 0  # deliveries not sent yet (one being sent included)
        self.at_once: set[asyncio.Task[None]] = set()
        # What the other processes are still to hear of, in order, and the one task that
        # publishes it (none while there is nothing to publish).
        self.unpublished: collections.deque[Delivery] = collections.deque()
        self.publishing: asyncio.Task[None] | None = None
        # The process's relay (it hands itself in): which rooms other processes hear. None:
        # every change is published.
        self.listening: Relay | None = None

    def publish(self, delivery: Delivery, listeners: list[Listener]) -> None:
        """Deliver `delivery` to `listeners` (and to the other processes), after those before."""
        try:
            here = asyncio.get_running_loop()
        except RuntimeError:
            here = None
        if here is self.loop:
            self._enqueue(delivery, listeners)
        else:
            self.loop.call_soon_threadsafe(self._enqueue, delivery, listeners)

    def relay(self, delivery: Delivery, listeners: list[Listener]) -> None:
        """Deliver a change another process made (`Relay`) to `listeners`, in the same order
        as this process's own; never published again (in the loop)."""
        self._enqueue(delivery, listeners, mine=False)

    def _enqueue(self, delivery: Delivery, listeners: list[Listener], mine: bool = True) -> None:
        if self.queued == 0 and not self.order.locked():
            listeners = _deliver_now(delivery, listeners)
            if not listeners:  # every socket here took it at once
                if mine:
                    self._publish(delivery)
                return
        self.queued += 1
        if self.queued == 1 and not self.order.locked():
            # Nothing before it: sent now, up to the first thing it must wait for (if any).
            # In a context of its own, as the sender's: not the one of whoever committed (a
            # thread inside asgiref's sync_to_async, whose marks would refuse the sockets'
            # database calls).
            task = asyncio.Task(
                self._send_in_order(delivery, listeners, mine),
                loop=self.loop,
                context=contextvars.Context(),
                eager_start=True,
            )
            if not task.done():
                self.at_once.add(task)
                task.add_done_callback(self.at_once.discard)
            return
        self.queue.append((delivery, listeners, mine))
        if self.sender is None:
            self.sender = self.loop.create_task(self._send_queued(), context=contextvars.Context())

    async def _send_queued(self) -> None:
        try:
            while self.queue:
                delivery, listeners, mine = self.queue.popleft()
                await self._send_in_order(delivery, listeners, mine)
        finally:
            self.sender = None

    async def _send_in_order(
        self, delivery: Delivery, listeners: list[Listener], mine: bool = True
    ) -> None:
        async with self.order:
            try:
                await deliver(delivery, listeners)
            finally:
                self.queued -= 1
                if mine:
                    self._publish(delivery)

    def _publish(self, delivery: Delivery, again: bool = False) -> None:
        """Publish `delivery` to the other processes after those before it, without making
        anything here wait for Redis; not at all when no other process hears its room
        (`Relay.needs`). `again`: a change published once more for a process that just
        started to listen (`Relay`), whatever was decided for it before."""
        if self.alone:
            return
        listening = self.listening
        if not again and listening is not None and not listening.needs(delivery):
            return
        self.unpublished.append(delivery)
        if self.publishing is None:
            self.publishing = self.loop.create_task(
                self._publish_queued(), context=contextvars.Context()
            )

    def publish_again(self, delivery: Delivery) -> None:
        """Publish a change made here once more (in the loop): a process that just said it
        hears its room may have missed it (`Relay`)."""
        self._publish(delivery, again=True)

    async def _publish_queued(self) -> None:
        try:
            while self.unpublished:
                await publish(self.unpublished.popleft())
        finally:
            self.publishing = None

    def busy(self) -> bool:
        """Whether a change is still to be delivered here or published to the others."""
        return bool(self.queued or self.at_once or self.publishing)


def _deliver_now(delivery: Delivery, listeners: list[Listener]) -> list[Listener]:
    """Hand `delivery` to the listeners that take it in a plain call; return the others."""
    rest = []
    for listener in listeners:
        try:
            if listener.deliver_now(delivery):
                continue
        except Exception:  # one broken socket must not keep the frame from the others
            log.exception("push to a socket failed")
            continue
        rest.append(listener)
    return rest


async def deliver(delivery: Delivery, listeners: list[Listener]) -> None:
    """Deliver to `listeners` here, in order; one that fails does not stop the others."""
    for listener in listeners:
        try:
            await listener.deliver(delivery)
        except Exception:  # one broken socket must not keep the frame from the others
            log.exception("push to a socket failed")


async def publish(delivery: Delivery) -> None:
    """Publish `delivery` to the room's group for the other processes: one message, with the
    seats' own parts (each socket there takes its seat's only, as here); never raises."""
    layer = get_channel_layer()
    if layer is None or server.alone():
        return
    seats = {str(seat): part for seat, part in delivery.private.items()}
    try:
        message = {**delivery.public, "room": delivery.room_id, "seats": seats, "origin": ORIGIN}
        await layer.group_send(table_group(delivery.room_id), message)
    except Exception:  # the others redraw from the next change (or on reconnect)
        log.exception("publishing a change failed")


async def send(delivery: Delivery, listeners: list[Listener]) -> None:
    """Deliver to `listeners` here, then publish to the other processes."""
    await deliver(delivery, listeners)
    await publish(delivery)


def send_inline(delivery: Delivery, listeners: list[Listener]) -> None:
    """Without a server loop (a management command, a plain test): deliver and wait."""
    async_to_sync(send)(delivery, listeners)


def notice(room_id: int, message: dict[str, Any]) -> None:
    """Send a note outside the versioned parts (a rematch was opened) to the room's group:
    every process's relay hands it to its sockets there (this one's too)."""
    layer = get_channel_layer()
    if layer is not None:
        async_to_sync(layer.group_send)(table_group(room_id), {**message, "room": room_id})


def remote(event: dict[str, Any], room_id: int) -> Delivery:
    """A change another process published (a group message), as a delivery here."""
    seats = event.get("seats") or {}
    return Delivery(room_id, event["version"], event, {int(s): part for s, part in seats.items()})


# --------------------------------------------------------------------------- the relay


class Relay:
    """This process's one subscriber to its rooms' groups: what other processes publish of a
    room (its changes, its notes) reaches this process once, not once per socket; and what
    tells this process's outbox whether any other process hears a room at all (`needs`).

    A room's group is joined when the room gets its first listener here (`join`, awaited
    before that socket draws its table, so that no change falls between the two) and left
    when its last one goes. A change comes in once per process: one made here (it came back
    from Redis) is dropped at once, one made elsewhere is handed to the room's listeners
    through the outbox, in order with this process's own; a note (a rematch was opened) goes
    to each listener's `table_notice`.

    Who hears which room: every relay is also in the `LISTENING` group, where it says which
    rooms it hears: one it joined (once its group is joined, before the socket draws), one it
    left, and all of them every REFRESH seconds and when it starts (asking the others for
    theirs, `ask`). The outbox publishes a change only while another process's relay said it
    hears the room: a set lookup per change, never a round trip to Redis.

    No change is lost by it: a change skipped before this process heard of a new listener
    elsewhere is never newer than the room's last change here, which is published again the
    moment it hears (`_heard`); the socket there shows it, or draws its whole table when
    something is missing (`Gate`). A change of a room this process does not hold (it could not
    be published again) is always published. Joins, leaves and what is said of them go one at
    a time (`membership`), so the others hear them in the order they happened.
    """

    def __init__(
        self,
        loop: asyncio.AbstractEventLoop,
        outbox: Outbox,
        listeners: Callable[[int], list[Listener]],
        latest: Callable[[int], Delivery | None] = lambda room_id: None,
    ) -> None:
        self.loop = loop
        self.outbox = outbox
        self.listeners = listeners  # a room's listeners here, now
        self.latest = latest  # a room's last change made here, while its room is held here
        self.channel: str | None = None
        self.opening: asyncio.Task[str] | None = None
        self.joined: set[int] = set()
        self.membership = asyncio.Lock()
        self.task: asyncio.Task[None] | None = None
        self.ticking: asyncio.Task[None] | None = None
        self.tasks: set[asyncio.Task[Any]] = set()
        # The rooms each other process's relay said it hears, and when it last said anything.
        self.heard: dict[str, tuple[frozenset[int], float]] = {}
        outbox.listening = self

    def needs(self, delivery: Delivery) -> bool:
        """Whether a change made here must be published: another process hears its room, or
        its room is not held here (nothing could publish it again when one says it hears)."""
        room_id = delivery.room_id
        for rooms, _ in self.heard.values():
            if room_id in rooms:
                return True
        if self.opening is None:
            self._open()  # from now on this process hears who listens
        last = self.latest(room_id)
        return last is None or last.version < delivery.version

    async def join(self, room_id: int) -> None:
        """Hear what other processes publish of `room_id` from now on, and tell them."""
        if room_id in self.joined:
            return
        layer = get_channel_layer()
        if layer is None:
            return
        channel = await asyncio.shield(self._open())
        async with self.membership:
            if room_id in self.joined:
                return  # another socket's join did it meanwhile
            await layer.group_add(table_group(room_id), channel)
            self.joined.add(room_id)
            await self._say(layer, "table.listening", [room_id])

    def leave(self, room_id: int) -> None:
        """No listener of `room_id` is left here: stop hearing its group (in the loop)."""
        if room_id in self.joined:
            self._background(self._leave(room_id))

    async def _leave(self, room_id: int) -> None:
        async with self.membership:
            if room_id not in self.joined or self.listeners(room_id):
                return  # a listener came back meanwhile
            self.joined.discard(room_id)
            layer = get_channel_layer()
            try:
                if self.channel is not None:
                    await layer.group_discard(table_group(room_id), self.channel)
            except Exception:
                log.exception("leaving the group of room %s failed", room_id)
            await self._say(layer, "table.unlistening", [room_id])

    def stop(self) -> None:
        """End the relay's tasks (its loop ends: a test's, or a stopping server's)."""
        if self.loop.is_closed():
            return
        for task in (self.opening, self.task, self.ticking, *self.tasks):
            if task is not None:
                self.loop.call_soon_threadsafe(task.cancel)

    def _background(self, work: Coroutine[Any, Any, Any]) -> None:
        task = self.loop.create_task(work, context=contextvars.Context())
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    def _open(self) -> asyncio.Task[str]:
        """The relay's channel, made the first time: in the `LISTENING` group, the others asked
        which rooms they hear."""
        if self.opening is None:
            self.opening = self.loop.create_task(self._make(), context=contextvars.Context())
            self.opening.add_done_callback(self._opened)
        return self.opening

    def _opened(self, task: asyncio.Task[str]) -> None:
        if task.cancelled():
            return
        if task.exception() is not None:
            log.error("the relay could not start", exc_info=task.exception())
            self.opening = None  # the layer was away: tried again at the next join or change

    async def _make(self) -> str:
        layer = get_channel_layer()
        if self.channel is None:
            self.channel = await layer.new_channel("relay.")
        channel = self.channel
        if self.task is None:
            self.task = self.loop.create_task(self._run(layer, channel))
        if self.outbox.alone:
            return channel  # nobody else to tell, or to hear from
        await layer.group_add(LISTENING, channel)
        if self.ticking is None:
            self.ticking = self.loop.create_task(self._tick(layer))
        async with self.membership:
            await self._say(layer, "table.listening", sorted(self.joined), whole=True, ask=True)
        return channel

    async def _say(
        self, layer: Any, kind: str, rooms: list[int], whole: bool = False, ask: bool = False
    ) -> None:
        """Tell the other processes' relays which rooms this one hears (`table.listening`) or
        no longer hears (`table.unlistening`); `whole`: all of them. Never raises: the next
        REFRESH says it again."""
        if self.outbox.alone:
            return
        message = {"type": kind, "origin": ORIGIN, "rooms": rooms, "whole": whole, "ask": ask}
        try:
            await layer.group_send(LISTENING, message)
        except Exception:
            log.exception("telling the others which rooms this process hears failed")

    async def _tick(self, layer: Any) -> None:
        """Say every room heard here again every REFRESH seconds; forget a process that said
        nothing for EXPIRE seconds (it died without leaving its rooms)."""
        while True:
            await asyncio.sleep(REFRESH)
            now = time.monotonic()
            for origin, (_, said) in list(self.heard.items()):
                if now - said > EXPIRE:
                    del self.heard[origin]
            if self.joined:
                async with self.membership:
                    await self._say(layer, "table.listening", sorted(self.joined), whole=True)

    def _heard(self, message: dict[str, Any]) -> None:
        """Another process's relay said which rooms it hears (or no longer hears): from now
        on its rooms' changes are published, and each room it newly hears gets its last
        change here once more (one skipped before this moment is not newer than it)."""
        origin = message.get("origin")
        if not isinstance(origin, str) or origin == ORIGIN:
            return
        said = frozenset(r for r in message.get("rooms") or () if isinstance(r, int))
        known = self.heard.get(origin, (frozenset(), 0.0))[0]
        if message.get("type") == "table.unlistening":
            rooms = known - said
        else:
            rooms = said if message.get("whole") else known | said
            for room_id in sorted(rooms - known):
                last = self.latest(room_id)
                if last is not None:
                    self.outbox.publish_again(last)
        if rooms:
            self.heard[origin] = (rooms, time.monotonic())
        else:
            self.heard.pop(origin, None)
        if message.get("ask") and self.joined:
            # A process that just started: it hears this one's rooms now, not at the next
            # REFRESH.
            self._background(self._say_all())

    async def _say_all(self) -> None:
        async with self.membership:
            rooms = sorted(self.joined)
            await self._say(get_channel_layer(), "table.listening", rooms, whole=True)

    async def _run(self, layer: Any, channel: str) -> None:
        while True:
            try:
                message = await layer.receive(channel)
            except asyncio.CancelledError:
                raise
            except Exception:  # the layer may be away for a moment; never let the relay die
                log.exception("the relay's receive failed")
                await asyncio.sleep(0.5)
                continue
            try:
                await self._hand_on(message)
            except Exception:
                log.exception("relaying a message failed")

    async def _hand_on(self, message: dict[str, Any]) -> None:
        kind = message.get("type")
        if kind in ("table.listening", "table.unlistening"):
            self._heard(message)
            return
        room_id = message.get("room")
        if not isinstance(room_id, int):
            return
        if kind == "table.public":
            if from_here(message):
                return  # this process delivered it to its sockets already
            listeners = self.listeners(room_id)
            if listeners:
                self.outbox.relay(remote(message, room_id), listeners)
        elif kind == "table.notice":
            for listener in self.listeners(room_id):
                try:
                    await listener.table_notice(message)
                except Exception:
                    log.exception("a note to a socket failed")
