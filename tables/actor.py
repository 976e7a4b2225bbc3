"""Room actors: every live match this process serves, in memory, its moves applied one at a time.

A move (from a browser socket, the Board API or a bot) is checked and applied by its room's
actor in the server's event loop: no database transaction and no thread hop per move. What it
changed becomes an `Entry`; one writer (`Writer`, one thread of its own) writes every pending
entry of every room in one short transaction a few milliseconds later (group commit), and only
then is the move acknowledged to its sender and pushed to everyone: a crash loses nothing that
anybody saw. The state itself is written as a snapshot on the round's row at round ends, at the
match's end and every `SNAPSHOT_EVERY` moves or `SNAPSHOT_SECONDS`; a table is rebuilt from the
last snapshot and the log after it (`current.recover`).

Every entry's write checks that the match row holds the version the entry was applied to (a
fence, per entry): if another process, or a test rewriting a state, changed it in between, the
actor is rebuilt from the database and the moves it had not written yet are applied again on
the fresh table. Moves normally reach only their room's owner process (tables.owners).

Without a running server loop (a management command, a plain test) the same actor code runs in
the caller's thread, inside a transaction on the locked match row (`act_inline`).
"""

from __future__ import annotations

import asyncio
import collections
import concurrent.futures
import contextlib
import json
import logging
import os
import queue
import sqlite3
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import close_old_connections, connection, transaction
from django.utils import timezone
from django.utils.translation import gettext_noop

from games.engine import Action, IllegalAction
from tables import current, push, signals
from tables.current import Table
from tables.models import ActionLog, Match, Player, Round, RoundScore

log = logging.getLogger(__name__)

# The keys an action of any game can carry (api.md); the log keeps only these, so a client's
# extra fields (ignored by the rules) never fill the database.
# A transport's authority check on the table before a move (tables.authority.holder).
Check = Callable[[Table], None]

ACTION_KEYS = ("type", "from", "to", "index", "pile", "source", "place")
# A snapshot of the state at least this often; between two, recovery replays the log (the
# environment may say otherwise: a test that must replay a long log).
SNAPSHOT_EVERY = int(os.environ.get("SNAPSHOT_EVERY", "50"))
SNAPSHOT_SECONDS = float(os.environ.get("SNAPSHOT_SECONDS", "5"))
# Refusals the log keeps (replays show them): a race lost (L12).
LOGGED_REFUSALS = {"too_slow"}


class PlayError(IllegalAction):
    """A refused move or table operation: a code, a sentence, and the HTTP status for the API."""

    def __init__(self, code: str, message: str, status: int = 409) -> None:
        super().__init__(code, message)
        self.status = status


class _Retry:
    """What an entry's future holds when its move must be applied again on a rebuilt table."""


RETRY = _Retry()


@dataclass
class Entry:
    """One change of one match, applied in memory and waiting to be written."""

    room: RoomActor
    before: int  # the match's version before it
    table: Table  # the table after it
    events: list[dict[str, Any]]
    seat: int | None = None
    action: Action | None = None
    by_bot: bool = False
    driver: str = ""
    refused: str = ""
    played_in: Round | None = None  # the round the move was played in (its log row's)
    new_round: Round | None = None  # a round row this change opened (not saved yet)
    # The round it closed, as it stood before the deal: its row keeps it (replays, sheets).
    closed_state: Any = None
    scores: list[int] | None = None  # the points of a round that ended with it
    end_reason: str = ""
    winners: list[int] | None = None  # the match ended with it
    snapshot: bool = False
    future: Any = None  # asyncio future in the loop: resolved once durable
    request: tuple[Any, ...] = ()  # (seat, action, by_bot, driver) to apply it again

    @property
    def version(self) -> int:
        return self.table.version

    @property
    def rare(self) -> bool:
        """Whether it dealt, ended a round or ended the match (written through the ORM)."""
        return self.new_round is not None or self.scores is not None or self.winners is not None


class RoomActor:
    """One live match: its table in memory and what it applied but has not written yet."""

    def __init__(self, table: Table) -> None:
        self.table = table
        self.key = current.cache_key(table.match)
        self.room_id = table.match.room_id
        self.since_snapshot = 0
        self.snapshot_at = time.monotonic()
        self.last: Entry | None = None  # the newest entry submitted (a touch waits for it)
        self.stale = False
        self._lock: asyncio.Lock | None = None

    @property
    def lock(self) -> asyncio.Lock:
        # Created in the loop that uses it; a touch holds it while the database works.
        if self._lock is None:
            self._lock = asyncio.Lock()
        return self._lock

    def apply(
        self,
        seat: int,
        action: Action,
        by_bot: bool = False,
        driver: str = "",
        check: Check | None = None,
    ) -> Entry:
        """Check and apply one move in memory; return its entry, or raise PlayError.

        `check(table)` is the transport's authority check (tables.authority), run on the table
        as it stands before the rules: it raises when the caller no longer holds the seat.
        """
        table = self.table
        match = table.match
        if match.status == Match.Status.FINISHED:
            raise PlayError("match_over", gettext_noop("This match is over."))
        if match.status == Match.Status.CLOSED:
            reason = match.closed_reason or gettext_noop("This room was closed.")
            raise PlayError("room_closed", reason)
        if not any(p.seat == seat for p in table.players):
            raise PlayError("not_seated", gettext_noop("You have no seat at this table."), 403)
        if check is not None:
            check(table)
        if action["type"] != "ready" and table.counting_down():
            raise PlayError(
                "not_started",
                gettext_noop("The round has not started yet: wait for the countdown."),
            )
        kept = {k: action[k] for k in ACTION_KEYS if k in action}
        request = (seat, action, by_bot, driver)
        try:
            new, events = table.game.apply(table.state, seat, action)
        except IllegalAction as refusal:
            if refusal.code in LOGGED_REFUSALS:
                # The race is lost, but a replay shows the play that came too late.
                refusal.entry = self.last = Entry(  # type: ignore[attr-defined]
                    room=self,
                    before=match.version,
                    table=table,
                    events=[],
                    seat=seat,
                    action=kept,
                    by_bot=by_bot,
                    driver=driver,
                    refused=refusal.code,
                    played_in=table.round,
                    request=request,
                )
            raise
        after = current.copy_of(table, players=False)
        after.match.version += 1
        after.state = new
        entry = Entry(
            room=self,
            before=match.version,
            table=after,
            events=events,
            seat=seat,
            action=kept,
            by_bot=by_bot,
            driver=driver,
            played_in=table.round,
            request=request,
        )
        rnd = table.round
        before, progress = table.progress, table.game.progress(new)
        if progress.round != rnd.number:
            # The next round was dealt: its own row (seed and state), starting at a countdown.
            rnd = Round(
                match_id=match.pk,
                number=progress.round,
                seed=progress.seed,
                version=after.version,
            )
            entry.new_round = rnd
            entry.closed_state = table.state
            after.round = rnd
            after.match.starts_at = timezone.now() + timedelta(seconds=settings.TABLE_COUNTDOWN)
        if progress.rounds_scored > before.rounds_scored:
            entry.scores = list(table.game.last_round_points(new))
            entry.end_reason = (
                next((e.get("reason", "") for e in events if e.get("type") == "round_ended"), "")
                or ""
            )
        if progress.finished:
            after.match.status = Match.Status.FINISHED
            after.match.finished_at = timezone.now()
            entry.winners = next(
                (e["winners"] for e in events if e.get("type") == "match_finished"), []
            )
            after.players = [current.clone(p) for p in after.players]
            for player in after.players:
                player.won = player.seat in entry.winners
        self.since_snapshot += 1
        if (
            entry.new_round is not None
            or entry.scores is not None
            or entry.winners is not None
            or self.since_snapshot >= SNAPSHOT_EVERY
            or time.monotonic() - self.snapshot_at >= SNAPSHOT_SECONDS
        ):
            entry.snapshot = True
            self.since_snapshot = 0
            self.snapshot_at = time.monotonic()
        self.table = after
        self.last = entry
        return entry


# --------------------------------------------------------------------------- writing


# Transactions written each way (tests check which way a batch went).
written: collections.Counter[str] = collections.Counter()


def write(entries: list[Entry]) -> list[Entry]:
    """Write `entries` (in order) in one transaction; return those to apply again.

    The hot statements are plain SQL (the ORM's own work was most of a move's cost): per match
    one UPDATE that is also the fence (it only matches the row at the version the entries
    start from), then every action-log row in one INSERT. What is rare (a round's end, a
    deal, the match's end) goes through the ORM. On SQLite a batch without those goes
    through the writer thread's own connection (`RawSqlite`), without Django's wrappers.

    The fence is per entry. An entry of an actor already known to be stale comes back (it was
    applied to a table that is not the database's); of the others, the run whose versions
    chain (each one's `before` is the version the previous one left; a refused entry leaves
    it as it was) is written if the row holds the first one's, and the rest comes back, from
    the run's first break on. Two actors of one match (an old one with moves pending, the one
    rebuilt beside it after a takeover) can then never both write the same version.
    """
    # Not inside a transaction of Django's own (act_inline): that one holds the lock already.
    raw = None if connection.in_atomic_block else RawSqlite.here()
    if raw is not None and not any(e.rare for e in entries):
        written["raw"] += 1
        return raw.write(entries)
    written["django"] += 1
    with transaction.atomic(), connection.cursor() as cursor:
        return _write_all(entries, _DjangoSql(cursor))


def _write_all(entries: list[Entry], sql: _DjangoSql | _RawSql) -> list[Entry]:
    """`write`'s work in one open transaction, through `sql` (Django's cursor or the raw one)."""
    groups: dict[int, list[Entry]] = {}
    for entry in entries:
        groups.setdefault(entry.table.match.pk, []).append(entry)
    again: list[Entry] = []
    logs: list[tuple[Any, ...]] = []
    for pk in sorted(groups):  # one lock order for every writer: no deadlock
        fresh = [e for e in groups[pk] if not e.room.stale]
        again += [e for e in groups[pk] if e.room.stale]
        items = _chain(fresh)
        again += fresh[len(items) :]
        if not items:
            continue
        if not _fence(sql, items):
            again += items
            continue
        logs += _write_match(items, sql)
    if logs:
        sql.insert_logs(logs)
    return again


def _chain(items: list[Entry]) -> list[Entry]:
    """The longest first run of `items` in which each starts at the version the one before left."""
    for n in range(1, len(items)):
        if items[n].before != items[n - 1].version:
            return items[:n]
    return items


_UPDATE_MATCH = (
    "UPDATE games_match SET version = %s, starts_at = %s, status = %s, finished_at = %s"
    " WHERE id = %s AND version = %s"
)
_UPDATE_VERSION = "UPDATE games_match SET version = %s WHERE id = %s AND version = %s"
_INSERT_LOG = (
    "INSERT INTO games_actionlog"
    " (match_id, round_id, seat, action, version, by_bot, driver, refused, created_at)"
    " VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s)"
)
_UPDATE_SNAPSHOT = "UPDATE games_round SET state = %s, version = %s WHERE id = %s"


def _fence(sql: _DjangoSql | _RawSql, items: list[Entry]) -> bool:
    """Move the match row to the entries' last version, if it still holds their first one.

    Plain moves change the version only (a deal, a round's end and the match's end are rare):
    then only the version is set, which leaves the row's status index alone.
    """
    applied = [e for e in items if not e.refused]
    match = (applied[-1] if applied else items[0]).table.match
    if not any(e.rare for e in applied):
        return sql.update(_UPDATE_VERSION, (match.version, match.pk, items[0].before)) == 1
    ops = connection.ops  # a rare entry: Django's cursor (write sends none of them the raw way)
    params = (
        match.version,
        ops.adapt_datetimefield_value(match.starts_at),
        match.status,
        ops.adapt_datetimefield_value(match.finished_at),
        match.pk,
        items[0].before,
    )
    return sql.update(_UPDATE_MATCH, params) == 1


def _write_match(items: list[Entry], sql: _DjangoSql | _RawSql) -> list[tuple[Any, ...]]:
    """The log rows of one match's entries, and what rare changes they made (ORM)."""
    logs = []
    last: Entry | None = None
    snapshot = False
    now = sql.now()
    for entry in items:
        if entry.action is not None:
            logs.append(
                (
                    entry.table.match.pk,
                    entry.played_in.pk,
                    entry.seat,
                    sql.action_text(entry.action),
                    entry.version,
                    entry.by_bot,
                    entry.driver,
                    entry.refused,
                    now,
                )
            )
        if entry.refused:
            continue
        last = entry
        if entry.rare:
            _write_rare(entry)
        snapshot = snapshot or entry.snapshot
    if last is None:
        return logs
    match = last.table.match
    if snapshot:
        sql.snapshot(last.table.round.pk, last.table.game.dump(last.table.state), match.version)
    if any(e.winners is not None for e in items):
        # Inside the transaction that makes the end durable: the lobby finishes the room here.
        signals.match_finished.send(sender=Match, match=match)
    return logs


def _write_rare(entry: Entry) -> None:
    """A deal, a round's end, the match's end: through the ORM (never on the raw path)."""
    game = entry.table.game
    if entry.new_round is not None:
        Round.objects.filter(pk=entry.played_in.pk).update(
            state=game.dump(entry.closed_state), version=entry.before
        )
        entry.new_round.state = game.dump(entry.table.state)
        entry.new_round.save()
        entry.new_round.state = None
    if entry.scores is not None:
        _record_scores(entry)
    if entry.winners is not None:
        Player.objects.filter(match_id=entry.table.match.pk, seat__in=entry.winners).update(
            won=True
        )


class _DjangoSql:
    """`write`'s statements on Django's connection, in its transaction."""

    def __init__(self, cursor: Any) -> None:
        self.cursor = cursor

    @staticmethod
    def action_text(action: Action) -> Any:
        return ActionLog._meta.get_field("action").get_db_prep_value(action, connection)

    @staticmethod
    def now() -> Any:
        return connection.ops.adapt_datetimefield_value(timezone.now())

    def update(self, statement: str, params: tuple[Any, ...]) -> int:
        self.cursor.execute(statement, params)
        return self.cursor.rowcount

    def insert_logs(self, rows: list[tuple[Any, ...]]) -> None:
        self.cursor.executemany(_INSERT_LOG, rows)

    def snapshot(self, round_pk: int, state: Any, version: int) -> None:
        Round.objects.filter(pk=round_pk).update(state=state, version=version)


class _RawSql:
    """The same statements on an sqlite3 connection (qmark parameters)."""

    _state = Round._meta.get_field("state")

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    # What Django's SQLite backend stores, without its wrappers (and the lookups of the
    # thread's connection they take): a JSONField without an encoder is json.dumps of the value
    # (adapt_json_value), an aware datetime its naive UTC text (adapt_datetimefield_value, with
    # the database's time zone UTC as settings.TIME_ZONE says). tests/tables check both.
    action_text = staticmethod(json.dumps)

    @staticmethod
    def now() -> str:
        return str(datetime.now(UTC).replace(tzinfo=None))

    def update(self, statement: str, params: tuple[Any, ...]) -> int:
        return self.db.execute(_qmark(statement), params).rowcount

    def insert_logs(self, rows: list[tuple[Any, ...]]) -> None:
        self.db.executemany(_qmark(_INSERT_LOG), rows)

    def snapshot(self, round_pk: int, state: Any, version: int) -> None:
        text = self._state.get_db_prep_value(state, connection)
        self.db.execute(_qmark(_UPDATE_SNAPSHOT), (text, version, round_pk))


def _qmark(statement: str) -> str:
    return statement.replace("%s", "?")


def _sqlite_timeout() -> float:
    """How long Django's SQLite connections wait for the write lock (seconds)."""
    return connection.settings_dict.get("OPTIONS", {}).get("timeout", 5)


class Busy(Exception):
    """Another connection holds the SQLite file's write lock (a connection that does not wait)."""


class RawSqlite:
    """An sqlite3 connection of the actors' own to the database file, for batches of plain
    moves: the same statements without Django's cursor, transaction and debug wrappers
    (measured: most of the SQL's cost, and Python that holds the lock every thread needs).
    It takes the write lock as Django's connections here do (BEGIN IMMEDIATE) and runs in WAL
    mode with synchronous=NORMAL as they do. Its commits leave the WAL file to a
    `Checkpointer` (ACTOR_CHECKPOINT_SECONDS; at 0 they checkpoint it as Django's do).

    Two kinds: the writer thread's (`here`, one per thread), which waits for the lock up to
    Django's timeout, and the loop's (`for_loop`, the Writer's own), which never waits: if
    another connection holds the lock, `write` raises `Busy` at once and the batch goes to
    the thread instead.
    """

    _here = threading.local()

    def __init__(self, name: str, timeout: float) -> None:
        # Used by one thread at a time; closed from whichever ends it (a test's teardown).
        self.db = sqlite3.connect(
            name, timeout=timeout, isolation_level=None, check_same_thread=False
        )
        self.db.execute("PRAGMA synchronous = NORMAL")
        self.db.execute("PRAGMA foreign_keys = ON")  # as Django's connections check them
        self.name = name
        self.checkpointer = None
        every = settings.ACTOR_CHECKPOINT_SECONDS
        if every > 0:
            self.db.execute("PRAGMA wal_autocheckpoint = 0")
            # The checkpointer's own connection waits as Django's do, whoever owns this one.
            self.checkpointer = Checkpointer(name, _sqlite_timeout(), every)

    @staticmethod
    def file() -> str | None:
        """The default database's file, if it is an SQLite file and the settings allow."""
        if not settings.ACTOR_RAW_SQLITE or connection.vendor != "sqlite":
            return None
        name = str(connection.settings_dict["NAME"])
        if not name or "memory" in name:
            return None  # an in-memory database is not shared between connections
        return name

    @classmethod
    def for_loop(cls) -> RawSqlite | None:
        """A connection for the server loop's own commits, which never waits for the lock."""
        name = cls.file()
        if name is None or not settings.ACTOR_COMMIT_IN_LOOP:
            return None
        return cls(name, 0)

    @classmethod
    def here(cls) -> RawSqlite | None:
        """This thread's, if the default database is an SQLite file and the settings allow."""
        name = cls.file()
        if name is None:
            return None
        raw = getattr(cls._here, "raw", None)
        if raw is None or raw.name != name:
            if raw is not None:
                raw.shut()
            raw = cls._here.raw = cls(name, _sqlite_timeout())
        return raw

    def write(self, entries: list[Entry]) -> list[Entry]:
        db = self.db
        try:
            db.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as error:
            if error.sqlite_errorcode & 0xFF == sqlite3.SQLITE_BUSY:  # SQLITE_BUSY_*: the same
                raise Busy from error
            raise
        try:
            again = _write_all(entries, _RawSql(db))
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        return again

    def shut(self) -> None:
        self.db.close()
        if self.checkpointer is not None:
            self.checkpointer.stop()

    @classmethod
    def close(cls) -> None:
        raw = getattr(cls._here, "raw", None)
        if raw is not None:
            raw.shut()
            cls._here.raw = None


class Checkpointer:
    """A thread that checkpoints an SQLite file's WAL every `every` seconds, on its own connection.

    SQLite's own checkpoint runs inside the commit that takes the WAL past 1,000 pages: that
    move then waits for the pages to be copied and the file synced (measured: the slowest
    commits, several ms). Here a PASSIVE checkpoint copies what no reader still needs, beside
    the writer and without its lock, and a page written many times in between is copied once.
    """

    def __init__(self, name: str, timeout: float, every: float) -> None:
        self.name, self.timeout, self.every = name, timeout, every
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self._run, name="actors-checkpoint", daemon=True)
        self.thread.start()

    def _run(self) -> None:
        db = sqlite3.connect(self.name, timeout=self.timeout, isolation_level=None)
        try:
            while not self.stopped.wait(self.every):
                try:
                    db.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
                except sqlite3.Error:
                    log.exception("checkpointing %s failed; trying again", self.name)
            db.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()  # what the last moves wrote
        finally:
            db.close()

    def stop(self) -> None:
        self.stopped.set()
        self.thread.join(timeout=self.timeout + 1)


def _record_scores(entry: Entry) -> None:
    rnd = entry.table.round  # a deal can end at once (L14+): its scores belong to that round
    rnd.ended_at = timezone.now()
    rnd.end_reason = entry.end_reason
    Round.objects.filter(pk=rnd.pk).update(ended_at=rnd.ended_at, end_reason=rnd.end_reason)
    RoundScore.objects.bulk_create(
        RoundScore(round=rnd, player_id=p.pk, seat=p.seat, points=entry.scores[p.seat])
        for p in entry.table.players
    )


def publish(entries: list[Entry]) -> None:
    """The entries are durable: keep each table as current and push it, in order."""
    for entry in entries:
        if entry.refused:
            continue
        current.remember(entry.table)
        push.table_changed(entry.table, entry.events)


# --------------------------------------------------------------------------- the loop


_loop: asyncio.AbstractEventLoop | None = None
_actors: dict[int, RoomActor] = {}  # room id -> its actor, in the bound loop
_building: dict[int, asyncio.Future] = {}
_writer: Writer | None = None


class OneThread(concurrent.futures.Executor):
    """One thread that runs what it is handed, in order; started on first use.

    `call(fn, arg, done)` is the writer's way: the thread runs `fn(arg)` and then `done(result,
    error)`, with no Future between them (a ThreadPoolExecutor's futures, conditions and
    semaphore were a good part of each batch's cost in the thread, measured:
    docs/performance.md). `submit` is the Executor's, for `loop.run_in_executor`.
    """

    def __init__(self, name: str) -> None:
        self.name = name
        self.jobs: queue.SimpleQueue = queue.SimpleQueue()
        self.thread: threading.Thread | None = None
        self.starting = threading.Lock()

    def call(self, fn: Any, arg: Any, done: Any) -> None:
        if self.thread is None:
            with self.starting:
                if self.thread is None:
                    self.thread = threading.Thread(target=self._run, name=self.name, daemon=True)
                    self.thread.start()
        self.jobs.put((fn, arg, done))

    def submit(self, fn: Any, /, *args: Any, **kwargs: Any) -> concurrent.futures.Future:
        future: concurrent.futures.Future = concurrent.futures.Future()

        def run(_: Any) -> Any:
            if not future.set_running_or_notify_cancel():
                return None  # cancelled while it waited
            try:
                future.set_result(fn(*args, **kwargs))
            except BaseException as error:
                future.set_exception(error)
            return None

        self.call(run, None, _nothing)
        return future

    def _run(self) -> None:
        jobs = self.jobs
        while True:
            fn, arg, done = jobs.get()
            try:
                result, error = fn(arg), None
            except BaseException as failure:
                result, error = None, failure
            try:
                done(result, error)
            except Exception:  # the thread must go on: every later write depends on it
                log.exception("%s: answering a job failed", self.name)


def _nothing(result: Any, error: BaseException | None) -> None:
    pass


# One thread for every database write of the actors: a flush, a touch, a rebuild.
_db = OneThread("actors-db")


async def in_db_thread(fn: Any, *args: Any) -> Any:
    """`fn(*args)` in the actors' database thread, which never waits for the loop (Channels'
    one database thread may: a bot driver's step waits there for a touch of the loop's)."""
    return await asyncio.get_running_loop().run_in_executor(_db, fn, *args)


async def close_connections() -> None:
    """Close the writer thread's database connection (a test database is dropped after)."""
    from django.db import connections

    def close_all() -> None:
        RawSqlite.close()
        connections.close_all()

    if _writer is not None:
        _writer.close()
    await in_db_thread(close_all)


def shut_sqlite() -> None:
    """Close the actors' own SQLite connections and stop their checkpointers, from any thread
    once no loop uses them (a test database file is deleted after: a checkpointer left running
    would report a disk error every few milliseconds until the process ends)."""
    if _writer is not None:
        _writer.close()
    if _db.thread is not None:
        _db.submit(RawSqlite.close).result(timeout=10)


def serving_loop() -> asyncio.AbstractEventLoop | None:
    """The server loop the actors live in, or None (no server here: act inline)."""
    loop = _loop
    if loop is None or loop.is_closed() or not loop.is_running():
        return None
    return loop


def bind(loop: asyncio.AbstractEventLoop) -> None:
    """Run the actors in `loop` (the server's); cheap when already bound."""
    global _loop, _writer
    if _loop is loop:
        return
    # Actors of a loop that ended (tests) held nothing that was not written or refused.
    if _writer is not None:
        _writer.close()
    _loop, _writer = loop, Writer()
    _actors.clear()
    _building.clear()
    push.bind_loop(loop)


def mark_stale(room_ids: list[int]) -> None:
    """Rebuild these rooms' actors from the database at their next use (tables.owners)."""
    for room_id in room_ids:
        actor = _actors.pop(room_id, None)
        if actor is not None:
            actor.stale = True


def forget(room_id: int) -> None:
    """Drop the room's actor: the database was changed behind its back (tests, operators)."""
    actor = _actors.pop(room_id, None)
    if actor is not None:
        actor.stale = True
    match = Match.objects.filter(room_id=room_id).first()
    if match is not None:
        current.forget(match)


async def actor_for(room_id: int) -> RoomActor:
    """The room's actor in this loop, built from the database the first time."""
    actor = _actors.get(room_id)
    if actor is not None and not actor.stale:
        return actor
    building = _building.get(room_id)
    if building is None:
        loop = asyncio.get_running_loop()
        building = loop.run_in_executor(_db, _load, room_id)
        _building[room_id] = building
        try:
            table = await building
        finally:
            _building.pop(room_id, None)
        if table is None:
            raise PlayError("not_started", gettext_noop("This room has no game in progress."), 404)
        actor = RoomActor(table)
        _actors[room_id] = actor
        return actor
    await asyncio.shield(building)
    return await actor_for(room_id)


def live_table(room_id: int) -> Table | None:
    """The room's table as its actor in this process holds it now, or None (no actor here).

    It may be a move or two ahead of the database (rows being written): what the room's next
    move is checked against. Any thread may read it; only the actor replaces it.
    """
    actor = _actors.get(room_id)
    if actor is None or actor.stale:
        return None
    return actor.table


def _load(room_id: int) -> Table | None:
    close_old_connections()
    match = Match.objects.filter(room_id=room_id).first()
    return current.from_row(match) if match is not None else None


async def act(
    room_id: int, seat: int, action: Action, by_bot: bool, driver: str, check: Check | None = None
) -> Entry:
    """Apply one move in its room's actor; return its entry once it is durable."""
    while True:
        actor = await actor_for(room_id)
        async with actor.lock:
            loop = asyncio.get_running_loop()
            try:
                entry = actor.apply(seat, action, by_bot, driver, check)
            except IllegalAction as refusal:
                logged = getattr(refusal, "entry", None)
                if logged is not None:  # a refused play in a race is logged too
                    logged.future = loop.create_future()
                    _writer.submit(logged)
                raise
            entry.future = loop.create_future()
            _writer.submit(entry)
            # While its row is written: what the push will send, so that it only sends then.
            try:
                push.prepare(entry.table)
            except Exception:  # the push encodes it after the commit instead
                log.exception("preparing the push of a move failed")
        result = await entry.future
        if result is not RETRY:
            return entry


async def touch(room_id: int, change: Any) -> Table | None:
    """Run `change(table)` on the room's table in the database thread, moves waiting."""
    try:
        actor = await actor_for(room_id)
    except PlayError:
        return None
    async with actor.lock:
        last = actor.last
        if last is not None and last.future is not None:
            await asyncio.wait([last.future])  # everything before it is written first
        if actor.stale:
            actor = await actor_for(room_id)
        loop = asyncio.get_running_loop()
        table, changed = await loop.run_in_executor(_db, _touch_write, actor.table, change)
        actor.table = table
        if changed:
            current.remember(table)
            push.table_changed(table, [])
    return table


def _touch_write(table: Table, change: Any) -> tuple[Table, bool]:
    close_old_connections()
    with transaction.atomic():
        match = Match.objects.select_for_update().get(pk=table.match.pk)
        if match.version != table.version:
            table = current.recover(match)  # changed behind our back: start from the truth
        table = current.copy_of(table)
        changed = bool(change(table))
        if changed:
            table.match.version += 1
            Match.objects.filter(pk=match.pk).update(version=table.match.version)
    return table, changed


class Writer:
    """The one writer of a loop: flushes every pending entry in one transaction, in order.

    No task of its own. On an SQLite file, a batch of plain moves is committed in the loop
    itself (`ACTOR_COMMIT_IN_LOOP`), once the loop has read what this turn brought (every move
    in it joins the batch): the loop's own connection never waits for the lock, and when
    another connection holds it the batch goes to the database thread, which waits. Otherwise
    (PostgreSQL, a deal or a round's end, which go through the ORM) the first move submitted
    goes to the database thread at once. Either way what comes in meanwhile waits as the next
    batch, and the answer comes back as one callback in the loop (`_written`), which publishes
    the batch, acknowledges its moves and starts the next one.
    """

    def __init__(self) -> None:
        self.pending: list[Entry] = []
        self.writing = False
        self.waiting: asyncio.Handle | None = None
        self.raw: RawSqlite | None = None  # the loop's own connection, made at the first move
        self.raw_known = False

    def submit(self, entry: Entry) -> None:
        self.pending.append(entry)
        if self.writing or self.waiting is not None:
            return
        loop = asyncio.get_running_loop()
        delay = settings.ACTION_FLUSH_DELAY
        if delay:  # gather what arrives in the next moments
            self.waiting = loop.call_later(delay, self._flush)
        elif self._here() is not None:
            self.waiting = loop.call_soon(self._flush)  # after this turn's other frames
        else:
            self._flush()

    def _here(self) -> RawSqlite | None:
        if not self.raw_known:
            self.raw, self.raw_known = RawSqlite.for_loop(), True
        return self.raw

    def close(self) -> None:
        if self.raw is not None:
            self.raw.shut()
        self.raw, self.raw_known = None, False

    def _flush(self) -> None:
        self.waiting = None
        if not self.pending:
            self.writing = False
            return
        batch, self.pending = self.pending, []
        self.writing = True
        loop = asyncio.get_running_loop()
        if self._commit_here(batch, loop):
            return

        def back(stale: list[Entry] | None, error: BaseException | None) -> None:
            # RuntimeError: the loop has ended (a test's); nobody waits for these any more.
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(self._written, batch, stale, error)

        _db.call(_write_batch, batch, back)

    def _commit_here(self, batch: list[Entry], loop: asyncio.AbstractEventLoop) -> bool:
        """Commit a batch of plain moves in the loop; False: the thread takes it."""
        raw = self._here()
        if raw is None or any(e.rare for e in batch):
            return False
        try:
            stale, error = raw.write(batch), None
        except Busy:
            written["busy"] += 1
            return False  # another connection writes: the thread waits for the lock
        except Exception as failure:
            stale, error = None, failure
        written["raw"] += 1
        written["loop"] += 1
        loop.call_soon(self._written, batch, stale, error)
        return True

    def _written(
        self, batch: list[Entry], stale: list[Entry] | None, error: BaseException | None
    ) -> None:
        try:
            self._settle(batch, stale, error)
        finally:
            self._flush()  # the next batch: what came in while this one was written

    def _settle(
        self, batch: list[Entry], stale: list[Entry] | None, error: BaseException | None
    ) -> None:
        if error is not None or stale is None:
            log.error("writing %d moves failed", len(batch), exc_info=error)
            for entry in batch:
                entry.room.stale = True  # its memory is ahead of the database now
                if entry.future is not None and not entry.future.done():
                    entry.future.set_exception(
                        PlayError(
                            "unavailable",
                            gettext_noop("The move could not be saved; try again."),
                            503,
                        )
                    )
            return
        retry = {id(e) for e in stale}
        for entry in stale:
            entry.room.stale = True  # rebuilt from the database before its move again
        try:
            publish([e for e in batch if id(e) not in retry])
        except Exception:  # a push that fails must not lose the acknowledgements
            log.exception("push failed")
        for entry in batch:
            if entry.future is None or entry.future.done():
                continue
            if id(entry) in retry:
                entry.future.set_result(RETRY)  # applied again on the rebuilt table
            else:
                entry.future.set_result(None)


def _write_batch(batch: list[Entry]) -> list[Entry]:
    close_old_connections()
    return write(batch)


# --------------------------------------------------------------------------- without a loop


def act_inline(
    room_id: int, seat: int, action: Action, by_bot: bool, driver: str, check: Check | None = None
) -> Entry:
    """The same move without a server loop: apply and write in the caller's transaction."""
    refusal: IllegalAction | None = None
    with transaction.atomic():
        match = Match.objects.select_for_update().filter(room_id=room_id).first()
        if match is None:
            raise PlayError("not_started", gettext_noop("This room has no game in progress."), 404)
        actor = RoomActor(current.from_row(match))
        try:
            entries = [actor.apply(seat, action, by_bot, driver, check)]
        except IllegalAction as error:
            refusal = error
            logged = getattr(error, "entry", None)
            entries = [logged] if logged is not None else []
        write(entries)
        if refusal is None:
            transaction.on_commit(lambda: publish(entries))
    if refusal is not None:
        raise refusal
    return entries[0]


def touch_inline(room_id: int, change: Any) -> Table | None:
    with transaction.atomic():
        match = Match.objects.select_for_update().filter(room_id=room_id).first()
        if match is None:
            return None
        table = current.copy_of(current.from_row(match))
        if change(table):
            table.match.version += 1
            Match.objects.filter(pk=match.pk).update(version=table.match.version)
            transaction.on_commit(lambda: publish_touch(table))
    return table


def publish_touch(table: Table) -> None:
    current.remember(table)
    push.table_changed(table, [])
