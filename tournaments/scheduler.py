"""The tournaments' clock: every action an event needs, when it is due, restart-safe.

Each tournament keeps one durable timer, `next_action_at`. `run_due()` does the action of
every tournament whose timer is due, each in one transaction on its locked row, and each
action is idempotent (it looks at the rows, not at what this process remembers): the
reminder before the start, the start, seating a Swiss round, scoring it when its tables have
all ended (tables' `match_finished` sets the timer to now), the break, the finish; an Arena
ticks every second while it runs. Who runs it: a loop in every server process
(`ensure_started`, from cardgames.lifecycle at the process's start), and every tournament page
or list that connects or loads (`run_due`), so that a restart loses nothing: the schedule
lives in the database, and the first process up re-arms it.
"""

from __future__ import annotations

import asyncio
import logging
from collections import Counter
from collections.abc import Hashable
from datetime import datetime, timedelta
from typing import Any, cast

from asgiref.sync import sync_to_async
from django.conf import settings
from django.db import close_old_connections, transaction
from django.db.models import Sum
from django.utils import timezone

from games.registry import GAMES
from lobby import services as lobby
from tables.models import Match, Player, RoundScore
from tournaments import scoring, seating, signals
from tournaments.models import Entry, TableSeat, Tournament, TournamentRound, TournamentTable
from tournaments.services import changed, deal_digests, deal_seed, match_options

log = logging.getLogger(__name__)

STARTING_SOON = 300  # seconds before the start: `starting_soon`
# While a Swiss round plays, look again this often even if no table's end was heard.
PLAYING_POLL = 5.0


def run_due(now: datetime | None = None) -> list[int]:
    """Act for every tournament whose timer is due; return their ids."""
    now = now or timezone.now()
    due = list(
        Tournament.objects.filter(next_action_at__lte=now)
        .order_by("next_action_at")
        .values_list("pk", flat=True)[:50]
    )
    done = []
    for pk in due:
        try:
            act(pk, now)
            done.append(pk)
        except Exception:  # one event's failure must not stop the others; it stays due
            log.exception("tournament %s: its action failed; it stays due", pk)
    return done


def act(tournament_id: int, now: datetime | None = None) -> None:
    """Do what tournament `tournament_id` needs now, if anything (idempotent)."""
    now = now or timezone.now()
    with transaction.atomic():
        t = Tournament.objects.select_for_update().filter(pk=tournament_id).first()
        if t is None or t.next_action_at is None or t.next_action_at > now:
            return  # another process did it
        version = t.version
        if t.status == Tournament.Status.SCHEDULED:
            _before_start(t, now)
        elif t.status == Tournament.Status.RUNNING:
            if t.format == Tournament.Format.SWISS:
                _swiss(t, now)
            else:
                _arena(t, now)
        else:
            t.next_action_at = None
        t.save()
        if t.version != version:
            changed(t.pk)  # the pages are told after commit


def _set(t: Tournament, when: datetime | None) -> None:
    t.next_action_at = when


# --------------------------------------------------------------------------- start


def _before_start(t: Tournament, now: datetime) -> None:
    if now < t.starts_at:
        if not t.reminded:
            t.reminded = True
            users = _users(t)
            transaction.on_commit(
                lambda: signals.starting_soon.send(sender=Tournament, tournament=t, user_ids=users)
            )
        _set(t, t.starts_at)
        return
    active = list(t.entries.filter(status=Entry.Status.ACTIVE))
    if len(active) < 2:
        t.status = Tournament.Status.CANCELLED
        t.finished_at = now
        _set(t, None)
        t.version += 1
        return
    t.status = Tournament.Status.RUNNING
    t.started_at = now
    t.version += 1
    if t.format == Tournament.Format.ARENA:
        t.ends_at = now + timedelta(minutes=t.minutes or 0)
        t.entries.filter(status=Entry.Status.ACTIVE).update(waiting_since=now)
        _arena(t, now)
    else:
        _seat_swiss_round(t, 1, now)


def _users(t: Tournament) -> list[int]:
    return list(
        t.entries.filter(status=Entry.Status.ACTIVE, user__isnull=False).values_list(
            "user_id", flat=True
        )
    )


# --------------------------------------------------------------------------- Swiss


def _swiss(t: Tournament, now: datetime) -> None:
    rnd = t.round_set.filter(number=t.current_round).first()
    if rnd is None or rnd.status == TournamentRound.Status.SCORED:
        _seat_swiss_round(t, t.current_round + 1, now)
        return
    tables = list(rnd.tables.select_related("room"))
    for table in tables:
        if table.status == TournamentTable.Status.PLAYING:
            _collect(table, now)
    if any(table.status == TournamentTable.Status.PLAYING for table in tables):
        _set(t, now + timedelta(seconds=PLAYING_POLL))  # the tables' ends set it sooner
        return
    _score_swiss_round(t, rnd, tables, now)
    rnd.status = TournamentRound.Status.SCORED
    rnd.ended_at = now
    rnd.save()
    t.version += 1
    if rnd.number >= (t.rounds or 0) or t.entries.filter(status=Entry.Status.ACTIVE).count() < 2:
        _finish(t, now)
    else:
        _set(t, now + timedelta(seconds=settings.TOURNAMENT_BREAK))


def _seat_swiss_round(t: Tournament, number: int, now: datetime) -> None:
    """Seat round `number`: standing order, anti-repeat seating, one room per table."""
    active = list(t.entries.filter(status=Entry.Status.ACTIVE).select_related("user"))
    by_pk = {e.pk: e for e in active}
    if number == 1:
        # No standing yet: an order drawn from the event's secret (nobody can choose a table).
        order = sorted(by_pk, key=lambda pk: scoring._draw(t.secret, pk))
    else:
        lines = standings(t)
        order = [line.key for line in lines if line.key in by_pk]
    met: Counter[frozenset[Hashable]] = Counter()
    for table in t.tables.prefetch_related("seat_set"):
        seating.meet(met, [[s.entry_id for s in table.seat_set.all()]])
    plan = seating.swiss_tables(order, t.seats, met)
    rnd = TournamentRound.objects.create(tournament=t, number=number)
    if t.duplicate:
        rnd.deal_seed = deal_seed(t, f"deal:{t.pk}:{number}:{t.seats}")
        rnd.save(update_fields=["deal_seed"])
    first = t.tables.count()
    for board, keys in enumerate(plan, start=1):
        seed = rnd.deal_seed or deal_seed(t, f"deal:{t.pk}:{number}:{board}")
        _open_table(t, rnd, first + board, [by_pk[k] if k else None for k in keys], seed)
    t.current_round = number
    t.version += 1
    _set(t, now + timedelta(seconds=PLAYING_POLL))
    users = [e.user_id for e in active if e.user_id]
    transaction.on_commit(
        lambda: signals.round_starting.send(
            sender=Tournament, tournament=t, round=rnd, user_ids=users
        )
    )


def _open_table(
    t: Tournament,
    rnd: TournamentRound | None,
    number: int,
    entries: list[Entry | None],
    seed: int,
    deal: int | None = None,
) -> TournamentTable:
    """Open and start one table through the lobby's one write path."""
    options = match_options(t.game, t.match_rounds)
    who: list[Any] = [
        e.user if e is not None and e.user is not None else (e.bot_level if e else t.filler_level)
        for e in entries
    ]
    room = lobby.arrange_room(
        t.creator,
        t.game,
        who,
        options,
        rated=True,
        private=t.private,
        deal_seed=seed,
        bot_level=t.filler_level,
    )
    whole, per_seat = deal_digests(t.game, len(entries), room.options, seed)
    table = TournamentTable.objects.create(
        tournament=t,
        round=rnd,
        number=number,
        room=room,
        deal_seed=seed,
        deal=deal,
        digest=whole,
    )
    TableSeat.objects.bulk_create(
        TableSeat(table=table, index=i, entry=e, digest=per_seat[i]) for i, e in enumerate(entries)
    )
    return table


def _collect(table: TournamentTable, now: datetime) -> None:
    """Note a table's end once its match has ended (finished, or closed: everyone left)."""
    match = Match.objects.filter(room_id=table.room_id).first()
    if match is None or match.status == Match.Status.PLAYING:
        return
    totals = dict(
        RoundScore.objects.filter(round__match=match)
        .values("seat")
        .annotate(total=Sum("points"))
        .values_list("seat", "total")
    )
    stood_in = {p.seat for p in Player.objects.filter(match=match) if p.human and p.is_bot}
    for seat in table.seat_set.all():
        seat.points = int(totals.get(seat.index, 0))
        seat.missed = seat.entry_id is not None and seat.index in stood_in
        seat.save(update_fields=["points", "missed"])
    table.status = TournamentTable.Status.FINISHED
    table.ended_at = now
    table.save(update_fields=["status", "ended_at"])


def _results(t: Tournament, table: TournamentTable) -> list[scoring.SeatResult]:
    lowest = GAMES[t.game].lowest_wins
    return [_result(s, lowest) for s in table.seat_set.all().order_by("index")]


def _result(seat: TableSeat, lowest: bool) -> scoring.SeatResult:
    return scoring.SeatResult(
        seat.entry_id, seat.index, scoring.oriented(seat.points or 0, lowest), seat.missed
    )


def _score_swiss_round(
    t: Tournament, rnd: TournamentRound, tables: list[TournamentTable], now: datetime
) -> None:
    tables = sorted(tables, key=lambda x: x.number)
    scored = scoring.score_round([_results(t, x) for x in tables], t.duplicate)
    for table, seats in zip(tables, scored, strict=True):
        rows = {s.index: s for s in table.seat_set.all()}
        for s in seats:
            row = rows[s.seat]
            row.par, row.adjusted, row.share = s.par, s.adjusted, s.share
            row.round_points = s.round_points
            if t.duplicate:
                row.deal_beaten, row.deal_holders = s.deal_beaten, s.deal_holders
            row.save()
    # No-shows: a seat a stand-in played to the end is a missed round; two in a row withdraw.
    for table in tables:
        for row in table.seat_set.select_related("entry"):
            entry = row.entry
            if entry is None or entry.user_id is None:
                continue
            entry.missed = entry.missed + 1 if row.missed else 0
            if entry.missed >= 2:
                entry.status = Entry.Status.WITHDRAWN
            entry.save(update_fields=["missed", "status"])
    cache_standings(t)


def _finish(t: Tournament, now: datetime) -> None:
    t.status = Tournament.Status.FINISHED
    t.finished_at = now
    t.version += 1
    _set(t, None)
    cache_standings(t)


# --------------------------------------------------------------------------- Arena


def _arena(t: Tournament, now: datetime) -> None:
    """One tick: note ended tables, seat the waiting, end on time (docs/tournaments.md)."""
    playing = list(t.tables.filter(status=TournamentTable.Status.PLAYING))
    ended_any = False
    ends_at = t.ends_at or now
    grace = timedelta(seconds=settings.TOURNAMENT_ARENA_GRACE)
    for table in playing:
        _collect(table, now)
        if table.status == TournamentTable.Status.FINISHED:
            if now > ends_at + grace:
                table.status = TournamentTable.Status.DISCARDED  # ended too late to count
                table.save(update_fields=["status"])
            ended_any = True
            Entry.objects.filter(seats__table=table).update(waiting_since=now)
        elif now > ends_at + grace:
            table.status = TournamentTable.Status.DISCARDED
            table.ended_at = now
            table.save(update_fields=["status", "ended_at"])
            ended_any = True
    if ended_any:
        _score_arena(t)
        t.version += 1
    still = t.tables.filter(status=TournamentTable.Status.PLAYING).exists()
    if now >= ends_at:
        if not still:
            _finish(t, now)
            return
    elif _seat_arena(t, now):
        t.version += 1
    _set(t, now + timedelta(seconds=1))


def _seat_arena(t: Tournament, now: datetime) -> bool:
    busy = set(
        TableSeat.objects.filter(
            table__tournament=t, table__status=TournamentTable.Status.PLAYING
        ).values_list("entry_id", flat=True)
    )
    waiting = [
        e
        for e in t.entries.filter(status=Entry.Status.ACTIVE).select_related("user")
        if e.pk not in busy
    ]
    if not waiting:
        return False
    rank = {line.key: line.rank for line in standings(t)}
    waiting.sort(key=lambda e: (rank.get(e.pk, 0), e.pk))
    longest = min((e.waiting_since or now) for e in waiting)
    fill = (now - longest).total_seconds() >= settings.TOURNAMENT_ARENA_WAIT
    if len(waiting) < t.seats and not fill:
        return False
    last: Counter[frozenset[Hashable]] = Counter()
    for e in waiting:
        previous = TableSeat.objects.filter(entry=e).order_by("-table__number").first()
        if previous is not None:
            seating.meet(last, [[s.entry_id for s in previous.table.seat_set.all()]])
    by_pk = {e.pk: e for e in waiting}
    plan = seating.arena_tables(list(by_pk), t.seats, last, fill=fill)
    deals: list[int | None] = [None] * len(plan)
    if t.duplicate:
        deals = list(seating.pool_deals(plan, *_deal_pool(t)))
    number = t.tables.count()
    for keys, deal in zip(plan, deals, strict=True):
        number += 1
        if deal is None:
            seed = deal_seed(t, f"arena:{t.pk}:{number}")
        else:  # every table of pool deal k is dealt the same cards, seat by seat
            seed = deal_seed(t, f"deal:{t.pk}:arena:{deal}")
        _open_table(t, None, number, [by_pk[k] if k else None for k in keys], seed, deal)
    return bool(plan)


def _deal_pool(t: Tournament) -> tuple[dict[int, set[int]], list[int]]:
    """An Arena duplicate's pool: the deals each entrant held, and how often each was dealt."""
    held: dict[int, set[int]] = {}
    for entry_id, deal in TableSeat.objects.filter(
        table__tournament=t, table__deal__isnull=False, entry__isnull=False
    ).values_list("entry_id", "table__deal"):
        held.setdefault(entry_id, set()).add(cast(int, deal))
    dealt = Counter(
        cast(int, deal)
        for deal in t.tables.filter(deal__isnull=False).values_list("deal", flat=True)
    )
    return held, [dealt[k] for k in range(1, max(dealt, default=0) + 1)]


def _score_arena(t: Tournament) -> None:
    """Score every counted Arena table again (tournaments.scoring.score_arena): share by
    placing (duplicate: on par-adjusted points, the pars filled in so far), points with the
    streak bonus. Earlier results move as later tables play the same deal."""
    counted = list(
        t.tables.filter(status=TournamentTable.Status.FINISHED)
        .order_by("ended_at", "number")
        .prefetch_related("seat_set")
    )
    lowest = GAMES[t.game].lowest_wins
    rows = [sorted(table.seat_set.all(), key=lambda r: r.index) for table in counted]
    scored = scoring.score_arena(
        [
            (table.deal, [_result(r, lowest) for r in seats])
            for table, seats in zip(counted, rows, strict=True)
        ],
        t.duplicate,
    )
    fields = ["par", "adjusted", "share", "round_points", "on_fire", "deal_beaten", "deal_holders"]
    changed_rows = []
    for seats, results in zip(rows, scored, strict=True):
        for row, s in zip(seats, results, strict=True):
            before = [getattr(row, name) for name in fields]
            row.par, row.adjusted, row.share = s.par, s.adjusted, s.share
            row.round_points, row.on_fire = s.round_points, s.on_fire
            if t.duplicate:
                row.deal_beaten, row.deal_holders = s.deal_beaten, s.deal_holders
            if [getattr(row, name) for name in fields] != before:
                changed_rows.append(row)  # only what moved: a long event has many tables
    TableSeat.objects.bulk_update(changed_rows, fields, batch_size=500)
    cache_standings(t)


# --------------------------------------------------------------------------- standings


def standings(t: Tournament) -> list[scoring.Standing]:
    """The standings from the seats' stored results (tournaments.scoring.standings)."""
    arena = t.format == Tournament.Format.ARENA
    lowest = GAMES[t.game].lowest_wins
    rounds: list[list[list[scoring.Scored]]] = []
    if arena:
        tables = t.tables.filter(status=TournamentTable.Status.FINISHED).order_by(
            "ended_at", "number"
        )
        groups = [[table] for table in tables]
    else:
        groups = [
            list(r.tables.all())
            for r in t.round_set.filter(status=TournamentRound.Status.SCORED).order_by("number")
        ]
    for tables_of in groups:
        rounds.append(
            [
                [
                    scoring.Scored(
                        key=s.entry_id,
                        seat=s.index,
                        value=scoring.oriented(s.points or 0, lowest),
                        missed=s.missed,
                        par=s.par,
                        adjusted=s.adjusted,
                        share=s.share or 0.0,
                        round_points=s.round_points or 0.0,
                    )
                    for s in table.seat_set.all().order_by("index")
                ]
                for table in sorted(tables_of, key=lambda x: x.number)
            ]
        )
    keys = list(t.entries.order_by("pk").values_list("pk", flat=True))
    return scoring.standings(rounds, keys, t.secret, arena=arena)


def cache_standings(t: Tournament) -> None:
    for line in standings(t):
        Entry.objects.filter(pk=cast(int, line.key)).update(points=line.points, rank=line.rank)


# --------------------------------------------------------------------------- the loop


async def loop() -> None:
    """Run what is due, every second, for as long as the process serves."""
    while True:
        try:
            # Through asgiref, so that the pushes it sends (async_to_sync) go out on this loop.
            await sync_to_async(_run_in_thread, thread_sensitive=False)()
        except Exception:
            log.exception("tournaments: the scheduler's pass failed")
        await asyncio.sleep(1.0)


def _run_in_thread() -> None:
    close_old_connections()
    try:
        run_due()
    finally:
        close_old_connections()


def ensure_started() -> None:
    """Start this process's scheduler loop in the running event loop (once per loop)."""
    if not settings.TOURNAMENT_TIMER:
        return
    running = asyncio.get_running_loop()
    for task in asyncio.all_tasks(running):
        if task.get_name() == "tournaments.scheduler":
            return
    running.create_task(loop(), name="tournaments.scheduler")
