"""Where live rooms' changes are written and read back: the `Store` seam and its two kinds.

A batch of entries (tables.live.room.Entry) is written in one transaction: per match one UPDATE
that is also the fence (it only matches the row at the version the entries start from), then
every action-log row in one INSERT. What is rare (a round's end, a deal, the match's end) goes
through the ORM. The statements name their tables through the models (`_meta.db_table`).

- `OrmStore` writes every batch on Django's connection (what the others leave to it, and an
  SQLite database in memory, which no other connection can share).
- `PostgresStore` writes a batch of plain moves in one statement, whatever the number of its
  matches (their fences, log rows and snapshots, in autocommit): one round trip to the server
  instead of BEGIN, a fence per match, the rows and COMMIT; a rare change as `OrmStore`.
- `SqliteStore` writes a batch of plain moves on an sqlite3 connection of its own, without
  Django's cursor, transaction and debug wrappers (measured: most of the SQL's cost): the
  writer thread's, which waits for the write lock as Django's do, and the loop's
  (`write_in_loop`), which never waits (`None`: the thread takes the batch). Its WAL file is
  checkpointed by a thread of its own (`Checkpointer`), not inside the commit that fills it.

`store()` picks one by the database: one way per kind of database, no flag to choose.

The fence is per entry. An entry of a room already known to be stale comes back (it was
applied to a table that is not the database's); of the others, the run whose versions chain
(each one's `before` is the version the previous one left; a refused entry leaves it as it was)
is written if the row holds the first one's, and the rest comes back, from the run's first
break on. Two actors of one match (an old one with moves pending, the one rebuilt beside it
after a takeover) can then never both write the same version.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import contextvars
import json
import logging
import queue
import sqlite3
import threading
import time
from collections import Counter
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import partial
from typing import Any, Protocol

import psycopg
from django.conf import settings
from django.db import close_old_connections, connection, transaction
from django.db.models import DateTimeField, F, Q, Sum, Value
from django.db.models.functions import Least
from django.utils import timezone
from django.utils.translation import gettext_noop
from psycopg.abc import Buffer
from psycopg.adapt import PyFormat, Transformer
from psycopg.pq import ExecStatus

from games.engine import Action
from games.registry import GAMES
from tables import claims, current, fairness, reaction, signals
from tables.current import Table
from tables.errors import PlayError
from tables.live.room import Entry
from tables.models import ActionLog, Match, Player, Presence, ReactionProfile, Round, RoundScore

log = logging.getLogger(__name__)


class Store(Protocol):
    """What the writer and the rooms need of the database."""

    in_loop: bool  # whether `write_in_loop` may take a batch (the writer waits a turn for it)
    written: Counter[str]  # transactions written each way (tests check which way a batch went)

    def write(self, entries: list[Entry]) -> list[Entry]:
        """Write `entries` (in order) in one transaction (a thread); return those to apply again."""
        ...

    def write_in_loop(self, entries: list[Entry]) -> list[Entry] | None:
        """The same in the server loop, never waiting for a lock; None: the thread must."""
        ...

    def write_soon(self, entries: list[Entry], done: Done) -> bool:
        """Send the same from the server loop on a connection of the loop's own, without waiting
        for the answer: `done(again, error)` is called in the loop once the batch is durable (or
        failed). False: not taken, the thread must."""
        ...

    def shut(self) -> None:
        """Close the store's own connections (a test database is dropped after)."""
        ...


def load(room_id: int) -> Table | None:
    """The room's match as the database has it (a thread), or None before the start."""
    close_old_connections()
    match = Match.objects.filter(room_id=room_id).first()
    return recover(match) if match is not None else None


# A paced table's seats act at most once per pace: far fewer log rows than this fall within
# the last pace (12 seats at most), however long the match.
RECENT_PLAYS = 64


def last_plays(match_id: int, pace: float) -> dict[int, float]:
    """When each seat's last applied action within the last `pace` seconds was logged
    (wall-clock seconds, the log's `created_at`): where a paced table's pacer starts again
    when a process builds the room (a takeover, a deploy: tables.pacing)."""
    if not pace:
        return {}
    since = timezone.now().timestamp() - pace
    rows = (
        ActionLog.objects.filter(match_id=match_id, refused="")
        .order_by("-version")
        .values_list("seat", "created_at")[:RECENT_PLAYS]
    )
    played: dict[int, float] = {}
    for seat, created_at in rows:
        at = created_at.timestamp()
        if at >= since:
            played[seat] = max(played.get(seat, 0.0), at)
    return played


def last_human_play(match_id: int) -> datetime | None:
    """When a person's last action of the match was logged (None: none yet): a player of the
    Board API's HTTP moves has no socket, and is at the table all the same."""
    return (
        ActionLog.objects.filter(match_id=match_id, by_bot=False)
        .order_by("-version")
        .values_list("created_at", flat=True)
        .first()
    )


def match_row(room_id: int, lock: bool = False) -> Match | None:
    """The room's match row (any thread; `lock`: FOR UPDATE, in the caller's transaction).

    One plain statement through `raw`, which converts the values as the ORM does: the ORM's
    query, compiled afresh for every call, cost three times the statement, and this row is
    read for every move and read that the room's memory does not answer (the Board API's
    reads, moves without a server loop)."""
    fields = Match._meta.concrete_fields
    statement = (
        f"SELECT {', '.join(str(field.column) for field in fields)}"
        f" FROM {Match._meta.db_table}"
        f" WHERE {Match._meta.get_field('room').column} = %s"
        f"{' FOR UPDATE' if lock and connection.features.has_select_for_update else ''}"
    )
    return next(iter(Match.objects.raw(statement, [room_id])), None)


def recover(match: Match) -> Table:
    """Rebuild the table of `match` from the database: the last snapshot, then the log after it.

    The round row holds the state as it was at `Round.version`; every move applied since is in
    the action log, and the rules are deterministic (G1), so replaying those moves in order
    arrives at exactly the state the room actor held (tests/tables/test_actor.py proves it).

    What it reads is the table at the version the match row said, never a mix: the log is
    replayed up to that version only, and when a round row, a snapshot or a player row newer
    than that was written meanwhile (the match row is read again at the end: every change
    anyone can see bumps it), it reads again from a fresh match row (no torn read), and after
    RECOVER_TRIES such reads once more with the match row locked.
    """
    for _ in range(RECOVER_TRIES):
        table = _read_at(match)
        if table is not None:
            return table
        match.refresh_from_db()
    # Changing faster than it can be read: read it with the match row locked (every writer
    # takes that lock first, so nothing changes under the read; rare, and short).
    with transaction.atomic():
        match = Match.objects.select_for_update().get(pk=match.pk)
        table = _read_at(match)
    if table is None:
        raise RuntimeError(f"match {match.pk}: a round or snapshot ahead of its match row")
    return table


def _read_at(match: Match) -> Table | None:
    """The table at `match.version`, or None if the database moved on while it was read."""
    game = GAMES[match.game]
    rnd = match.rounds.order_by("-number").first()
    if rnd is None:
        raise Match.DoesNotExist(f"match {match.pk} has no round")
    players = list(match.players.all())
    if rnd.version > match.version:
        return None
    moves = ActionLog.objects.filter(
        round=rnd, version__gt=rnd.version, version__lte=match.version, refused=""
    )
    state = game.load(rnd.state)
    for seat, action in moves.order_by("version").values_list("seat", "action"):
        new, _ = game.apply(state, seat, action)
        # A new round is dealt from the match's committed seed for it (tables.fairness).
        state = fairness.next_deal(game, match.fair_secret, game.progress(state), new)
    now = Match.objects.filter(pk=match.pk).values_list("version", flat=True).first()
    if now != match.version:
        return None
    rnd.state = None  # the table keeps the engine's state only once, as `state`
    return Table(match=match, players=players, state=state, round=rnd)


# How often `recover` reads again, without a lock, when the match changed while it read (moves
# come milliseconds apart; a read takes about one).
RECOVER_TRIES = 5


def version_of(room_id: int) -> int | None:
    """The room's match version now, from its row (any thread; None: it never started)."""
    return Match.objects.filter(room_id=room_id).values_list("version", flat=True).first()


def lease_of(room_id: int) -> tuple[str, datetime | None]:
    """The process holding the room's lease and its end, as the database has them (a
    thread): ("", None) when nobody holds it or the room never started."""
    close_old_connections()  # as the thread's other jobs do (`load`)
    row = Match.objects.filter(room_id=room_id).values_list("driver", "driver_until").first()
    return (row[0], row[1]) if row is not None else ("", None)


def bump_version(table: Table) -> None:
    """`table` changed outside a move (a touch): its version grows, in the row too."""
    table.match.version += 1
    Match.objects.filter(pk=table.match.pk).update(version=table.match.version)


def bot_seed_of(room_id: int) -> int | None:
    """The fixed seed of a match's bots (the daily challenge's), None for fresh randomness."""
    return Match.objects.filter(room_id=room_id).values_list("bot_seed", flat=True).first()


Lease = tuple[str, datetime | None, datetime | None]  # driver, its lease's end, paused at


def claim_leases(
    process: str, now: datetime, until: datetime
) -> tuple[dict[int, Lease], list[tuple[int, str, datetime | None]]]:
    """Renew `process`'s leases to `until` and take every playing match's whose lease is free
    (the bot driver's claim, a thread). Returns the free leases it could take as they stood
    (room -> driver, lease end, paused at) and every playing room's (room, driver, lease end)
    after the claim."""
    # A room everyone left is closed: nobody is there to watch its bots play on.
    playing = Match.objects.filter(status=Match.Status.PLAYING, room__status="playing")
    free = Q(driver_until__isnull=True) | Q(driver_until__lt=now)
    lost = {
        room_id: (driver, driver_until, paused_at)
        for room_id, driver, driver_until, paused_at in playing.filter(free)
        .exclude(driver=process)
        .values_list("room_id", "driver", "driver_until", "paused_at")
    }
    # The database settles two drivers reaching for the same lease: the rows are locked in
    # the order of their ids first, as a batch's fences lock them (write_all), then updated.
    # One UPDATE alone locked them in its plan's order: PostgreSQL found a deadlock with a
    # batch of several matches' moves, under load (docs/performance.md).
    with transaction.atomic():
        claimed = (
            playing.filter(Q(driver=process) | free)
            .order_by("pk")
            .select_for_update(of=("self",))
            .values_list("pk", flat=True)
        )
        Match.objects.filter(pk__in=list(claimed)).update(
            driver=process, driver_until=until, paused_at=None
        )
    return lost, list(playing.values_list("room_id", "driver", "driver_until"))


def release_leases(process: str, paused: datetime | None) -> list[int]:
    """Give up every lease `process` holds (`paused`: the moment of a graceful handover, or
    None); return their rooms."""
    mine = Match.objects.filter(driver=process)
    room_ids = list(mine.values_list("room_id", flat=True))
    mine.update(driver="", driver_until=None, paused_at=paused)
    return room_ids


def shift_for_pause(lost: dict[int, datetime], now: datetime) -> list[int]:
    """Each room in `lost` had no owner from its moment until `now`: move an away player's
    grace and a countdown on by that gap, a few statements per room in one transaction; a
    room that changed gets a new version. Returns those rooms."""
    changed = []
    with transaction.atomic():
        for room_id, lost_at in lost.items():
            gap = now - lost_at
            away = Player.objects.filter(
                match__room_id=room_id,
                user__isnull=False,
                left=False,
                stand_in=False,
                away_since__isnull=False,
            ).update(away_since=Least(F("away_since") + gap, Value(now, DateTimeField())))
            counting = Match.objects.filter(room_id=room_id, starts_at__gt=lost_at).update(
                starts_at=F("starts_at") + gap
            )
            if away or counting:
                Match.objects.filter(room_id=room_id).update(version=F("version") + 1)
                changed.append(room_id)
    return changed


# --------------------------------------------------------------------------- a match's start


@dataclass(frozen=True)
class NewPlayer:
    """A seat of a match that starts: its human (None: a bot), the name kept, the bot's level."""

    seat: int
    user: Any
    name: str
    bot_level: str


def create_match(
    room: Any,
    seed: int,
    secret: str,
    players: list[NewPlayer],
    number: int,
    state: dict[str, Any],
    starts_at: datetime,
    lease: dict[str, Any],
    scores: list[int] | None = None,
) -> Match:
    """The rows of a match that starts (inside the room's transaction): the match with its
    countdown and lease, a row per seat, and its first round dealt from `seed` (`secret`: the
    match's committed seeds' secret, tables.fairness; "" for a fixed deal). `scores`: the
    points of a first round the rules ended at its deal (L14+), kept as any round's are."""
    match = Match.objects.create(
        room=room,
        game=room.game,
        options=room.options,
        seed=seed,
        bot_seed=room.bot_seed,
        fair_secret=secret,
        starts_at=starts_at,
        **lease,
    )
    seated = Player.objects.bulk_create(
        Player(
            match=match,
            seat=p.seat,
            user=p.user,
            name=p.name,
            bot_level=p.bot_level,
            # A human's grace period runs from the start until his first socket (presence).
            away_since=match.created_at if p.user is not None else None,
        )
        for p in players
    )
    rnd = Round.objects.create(
        match=match,
        number=number,
        seed=seed,
        state=state,
        version=1,
        ended_at=timezone.now() if scores is not None else None,
    )
    if scores is not None:
        RoundScore.objects.bulk_create(
            RoundScore(round=rnd, player=p, seat=p.seat, points=scores[p.seat]) for p in seated
        )
    return match


def claimed_rooms(user: Any) -> list[int]:
    """The playing rooms where `user` claimed a bot's seat for the next deal."""
    rows = Player.objects.filter(claimed_by=user, match__status=Match.Status.PLAYING)
    return list(rows.values_list("match__room_id", flat=True))


def write_claims(players: list[Player]) -> None:
    """The seats a deal settled (inside the transaction that writes the deal)."""
    for player in players:
        Player.objects.filter(pk=player.pk).update(
            user_id=player.user_id,
            name=player.name,
            stand_in=player.stand_in,
            away_since=player.away_since,
            claimed_by=None,
            claimed_name="",
        )


# --------------------------------------------------------------------------- clocks
# What a decision clock reads (tables.clocks.Keeper, handed this module as its `rows`).


def moved_on(match_id: int, since: int, seats: list[int], optional: Collection[str]) -> bool:
    """Whether a seat other than `seats` moved (an `optional` move, the game's, aside) after
    version `since`: a turn that came back to the same seat passed in between."""
    return (
        ActionLog.objects.filter(match_id=match_id, version__gt=since, refused="")
        .exclude(seat__in=seats)
        .exclude(action__type__in=list(optional))
        .exists()
    )


def last_move_at(match_id: int) -> datetime | None:
    """When the match's last applied move was logged (None: no move yet)."""
    return (
        ActionLog.objects.filter(match_id=match_id, refused="")
        .order_by("-version")
        .values_list("created_at", flat=True)
        .first()
    )


def seats_acted(round_id: int, since: datetime | None) -> set[int]:
    """The seats whose people (not bots) acted in the round, since `since` (None: at all)."""
    actions = ActionLog.objects.filter(round_id=round_id, by_bot=False)
    if since is not None:
        actions = actions.filter(created_at__gte=since)
    return set(actions.values_list("seat", flat=True))


# --------------------------------------------------------------------------- presence and seats
# What a touch's change (tables.presence, the driver, closing a match) writes goes through
# these, so that the live path's every read and write of the database is in this module.


def save_player(player: Player, *fields: str) -> None:
    """Save these fields of a seat's row (inside a touch: its match row is locked)."""
    player.save(update_fields=list(fields))


def save_match(match: Match, *fields: str) -> None:
    """Save these fields of a match's row (inside a touch: it is locked)."""
    match.save(update_fields=list(fields))


def seat_of_user(room_id: int, user: Any) -> int | None | bool:
    """The seat `user` holds at the room's match, None if none, False if it never started."""
    match = Match.objects.filter(room_id=room_id).only("pk").first()
    if match is None:
        return False
    if user is None or not getattr(user, "is_authenticated", False):
        return None
    return (
        Player.objects.filter(match=match, user=user, left=False)
        .values_list("seat", flat=True)
        .first()
    )


def count_socket(player: Player, process: str, delta: int) -> None:
    """Count one more (`delta` 1) or one fewer (-1) socket of `player` in `process`, then
    recount the seat's connections (`recount`)."""
    if delta > 0:
        here, _ = Presence.objects.get_or_create(
            player=player, process=process, defaults={"seen_at": timezone.now()}
        )
        Presence.objects.filter(pk=here.pk).update(
            sockets=F("sockets") + delta, seen_at=timezone.now()
        )
    else:
        Presence.objects.filter(player=player, process=process, sockets__gt=0).update(
            sockets=F("sockets") + delta
        )
    recount(player)


def recount(player: Player) -> None:
    """A seat's open sockets: the sum of its presence rows, one per process (never a running
    count, which a process that went without uncounting would leave wrong for good)."""
    total = Presence.objects.filter(player=player).aggregate(n=Sum("sockets"))["n"] or 0
    Player.objects.filter(pk=player.pk).update(connections=total)
    player.connections = total


def drop_presence(process: str) -> list[Presence]:
    """Delete `process`'s presence rows (it stops); return them, with their players."""
    rows = list(Presence.objects.filter(process=process).select_related("player__match"))
    Presence.objects.filter(pk__in=[row.pk for row in rows]).delete()
    return rows


def bump_versions(match_ids: list[int]) -> None:
    """These matches changed outside their rooms: their versions grow."""
    Match.objects.filter(pk__in=match_ids).update(version=F("version") + 1)


def take_stale_presence(match: Match, cutoff: datetime, mine: str) -> list[Presence]:
    """Delete `match`'s presence rows not renewed since `cutoff` (their process died; never
    those of `mine`, the process asking), and return them."""
    rows = list(
        Presence.objects.filter(player__match=match, seen_at__lt=cutoff).exclude(process=mine)
    )
    Presence.objects.filter(pk__in=[row.pk for row in rows]).delete()
    return rows


def stale_rooms(cutoff: datetime, mine: str) -> set[int]:
    """The playing rooms with a presence row not renewed since `cutoff` by a process other
    than `mine`: one read for all."""
    rows = Presence.objects.filter(
        seen_at__lt=cutoff, player__match__status=Match.Status.PLAYING
    ).exclude(process=mine)
    return set(rows.values_list("player__match__room_id", flat=True))


def has_stale_presence(match: Match, cutoff: datetime, mine: str) -> bool:
    rows = Presence.objects.filter(player__match=match, seen_at__lt=cutoff)
    return rows.exclude(process=mine).exists()


def heartbeat(process: str) -> None:
    """Renew `process`'s presence rows."""
    Presence.objects.filter(process=process).update(seen_at=timezone.now())


def write_reactions(game: str, batch: reaction.Batch) -> list[ReactionProfile]:
    """Add each user's reaction times in `game` (tables.reaction) to his profile and flag it
    if it now calls for it. A room's tracker hands them here a few at a time.

    One transaction of two statements for the whole batch: the players' profiles read (locked
    on PostgreSQL; SQLite's transaction holds the file's write lock already), then all written
    by one upsert (and one insert first for players measured in the game for the first time).
    Per player through the ORM (a get-or-create, a locked get and a save) it cost 4.1 ms of CPU
    a batch of four on SQLite, on the thread the moves' own writes use (docs/performance.md).
    """
    if not batch:
        return []
    users = sorted(batch)
    saved = []
    try:
        with transaction.atomic():
            rows = _reaction_profiles(game, users)
            missing = [user_id for user_id in users if user_id not in rows]
            if missing:  # an empty profile each (another writer's wins), then read locked
                ReactionProfile.objects.bulk_create(
                    [ReactionProfile(user_id=user_id, game=game) for user_id in missing],
                    ignore_conflicts=True,
                )
                rows.update(_reaction_profiles(game, missing))
            now = timezone.now()
            for user_id in users:
                profile = rows[user_id]
                summary = reaction.summary_of(profile)
                for ms in batch[user_id]:
                    summary.add(ms)
                reaction.keep(profile, summary)
                if profile.flagged_at is None and settings.REACTION_FLAGS:
                    profile.flag = summary.verdict()
                    profile.flagged_at = now if profile.flag else None
                profile.updated_at = now
                saved.append(profile)
            with connection.cursor() as cursor:
                cursor.execute(*_reactions_upsert(saved))
    except Exception:  # a lost batch costs ten samples; the move it rode on is long done
        log.exception("writing reaction times failed")
        return []
    return saved


def _reaction_profiles(game: str, users: list[int]) -> dict[int, ReactionProfile]:
    """The users' profiles in `game` that exist, locked, by user id: one statement on Django's
    cursor, its values converted as the ORM's compiler converts them (its query compiled for
    each batch cost more than the statement)."""
    fields = ReactionProfile._meta.concrete_fields
    names = [field.attname for field in fields]
    lock = " FOR UPDATE" if connection.features.has_select_for_update else ""
    statement = (
        f"SELECT {', '.join(str(field.column) for field in fields)}"
        f" FROM {ReactionProfile._meta.db_table}"
        f" WHERE game = %s AND user_id IN ({', '.join(['%s'] * len(users))})"
        f" ORDER BY user_id{lock}"  # one lock order for every writer: no deadlock
    )
    convert = [_converters(field) for field in fields]  # (column, its converters) per field
    with connection.cursor() as cursor:
        cursor.execute(statement, [game, *users])
        rows = cursor.fetchall()
    profiles = {}
    for row in rows:
        values = []
        for value, (column, converters) in zip(row, convert, strict=True):
            for converter in converters:
                value = converter(value, column, connection)
            values.append(value)
        profile = ReactionProfile.from_db(connection.alias, names, values)
        profiles[profile.user_id] = profile
    return profiles


def _converters(field: Any) -> tuple[Any, list[Callable[..., Any]]]:
    """What the ORM applies to a column's value read from this database (the backend's, then
    the field's own: a JSON text decoded, an SQLite datetime parsed), and the column."""
    column = field.get_col(field.model._meta.db_table)
    return column, [*connection.ops.get_db_converters(column), *field.get_db_converters(connection)]


# What a batch writes of each profile (the rest is the moderator's: cleared_at, cleared_by).
_REACTION_COLUMNS = ("buckets", "count", "log_mean", "log_m2", "flag", "flagged_at", "updated_at")


def _reactions_upsert(profiles: list[ReactionProfile]) -> tuple[str, list[Any]]:
    """One INSERT .. ON CONFLICT DO UPDATE for every profile of a batch (SQLite and PostgreSQL
    both speak it); each row exists already, locked, so each is an update."""
    columns = ("user_id", "game", *_REACTION_COLUMNS)
    by_name = {field.attname: field for field in ReactionProfile._meta.concrete_fields}
    fields = [by_name[name] for name in columns]
    params: list[Any] = []
    for profile in profiles:
        params += [f.get_db_prep_save(getattr(profile, f.attname), connection) for f in fields]
    row = "(" + ", ".join(["%s"] * len(columns)) + ")"
    statement = (
        f"INSERT INTO {ReactionProfile._meta.db_table} ({', '.join(columns)})"
        f" VALUES {', '.join([row] * len(profiles))}"
        " ON CONFLICT (user_id, game) DO UPDATE SET "
        + ", ".join(f"{name} = excluded.{name}" for name in _REACTION_COLUMNS)
    )
    return statement, params


def touch(table: Table, change: Callable[[Table], bool]) -> tuple[Table, bool]:
    """Run `change` on a copy of `table` in a transaction on the locked match row (a thread).

    Returns the table after it and whether it changed something (then the version grew)."""
    close_old_connections()
    with transaction.atomic():
        match = Match.objects.select_for_update().get(pk=table.match.pk)
        if match.version != table.version:
            table = recover(match)  # changed behind the room's back: the truth first
        table = current.copy_of(table)
        changed = bool(change(table))
        if changed:
            bump_version(table)
    return table, changed


# --------------------------------------------------------------------------- the statements


def _statements() -> dict[str, str]:
    match, log_table, rnd = (m._meta.db_table for m in (Match, ActionLog, Round))
    return {
        "match": f"UPDATE {match} SET version = %s, starts_at = %s, status = %s,"
        " finished_at = %s WHERE id = %s AND version = %s",
        "version": f"UPDATE {match} SET version = %s WHERE id = %s AND version = %s",
        "log": f"INSERT INTO {log_table}"
        " (match_id, round_id, seat, action, version, by_bot, driver, refused, created_at,"
        " received, sent)"
        " VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
        "snapshot": f"UPDATE {rnd} SET state = %s, version = %s WHERE id = %s",
    }


SQL = _statements()


class Sql(Protocol):
    """The statements of one open transaction (Django's cursor, or an sqlite3 connection)."""

    def action_text(self, action: Action) -> Any: ...
    def now(self) -> Any: ...
    def update(self, statement: str, params: tuple[Any, ...]) -> int: ...
    def insert_logs(self, rows: list[tuple[Any, ...]]) -> None: ...
    def snapshot(self, round_pk: int, state: Any, version: int) -> None: ...


class _DjangoSql:
    """The statements on Django's connection, in its transaction."""

    def __init__(self, cursor: Any) -> None:
        self.cursor = cursor

    def action_text(self, action: Action) -> Any:
        return ActionLog._meta.get_field("action").get_db_prep_value(action, connection)

    def now(self) -> Any:
        return connection.ops.adapt_datetimefield_value(timezone.now())

    def update(self, statement: str, params: tuple[Any, ...]) -> int:
        self.cursor.execute(statement, params)
        return int(self.cursor.rowcount)

    def insert_logs(self, rows: list[tuple[Any, ...]]) -> None:
        self.cursor.executemany(SQL["log"], rows)

    def snapshot(self, round_pk: int, state: Any, version: int) -> None:
        Round.objects.filter(pk=round_pk).update(state=state, version=version)


def bound_on_server() -> psycopg.Cursor[Any]:
    """A cursor on Django's PostgreSQL connection of this thread (in its transaction, if one is
    open) that binds the values on the server, so that psycopg prepares a statement text run
    often (its prepare_threshold) or when asked: the backend then parses and plans the store's
    few texts once per connection, not for every batch. Django's own cursors bind on the client
    (each set of values a new text, parsed and planned again) and stay so for the rest of the
    site; measured in docs/performance.md."""
    connection.ensure_connection()
    return psycopg.Cursor(connection.connection)


class _RawSql:
    """The same statements on an sqlite3 connection (qmark parameters)."""

    _state = Round._meta.get_field("state")

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    # What Django's SQLite backend stores, without its wrappers (and the lookups of the
    # thread's connection they take): a JSONField without an encoder is json.dumps of the value
    # (adapt_json_value), an aware datetime its naive UTC text (adapt_datetimefield_value, with
    # the database's time zone UTC as settings.TIME_ZONE says). tests/tables check both.
    def action_text(self, action: Action) -> Any:
        return json.dumps(action)

    def now(self) -> str:
        return str(datetime.now(UTC).replace(tzinfo=None))

    def update(self, statement: str, params: tuple[Any, ...]) -> int:
        return self.db.execute(_qmark(statement), params).rowcount

    def insert_logs(self, rows: list[tuple[Any, ...]]) -> None:
        self.db.executemany(_qmark(SQL["log"]), rows)

    def snapshot(self, round_pk: int, state: Any, version: int) -> None:
        text = self._state.get_db_prep_value(state, connection)
        self.db.execute(_qmark(SQL["snapshot"]), (text, version, round_pk))


def _qmark(statement: str) -> str:
    return statement.replace("%s", "?")


# --------------------------------------------------------------------------- one batch


def write_all(entries: list[Entry], sql: Sql) -> list[Entry]:
    """Write `entries` in the open transaction `sql` speaks for; return those to apply again."""
    runs, again = _runs(entries)
    logs: list[tuple[Any, ...]] = []
    for items in runs:  # in the order of the matches' ids: one lock order for every writer
        if not _fence(sql, items):
            again += items
            continue
        logs += _write_match(items, sql)
    if logs:
        sql.insert_logs(logs)
    return again


def _runs(entries: list[Entry]) -> tuple[list[list[Entry]], list[Entry]]:
    """Each match's run of entries to write (`_chain`), in the order of the matches' ids, and
    the entries to apply again whatever the fences say (outdated, or after a run's break)."""
    groups: dict[int, list[Entry]] = {}
    for entry in entries:
        groups.setdefault(entry.table.match.pk, []).append(entry)
    runs: list[list[Entry]] = []
    again: list[Entry] = []
    for pk in sorted(groups):
        fresh = [e for e in groups[pk] if not e.outdated]
        again += [e for e in groups[pk] if e.outdated]
        items = _chain(fresh)
        again += fresh[len(items) :]
        if items:
            runs.append(items)
    return runs, again


def _chain(items: list[Entry]) -> list[Entry]:
    """The longest first run of `items` in which each starts at the version the one before left."""
    for n in range(1, len(items)):
        if items[n].before != items[n - 1].version:
            return items[:n]
    return items


def _fence(sql: Sql, items: list[Entry]) -> bool:
    """Move the match row to the entries' last version, if it still holds their first one.

    Plain moves change the version only (a deal, a round's end and the match's end are rare):
    then only the version is set, which leaves the row's status index alone.
    """
    applied = [e for e in items if not e.refused]
    match = (applied[-1] if applied else items[0]).table.match
    if not any(e.rare for e in applied):
        return sql.update(SQL["version"], (match.version, match.pk, items[0].before)) == 1
    ops = connection.ops  # a rare entry: Django's cursor (no store sends one the raw way)
    params = (
        match.version,
        ops.adapt_datetimefield_value(match.starts_at),
        match.status,
        ops.adapt_datetimefield_value(match.finished_at),
        match.pk,
        items[0].before,
    )
    return sql.update(SQL["match"], params) == 1


def _write_match(items: list[Entry], sql: Sql) -> list[tuple[Any, ...]]:
    """The log rows of one match's entries, and what rare changes they made (ORM)."""
    last = _last_applied(items)
    if last is not None:
        for entry in items:
            if entry.rare and not entry.refused:
                _write_rare(entry)
        if (snapshot := _snapshot(items)) is not None:
            sql.snapshot(*snapshot)
        if any(e.winners is not None for e in items):
            # Inside the transaction that makes the end durable: the lobby finishes the room.
            signals.match_finished.send(sender=Match, match=last.table.match)
    return _log_rows(items, sql)


def _log_rows(items: list[Entry], sql: Sql) -> list[tuple[Any, ...]]:
    now = sql.now()
    return [
        (
            entry.table.match.pk,
            entry.played_in.pk if entry.played_in is not None else None,
            entry.seat,
            sql.action_text(entry.action),
            entry.version,
            entry.by_bot,
            entry.driver,
            entry.refused,
            now,
            entry.received,
            entry.sent,
        )
        for entry in items
    ]


def _last_applied(items: list[Entry]) -> Entry | None:
    return next((e for e in reversed(items) if not e.refused), None)


def _snapshot(items: list[Entry]) -> tuple[int, Any, int] | None:
    """(round, state, version) if an applied entry of `items` asks for its round's snapshot."""
    last = _last_applied(items)
    if last is None or not any(e.snapshot and not e.refused for e in items):
        return None
    table = last.table
    if table.round is None:
        return None
    return table.round.pk, table.game.dump(table.state), table.match.version


def _write_rare(entry: Entry) -> None:
    """A deal, a round's end, the match's end: through the ORM (never on the raw path)."""
    game = entry.table.game
    if entry.new_round is not None and entry.played_in is not None:
        Round.objects.filter(pk=entry.played_in.pk).update(
            state=game.dump(entry.closed_state), version=entry.before
        )
        entry.new_round.state = game.dump(entry.table.state)
        entry.new_round.save()
        entry.new_round.state = None
        if entry.claims:
            seated = claims.seated(entry.table, entry.claims)
            write_claims(seated)  # the bot leaves, the claimant sits
            claims.announce(entry.table, seated)
    if entry.scores is not None:
        _record_scores(entry, entry.scores)
    if entry.winners is not None:
        Player.objects.filter(match_id=entry.table.match.pk, seat__in=entry.winners).update(
            won=True
        )


def _record_scores(entry: Entry, scores: list[int]) -> None:
    rnd = entry.table.round  # a deal can end at once (L14+): its scores belong to that round
    if rnd is None:
        return
    rnd.ended_at = timezone.now()
    rnd.end_reason = entry.end_reason
    Round.objects.filter(pk=rnd.pk).update(ended_at=rnd.ended_at, end_reason=rnd.end_reason)
    RoundScore.objects.bulk_create(
        RoundScore(round=rnd, player_id=p.pk, seat=p.seat, points=scores[p.seat])
        for p in entry.table.players
    )


# --------------------------------------------------------------------------- the stores


class OrmStore:
    """Every batch through Django's connection of the calling thread."""

    in_loop = False

    def __init__(self) -> None:
        # Transactions written each way (tests check which way a batch went).
        self.written: Counter[str] = Counter()

    def write(self, entries: list[Entry]) -> list[Entry]:
        self.written["django"] += 1
        with transaction.atomic(), connection.cursor() as cursor:
            return write_all(entries, _DjangoSql(cursor))

    def write_in_loop(self, entries: list[Entry]) -> list[Entry] | None:
        return None

    def write_soon(self, entries: list[Entry], done: Done) -> bool:
        return False

    def shut(self) -> None:
        pass


class PostgresStore(OrmStore):
    """Every batch of plain moves in one statement; the rare as OrmStore.

    A batch of one match's moves without a snapshot (nearly every batch at 10 x 4: about one
    commit a move, measured) is `one_statement`: its fence and its log rows. Any other
    (several matches, a snapshot) is `FENCED`: it moves each match row of the batch to its
    run's last version if it still holds the run's first one (the fences), inserts the log rows
    and writes the snapshots of the matches whose fence held, and answers which those are. Each
    is one implicit transaction (autocommit): one round trip to the server, whatever the number
    of matches, instead of BEGIN, a fence per match, the rows and COMMIT. A stale fence sends
    back that match's run only, as in `write_all`; a failure leaves none of the batch written.

    The server loop sends those statements itself (`write_soon`) on a connection of its own
    (`LoopConnection`), and reads the answer when its socket is readable: no batch goes to the
    database thread and back (measured: that hop and the thread's cursor were most of what a
    move cost two processes above one on SQLite, docs/performance.md). Until that connection
    is open, after it broke, and for a rare change, the batch goes to the thread (`write`,
    Django's connection), as before.
    """

    def __init__(self) -> None:
        super().__init__()
        self.loop_db: LoopConnection | None = None  # made at the first batch, in the loop
        self.connecting: asyncio.Task[None] | None = None
        self.closed = False

    def write(self, entries: list[Entry]) -> list[Entry]:
        if connection.in_atomic_block or any(e.rare for e in entries):
            return super().write(entries)
        runs, again = _runs(entries)
        if not runs:
            return again
        self.written["postgres"] += 1
        if len(runs) == 1 and _snapshot(runs[0]) is None:
            # One match's moves, the common batch: the one-match statement, cheaper for the
            # backend than the batch's (docs/performance.md, 6 December, 15:30).
            return again if write_one(runs[0]) else again + runs[0]
        fenced = write_fenced(runs)
        return again + _unfenced(runs, fenced)

    def write_soon(self, entries: list[Entry], done: Done) -> bool:
        if any(e.rare for e in entries):
            return False
        db = self.loop_db
        if db is None or db.broken:
            self._connect()
            return False
        runs, again = _runs(entries)
        if not runs:
            asyncio.get_running_loop().call_soon(done, again, None)
            return True
        self.written["postgres"] += 1
        self.written["postgres-loop"] += 1
        if len(runs) == 1 and _snapshot(runs[0]) is None:
            items = runs[0]
            statement, params = one_params(items)

            def one(rows: list[tuple[Any, ...]] | int | None, error: BaseException | None) -> None:
                # All the rows, or none (the fence failed).
                done(None if error else again if rows == len(items) else again + items, error)

            db.send(statement, params, one)
            return True

        def several(rows: list[tuple[Any, ...]] | int | None, error: BaseException | None) -> None:
            fenced = {int(pk) for (pk,) in rows} if isinstance(rows, list) else set()
            done(None if error else again + _unfenced(runs, fenced), error)

        db.send(FENCED, fenced_params(runs), several)
        return True

    def _connect(self) -> None:
        """Open the loop's connection in the background (the batch at hand goes to the thread)."""
        if self.closed or (self.connecting is not None and not self.connecting.done()):
            return
        # In a context of its own: the connection's reader (and every answer it reads) runs in
        # a copy of it, not in the one of whichever move asked first (its language, say).
        loop = asyncio.get_running_loop()
        self.connecting = loop.create_task(self._open(), context=contextvars.Context())

    async def _open(self) -> None:
        try:
            db = await LoopConnection.open()
        except Exception:
            log.exception("the loop's PostgreSQL connection could not be opened")
            return
        if self.closed:
            db.close()
            return
        if self.loop_db is not None:
            self.loop_db.close()
        self.loop_db = db

    def shut(self) -> None:
        self.closed = True
        if self.connecting is not None:
            with contextlib.suppress(RuntimeError):  # its loop has ended (a test's)
                self.connecting.cancel()
        db, self.loop_db = self.loop_db, None
        if db is not None:
            db.close()


def _unfenced(runs: list[list[Entry]], fenced: set[int]) -> list[Entry]:
    """The runs whose match's fence did not hold (to apply again)."""
    return [e for items in runs if items[0].table.match.pk not in fenced for e in items]


def one_params(items: list[Entry]) -> tuple[str, list[Any]]:
    """`one_statement` for one match's chained plain moves (no snapshot), and its values."""
    last = _last_applied(items)
    match = (last or items[0]).table.match
    rows = _log_rows(items, _DjangoSql(None))
    params: list[Any] = [match.version, match.pk, items[0].before]
    for row in rows:
        params += row[1:]  # the match's id comes from the fence
    return one_statement(len(rows)), params


def write_one(items: list[Entry]) -> bool:
    """Write one match's chained plain moves, without a snapshot, in one statement on Django's
    connection (in autocommit): False if the match row had moved on, and then nothing was
    written."""
    statement, params = one_params(items)
    with connection.wrap_database_errors, bound_on_server() as cursor:
        cursor.execute(statement, params, prepare=True)
        return bool(cursor.rowcount == len(items))  # all the rows, or none (the fence failed)


def one_statement(rows: int) -> str:
    """The fence and `rows` log rows of one match in one statement (PostgreSQL): one text per
    number of rows, each prepared once a connection."""
    match, log_table = Match._meta.db_table, ActionLog._meta.db_table
    row = (
        "(%s::bigint, %s::smallint, %s::jsonb, %s::integer, %s::boolean, %s::text, %s::text,"
        " %s::timestamptz, %s::bigint, %s::bigint)"
    )
    return (
        f"WITH fence AS (UPDATE {match} SET version = %s WHERE id = %s AND version = %s"
        " RETURNING id)"
        f" INSERT INTO {log_table}"
        " (match_id, round_id, seat, action, version, by_bot, driver, refused, created_at,"
        " received, sent)"
        " SELECT fence.id, r.round_id, r.seat, r.action, r.version, r.by_bot, r.driver, r.refused,"
        " r.created_at, r.received, r.sent FROM fence, (VALUES " + ", ".join([row] * rows) + ")"
        " AS r(round_id, seat, action, version, by_bot, driver, refused, created_at, received,"
        " sent)"
    )


def fenced_params(runs: list[list[Entry]]) -> list[Any]:
    """The values of `FENCED` for the runs of plain moves of one or several matches (one run a
    match, in the order of their ids)."""
    sql = _DjangoSql(None)
    fences: tuple[list[Any], ...] = ([], [], [])  # match, its new version, the one it must hold
    logs: tuple[list[Any], ...] = tuple([] for _ in range(10))  # the log rows, column by column
    snaps: tuple[list[Any], ...] = ([], [], [], [])  # match, round, state, version
    for items in runs:
        last = _last_applied(items)
        match = (last or items[0]).table.match
        for column, value in zip(fences, (match.pk, match.version, items[0].before), strict=True):
            column.append(value)
        for row in _log_rows(items, sql):
            for column, value in zip(logs, row[:8] + row[9:], strict=True):
                column.append(value)  # created_at (row[8]) is the batch's: one value
        if (snapshot := _snapshot(items)) is not None:
            round_pk, state, version = snapshot
            for column, value in zip(
                snaps,
                (match.pk, round_pk, _STATE.get_db_prep_value(state, connection), version),
                strict=True,
            ):
                column.append(value)
    return [*fences, sql.now(), *logs, *snaps]  # in the order of the statement's %s


def write_fenced(runs: list[list[Entry]]) -> set[int]:
    """Write the runs of plain moves of one or several matches in one statement on Django's
    connection, in autocommit; return the matches whose fence held (the others' rows and
    snapshots were not written)."""
    with connection.wrap_database_errors, bound_on_server() as cursor:
        cursor.execute(FENCED, fenced_params(runs), prepare=True)
        return {pk for (pk,) in cursor.fetchall()}


def _fenced_statement() -> str:
    """The fences, log rows and snapshots of a batch's matches in one statement (PostgreSQL).

    Each list of values is one array (unnest): one text whatever the batch's size, prepared once
    a connection. The match rows are locked in the order of their ids first (`locked`: its rows
    sorted, then locked), as `claim_leases` and `write_all` lock them: an UPDATE alone locks
    them in its plan's order, and two writers could then deadlock. A row that moved on after
    the statement's snapshot is compared again once locked (READ COMMITTED), as an UPDATE's is.
    """
    match, log_table, rnd = (m._meta.db_table for m in (Match, ActionLog, Round))
    return (
        "WITH locked AS ("
        f"SELECT m.id, f.version FROM {match} AS m"
        " JOIN unnest(%s::bigint[], %s::integer[], %s::integer[]) AS f(id, version, before)"
        " ON m.id = f.id AND m.version = f.before ORDER BY m.id FOR UPDATE OF m),"
        f" fence AS (UPDATE {match} AS m SET version = locked.version FROM locked"
        " WHERE m.id = locked.id RETURNING m.id),"
        f" logs AS (INSERT INTO {log_table}"
        " (match_id, round_id, seat, action, version, by_bot, driver, refused, created_at,"
        " received, sent)"
        " SELECT r.match_id, r.round_id, r.seat, r.action, r.version, r.by_bot, r.driver,"
        " r.refused, %s::timestamptz, r.received, r.sent"
        " FROM unnest(%s::bigint[], %s::bigint[], %s::smallint[], %s::jsonb[], %s::integer[],"
        " %s::boolean[], %s::text[], %s::text[], %s::bigint[], %s::bigint[])"
        " WITH ORDINALITY AS r(match_id, round_id, seat, action, version, by_bot, driver,"
        " refused, received, sent, n)"
        " JOIN fence ON fence.id = r.match_id ORDER BY r.n),"
        f" snaps AS (UPDATE {rnd} AS d SET state = s.state, version = s.version"
        " FROM unnest(%s::bigint[], %s::bigint[], %s::jsonb[], %s::integer[])"
        " AS s(match_id, id, state, version)"
        " JOIN fence ON fence.id = s.match_id WHERE d.id = s.id)"
        " SELECT id FROM fence"
    )


FENCED = _fenced_statement()
_STATE = Round._meta.get_field("state")


# What a statement sent by the loop answers: the rows of one that returns some, or the number
# of rows one wrote; or the error.
Answer = Callable[[list[tuple[Any, ...]] | int | None, BaseException | None], None]


class LoopConnection:
    """A PostgreSQL connection the server loop writes on itself, in autocommit, one statement
    at a time (the writer sends a batch only once the one before has been answered).

    Only libpq's non-blocking calls: the statement is sent at once (prepared the first time
    its text is sent on this connection: Parse, then the same Bind and Execute every time,
    as `bound_on_server`'s cursors), and the answer is read by a reader on the connection's
    socket, registered once. No thread, no future, no task a batch. A broken connection fails
    the statement in flight and every later one until the store opens another.
    """

    def __init__(self, conn: psycopg.AsyncConnection[Any]) -> None:
        self.conn = conn  # holds the libpq connection
        self.pgconn = conn.pgconn
        self.pgconn.nonblocking = 1
        self.dumps = Transformer(conn)  # Django's adapters (its connection parameters' context)
        self.prepared: set[bytes] = set()
        self.names: dict[str, tuple[bytes, bytes]] = {}  # each statement's name and libpq text
        self.broken = False
        self.closed = False
        self.loop = asyncio.get_running_loop()
        self.fd = self.pgconn.socket
        # The statement in flight: its answer, its prepared name (then its values) while it is
        # being prepared, and the last result read.
        self.answer: Answer | None = None
        self.then: tuple[bytes, Sequence[Buffer | None]] | None = None
        self.result: Any = None
        self.loop.add_reader(self.fd, self._readable)

    @classmethod
    async def open(cls) -> LoopConnection:
        """A new connection to Django's database, with its parameters and adapters."""
        params = dict(connection.get_connection_params())
        for django_only in ("cursor_factory", "prepare_threshold"):
            params.pop(django_only, None)
        return cls(await psycopg.AsyncConnection.connect(**params, autocommit=True))

    def send(self, statement: str, params: list[Any], answer: Answer) -> None:
        """Send `statement` with `params`; `answer` is called in the loop with its outcome."""
        if self.broken or self.answer is not None:
            raise psycopg.OperationalError("the loop's connection is broken or busy")
        name, query = self._prepared_name(statement)
        values = self.dumps.dump_sequence(params, [PyFormat.TEXT] * len(params))
        try:
            if name in self.prepared:
                self.pgconn.send_query_prepared(name, values)
            else:
                # No types given: the statement's casts and columns say them, and every value
                # goes as text.
                self.pgconn.send_prepare(name, query)
                self.then = (name, values)
            self._flush()
        except Exception as error:
            self._break(error)
            raise
        self.answer = answer

    def _prepared_name(self, statement: str) -> tuple[bytes, bytes]:
        """The name this connection prepares `statement` under, and its text with libpq's
        numbered parameters (the store's statements have no other %)."""
        if (known := self.names.get(statement)) is None:
            parts = statement.split("%s")
            query = parts[0] + "".join(f"${n}{part}" for n, part in enumerate(parts[1:], 1))
            known = self.names[statement] = (f"live_{len(self.names)}".encode(), query.encode())
        return known

    def _flush(self) -> None:
        if self.pgconn.flush():  # the socket's buffer is full: the rest once it is writable
            self.loop.add_writer(self.fd, self._writable)

    def _writable(self) -> None:
        try:
            if not self.pgconn.flush():
                self.loop.remove_writer(self.fd)
        except Exception as error:
            self._fail(error)

    def _readable(self) -> None:
        try:
            self.pgconn.consume_input()
            while not self.pgconn.is_busy():
                result = self.pgconn.get_result()
                if result is not None:
                    self.result = result
                    continue
                if self.answer is None:
                    return  # nothing in flight (a notice, a parameter's status)
                self._answered(self.result)
                if self.answer is None or self.then is not None:
                    return
        except Exception as error:
            self._fail(error)

    def _answered(self, result: Any) -> None:
        self.result = None
        if result is None or result.status not in (ExecStatus.COMMAND_OK, ExecStatus.TUPLES_OK):
            message = result.error_message.decode(errors="replace") if result else "no result"
            self._reply(None, psycopg.DatabaseError(message))
            return
        if self.then is not None:  # prepared: now the statement itself
            name, values = self.then
            self.then = None
            self.prepared.add(name)
            try:
                self.pgconn.send_query_prepared(name, values)
                self._flush()
            except Exception as error:
                self._fail(error)
            return
        if result.status == ExecStatus.TUPLES_OK:
            rows = [
                tuple(result.get_value(i, j) for j in range(result.nfields))
                for i in range(result.ntuples)
            ]
            self._reply(rows, None)
        else:
            self._reply(int(result.command_tuples or 0), None)

    def _reply(self, rows: list[tuple[Any, ...]] | int | None, error: BaseException | None) -> None:
        answer, self.answer, self.then = self.answer, None, None
        if answer is not None:
            answer(rows, error)

    def _fail(self, error: BaseException) -> None:
        self._break(error)
        self._reply(None, error)

    def _break(self, error: BaseException) -> None:
        if not self.broken:
            log.error("the loop's PostgreSQL connection broke: %s", error)
        self.close()

    def close(self) -> None:
        """Close the connection at once, from any thread, its loop running or not; once (its
        socket's number may be a newer connection's by a second call)."""
        if self.closed:
            return
        self.closed = self.broken = True
        with contextlib.suppress(Exception):  # the loop has ended (a test's)
            self.loop.remove_reader(self.fd)
            self.loop.remove_writer(self.fd)
        self.pgconn.finish()


class Busy(Exception):
    """Another connection holds the SQLite file's write lock (a connection that does not wait)."""


class SqliteStore(OrmStore):
    """Plain moves on sqlite3 connections of the store's own; the rare ones as `OrmStore`."""

    in_loop = True

    def __init__(self, name: str) -> None:
        super().__init__()
        self.name = name
        self.here = threading.local()  # each thread's connection that waits for the lock
        self.loop_db: RawSqlite | None = None  # the loop's, which never waits (made at first use)
        self.opened: list[RawSqlite] = []
        self.opening = threading.Lock()

    def _connection(self, timeout: float) -> RawSqlite:
        raw = RawSqlite(self.name, timeout)
        with self.opening:
            self.opened.append(raw)
        return raw

    def write(self, entries: list[Entry]) -> list[Entry]:
        # Inside a transaction of Django's own (a move without a loop): it holds the lock.
        if connection.in_atomic_block or any(e.rare for e in entries):
            return super().write(entries)
        raw: RawSqlite | None = getattr(self.here, "raw", None)
        if raw is None or raw.closed:
            raw = self.here.raw = self._connection(_sqlite_timeout())
        self.written["raw"] += 1
        return raw.write(entries)

    def write_in_loop(self, entries: list[Entry]) -> list[Entry] | None:
        if any(e.rare for e in entries):
            return None
        if self.loop_db is None or self.loop_db.closed:
            self.loop_db = self._connection(0)
        try:
            again = self.loop_db.write(entries)
        except Busy:
            self.written["busy"] += 1
            return None  # another connection writes: the thread waits for the lock
        self.written["raw"] += 1
        self.written["loop"] += 1
        return again

    def shut(self) -> None:
        with self.opening:
            opened, self.opened = self.opened, []
        for raw in opened:
            raw.shut()
        self.loop_db = None


def _sqlite_timeout() -> float:
    """How long Django's SQLite connections wait for the write lock (seconds)."""
    return float(connection.settings_dict.get("OPTIONS", {}).get("timeout", 5))


class RawSqlite:
    """An sqlite3 connection to the database file for batches of plain moves.

    It takes the write lock as Django's connections here do (BEGIN IMMEDIATE) and runs in WAL
    mode with synchronous=NORMAL as they do. Its commits leave the WAL file to a
    `Checkpointer` (SQLITE_CHECKPOINT_SECONDS; at 0 they checkpoint it as Django's do). With a
    timeout of 0 it never waits: `write` raises `Busy` when another connection holds the lock.
    """

    def __init__(self, name: str, timeout: float) -> None:
        # Used by one thread at a time; closed from whichever ends it (a test's teardown).
        self.db = sqlite3.connect(
            name, timeout=timeout, isolation_level=None, check_same_thread=False
        )
        self.db.execute("PRAGMA synchronous = NORMAL")
        self.db.execute("PRAGMA foreign_keys = ON")  # as Django's connections check them
        self.name = name
        self.closed = False
        self.checkpointer: Checkpointer | None = None
        every = settings.SQLITE_CHECKPOINT_SECONDS
        if every > 0:
            self.db.execute("PRAGMA wal_autocheckpoint = 0")
            # The checkpointer's own connection waits as Django's do, whoever owns this one.
            self.checkpointer = Checkpointer(name, _sqlite_timeout(), every)

    def write(self, entries: list[Entry]) -> list[Entry]:
        db = self.db
        try:
            db.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as error:
            if error.sqlite_errorcode & 0xFF == sqlite3.SQLITE_BUSY:  # SQLITE_BUSY_*: the same
                raise Busy from error
            raise
        try:
            again = write_all(entries, _RawSql(db))
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        return again

    def shut(self) -> None:
        self.closed = True
        self.db.close()
        if self.checkpointer is not None:
            self.checkpointer.stop()


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


def sqlite_file() -> str | None:
    """The default database's file, if it is an SQLite file (not one in memory)."""
    if connection.vendor != "sqlite":
        return None
    name = str(connection.settings_dict["NAME"])
    if not name or "memory" in name:
        return None  # an in-memory database is not shared between connections
    return name


def store() -> Store:
    """The store of the default database: one per kind of database, no flag to choose it
    (an SQLite database in memory, which other connections cannot share: the ORM's)."""
    if connection.vendor == "postgresql":
        return PostgresStore()
    name = sqlite_file()
    return OrmStore() if name is None else SqliteStore(name)


# --------------------------------------------------------------------------- group commit
#
# Group commit: one writer per server loop writes every pending entry of every room at once.
#
# A move is acknowledged to its sender and pushed to anyone only once its batch is durable: a
# crash loses nothing anybody saw. The writer has no task of its own. A store that can commit a
# batch in the loop itself (tables.live.store.SqliteStore, plain moves) does so once the loop has
# read what this turn brought (every move in it joins the batch); otherwise the first move
# submitted goes to the database thread at once. Either way what comes in meanwhile waits as the
# next batch, and the answer comes back as one callback in the loop (`_written`), which publishes
# the batch, acknowledges its moves and starts the next one (in the database thread: first, so
# that its round trip overlaps the pushes).

Done = Callable[[Any, BaseException | None], None]
# Seconds between two checks of the writer thread's connection (Django's close_old_connections).
CHECK_EVERY = 1.0


class OneThread(concurrent.futures.Executor):
    """One thread that runs what it is handed, in order; started on first use.

    `call(fn, arg, done)` is the writer's way: the thread runs `fn(arg)` and then `done(result,
    error)`, with no Future between them (a ThreadPoolExecutor's futures, conditions and
    semaphore were a good part of each batch's cost in the thread, measured:
    docs/performance.md). `submit` is the Executor's, for `loop.run_in_executor`.
    """

    def __init__(self, name: str) -> None:
        self.name = name
        self.jobs: queue.SimpleQueue[tuple[Callable[[Any], Any], Any, Done]] = queue.SimpleQueue()
        self.thread: threading.Thread | None = None
        self.starting = threading.Lock()

    def call(self, fn: Callable[[Any], Any], arg: Any, done: Done) -> None:
        if self.thread is None:
            with self.starting:
                if self.thread is None:
                    self.thread = threading.Thread(target=self._run, name=self.name, daemon=True)
                    self.thread.start()
        self.jobs.put((fn, arg, done))

    def submit[T](
        self, fn: Callable[..., T], /, *args: Any, **kwargs: Any
    ) -> concurrent.futures.Future[T]:
        future: concurrent.futures.Future[T] = concurrent.futures.Future()

        def run(_: Any) -> None:
            if not future.set_running_or_notify_cancel():
                return  # cancelled while it waited
            try:
                future.set_result(fn(*args, **kwargs))
            except BaseException as error:
                future.set_exception(error)

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


# One thread for every database job of the live rooms: a batch, a touch, a rebuild, a lease.
DB = OneThread("live-rooms-db")


async def in_db_thread[T](fn: Callable[..., T], *args: Any) -> T:
    """`fn(*args)` in the live rooms' database thread, which never waits for the loop (Channels'
    one database thread may: a bot driver's step waits there for a touch of the loop's)."""
    return await asyncio.get_running_loop().run_in_executor(DB, fn, *args)


class Writer:
    """The one writer of a loop: flushes every pending entry in one transaction, in order.

    `published(entries)` is called in the loop with the entries of each batch that are durable
    (refused plays included), before their senders are answered.
    """

    def __init__(self, store: Store, published: Callable[[list[Entry]], None]) -> None:
        self.store = store
        self.published = published
        self.pending: list[Entry] = []
        self.writing = False
        self.waiting: asyncio.Handle | None = None
        # When the thread last let Django check its connection (close_old_connections: with
        # CONN_HEALTH_CHECKS, one more round trip to the database), and whether a batch failed
        # since (then the next one checks first).
        self.checked = float("-inf")
        self.failed = False

    def submit(self, entry: Entry) -> None:
        self.pending.append(entry)
        if self.writing or self.waiting is not None:
            return
        loop = asyncio.get_running_loop()
        delay = settings.ACTION_FLUSH_DELAY
        if delay:  # gather what arrives in the next moments
            self.waiting = loop.call_later(delay, self._flush)
        elif self.store.in_loop:
            self.waiting = loop.call_soon(self._flush)  # after this turn's other frames
        else:
            self._flush()

    def _flush(self) -> None:
        self.waiting = None
        if not self.pending:
            self.writing = False
            return
        batch, self.pending = self.pending, []
        self.writing = True
        loop = asyncio.get_running_loop()
        try:
            again = self.store.write_in_loop(batch)
            # Or sent by the loop, answered by a callback of the loop's (PostgreSQL).
            sent = again is None and self.store.write_soon(batch, partial(self._written, batch))
        except Exception as failure:
            loop.call_soon(self._written, batch, None, failure)
            return
        if sent:
            return
        if again is not None:
            loop.call_soon(self._written, batch, again, None)
            return

        def back(stale: list[Entry] | None, error: BaseException | None) -> None:
            # RuntimeError: the loop has ended (a test's); nobody waits for these any more.
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(self._written, batch, stale, error)

        DB.call(self._write, batch, back)

    def _write(self, batch: list[Entry]) -> list[Entry]:
        # Checked once a second, not once a batch: a batch is a few moves, and the check was one
        # round trip of the four or five each batch makes on PostgreSQL (docs/performance.md).
        now = time.monotonic()
        if self.failed or now - self.checked >= CHECK_EVERY:
            self.failed = False
            self.checked = now
            close_old_connections()
        try:
            return self.store.write(batch)
        except Exception:
            self.failed = True  # a broken connection is closed before the next batch
            raise

    def _written(
        self, batch: list[Entry], stale: list[Entry] | None, error: BaseException | None
    ) -> None:
        if not self.store.in_loop:
            # The next batch (what came in while this one was written) goes to the database
            # thread first: its round trip overlaps this batch's pushes, drawn here in the
            # loop, instead of waiting for them. Its answer comes back as a later callback, so
            # this batch is still published and acknowledged before it.
            self._flush()
            self._settle(batch, stale, error)
            return
        try:
            self._settle(batch, stale, error)
        finally:
            self._flush()  # the next batch, written here in the loop, after this one's pushes

    def _settle(
        self, batch: list[Entry], stale: list[Entry] | None, error: BaseException | None
    ) -> None:
        if error is not None or stale is None:
            log.error("writing %d moves failed", len(batch), exc_info=error)
            for entry in batch:
                if not entry.outdated:
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
            if not entry.outdated:
                entry.room.stale = True  # rebuilt from the database before its move again
        try:
            self.published([e for e in batch if id(e) not in retry])
        except Exception:  # a push that fails must not lose the acknowledgements
            log.exception("push failed")
        for entry in batch:
            if entry.future is not None and not entry.future.done():
                entry.future.set_result(id(entry) not in retry)  # False: apply it again
