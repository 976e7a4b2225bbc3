"""Reaction-time checks (issue 42): an auto-clicker is flagged within 50 plays; the site's bots at
every level and players with human-like timing are not, over 2,000 plays.

The matches here are real: the live room's own `apply` and its tracker's hook, as
`Rooms.apply_here` calls them, on in-memory tables, with a simulated clock (each player acts a
reaction time after the change he reacts to). Only the clock is the test's; the samples go
through the store (`tables.live.store.write_reactions`, which the room's registry hands the
tracker) into the database as in the server.
"""

from __future__ import annotations

import asyncio
import math
import random
from collections.abc import Callable
from dataclasses import dataclass

import pytest
from asgiref.sync import sync_to_async
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from games.engine import IllegalAction
from games.registry import GAMES
from tables import reaction
from tables.current import Table
from tables.errors import PlayError
from tables.live import rooms, store
from tables.live.room import LiveRoom
from tables.live.rooms import Rooms
from tables.models import Match, Player, ReactionProfile, Round
from tables.reaction import FAST, REGULAR, Summary
from tests.conftest import make_user
from tests.tables.helpers import started_room


@pytest.fixture(autouse=True)
def _flags_on(settings):
    settings.REACTION_FLAGS = True  # off for the other tests' scripted players (tests/settings.py)


# Human-like reaction times: ex-Gaussian (a normal plus an exponential), the usual model of
# choice reaction times, for medians from 400 to 900 ms: (median, mu, sigma, tau) in ms.
HUMANS = [(400, 300, 45, 150), (550, 400, 60, 210), (700, 500, 75, 290), (900, 640, 95, 380)]


def human_delay(mu: float, sigma: float, tau: float) -> Callable[[random.Random], float]:
    def delay(rng: random.Random) -> float:
        return max(0.15, (rng.gauss(mu, sigma) + rng.expovariate(1 / tau)) / 1000)

    return delay


def clicker(ms: float, jitter: float = 0.0) -> Callable[[random.Random], float]:
    return lambda rng: (ms + rng.uniform(-jitter, jitter)) / 1000


@dataclass
class Clock:
    now: float

    def __call__(self) -> float:
        return self.now


def _table(game: str, seats: int, users: dict[int, int], seed: int, stand_in: bool) -> Table:
    match = Match(pk=1, room_id=1, game=game, seed=seed, version=1, status="playing")
    players = [
        Player(
            pk=i + 1,
            match_id=1,
            seat=i,
            name=f"p{i}",
            user_id=users.get(i),
            bot_level="" if i in users and not stand_in else "normal",
            stand_in=i in users and stand_in,
            connections=1,
        )
        for i in range(seats)
    ]
    state = GAMES[game].new_match(seats, None, seed)
    return Table(match=match, players=players, state=state, round=Round(pk=1, number=1, seed=seed))


def simulate(
    game: str,
    seats: int,
    plays: int,
    subject: dict[int, int] | None = None,
    delay: Callable[[random.Random], float] | None = None,
    level: str = "normal",
    stand_in: bool = False,
    seed: int = 1,
    until: Callable[[int], bool] | None = None,
    room: LiveRoom | None = None,
    save: bool = True,
) -> tuple[int, LiveRoom]:
    """Play `plays` plays of the subject's seat (seat 0: a user with `delay`; the others bots
    of `level`, at their own delays) or, with no subject, of all seats; return how many.

    `room`: one the registry built (else a bare one, which writes through the store as the
    registry's do); `save`: write what is short of a batch at the end."""
    rng = random.Random(seed)
    users = subject or {}
    clock = Clock(timezone.now().timestamp())
    if room is None:
        room = LiveRoom(1)
        room.reaction.write = store.write_reactions  # as the registry hands it (Rooms.room)
    room.reaction.clock = clock
    table = _table(game, seats, users, seed, stand_in)
    plans: dict[int, tuple[float, dict]] = {}
    counted = 0
    while counted < plays:
        for seat in range(seats):
            if seat in plans:
                continue
            action, bot_delay = GAMES[game].bot_choose(table.view(seat), level, rng)
            if action is None:
                continue
            human = seat in users and not stand_in and delay is not None
            plans[seat] = (clock.now + (delay(rng) if human else bot_delay), action)
        if not plans:
            break  # nothing anyone can do: a new deal below
        seat = min(plans, key=lambda s: plans[s][0])
        at, action = plans.pop(seat)
        clock.now = max(clock.now, at)
        by_bot = seat not in users or stand_in
        try:
            entry = room.apply(table, seat, action, by_bot=by_bot)
        except (IllegalAction, PlayError):
            continue  # the plan went stale: choose again
        room.reaction.note(table, entry)
        if entry.refusal is None:
            table = entry.table
            plans.clear()  # everyone sees the change and chooses again from it
        if (seat in users or not users) and action.get("type") != "ready":
            counted += 1
            if until is not None and until(counted):
                break
        if table.match.status != Match.Status.PLAYING:
            seed += 1
            table = _table(game, seats, users, seed, stand_in)
    if save:
        room.reaction.save()
    return counted, room


def profile_of(user) -> ReactionProfile | None:  # noqa: ANN001
    return ReactionProfile.objects.filter(user=user).first()


# --------------------------------------------------------------------------- the summary


def test_the_median_and_spread_are_read_off_the_running_summary():
    summary = Summary()
    for ms in (100, 200, 300, 400, 500):
        summary.add(ms)
    assert summary.count == 5 and sum(summary.buckets) == 5
    assert 250 <= summary.median() <= 400
    logs = [math.log(ms) for ms in (100, 200, 300, 400, 500)]
    mean = sum(logs) / 5
    sd = math.sqrt(sum((x - mean) ** 2 for x in logs) / 4)
    assert summary.spread() == pytest.approx(sd)


def test_too_few_plays_flag_nothing_however_fast():
    summary = Summary()
    for _ in range(reaction.MIN_PLAYS - 1):
        summary.add(20)
    assert summary.verdict() == ""
    summary.add(20)
    assert summary.verdict() == FAST


def test_a_steady_clicker_slower_than_the_floor_is_flagged_as_too_regular():
    summary, rng = Summary(), random.Random(3)
    for _ in range(reaction.REGULAR_MIN_PLAYS):
        summary.add(round(600 + rng.uniform(-20, 20)))
    assert summary.median() > reaction.FAST_MEDIAN_MS
    assert summary.verdict() == REGULAR


# --------------------------------------------------------------------------- matches


@pytest.mark.django_db
@pytest.mark.parametrize(("game", "seats"), [("ligretto-mini", 2), ("ligretto", 4), ("allegra", 3)])
def test_an_auto_clicker_at_80_ms_is_flagged_within_50_plays(game, seats):
    alice = make_user("alice")

    def flagged(counted: int) -> bool:
        profile = profile_of(alice)
        return profile is not None and profile.flagged_at is not None

    counted, _ = simulate(game, seats, 50, {0: alice.pk}, clicker(80, 10), until=flagged)
    profile = profile_of(alice)
    assert profile is not None and profile.flagged_at is not None, profile
    assert profile.flag == FAST and counted <= 50
    assert reaction.held_out(alice)


@pytest.mark.django_db
@pytest.mark.parametrize(("median", "mu", "sigma", "tau"), HUMANS)
@pytest.mark.parametrize(("game", "seats"), [("ligretto-mini", 2), ("ligretto", 4), ("allegra", 3)])
def test_players_with_human_timing_are_not_flagged_over_2000_plays(
    game, seats, median, mu, sigma, tau
):
    alice = make_user("alice")
    counted, _ = simulate(game, seats, 2000, {0: alice.pk}, human_delay(mu, sigma, tau))
    assert counted == 2000
    profile = profile_of(alice)
    assert profile is not None and profile.count >= 1500  # nearly every play is measured
    assert profile.flagged_at is None and profile.flag == ""
    assert not reaction.held_out(alice)
    # What was measured is at least the player's own reaction time (a play may have been
    # possible before the change he reacted to, never after).
    assert reaction.summary_of(profile).median() >= median * 0.9


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("game", "seats", "level"),
    [
        (game, seats, level)
        for game, seats in (("ligretto", 4), ("allegra", 3))
        for level in GAMES[game].bot_levels
    ],
)
def test_the_sites_bots_at_every_level_are_never_flagged_over_2000_plays(game, seats, level):
    profiles = ReactionProfile.objects.count()
    counted, room = simulate(game, seats, 2000, level=level)
    assert counted == 2000
    # Nothing noted, nothing kept: a bot seat is never a human's.
    assert not room.reaction.since and not room.reaction.last_play
    assert ReactionProfile.objects.count() == profiles


@pytest.mark.django_db
def test_a_bot_standing_in_for_a_player_is_not_measured_as_him():
    alice = make_user("alice")
    counted, _ = simulate("ligretto", 4, 300, {0: alice.pk}, clicker(80), stand_in=True)
    assert counted == 300
    assert profile_of(alice) is None and not reaction.held_out(alice)


@pytest.mark.django_db
def test_a_regular_clicker_slower_than_humans_at_their_fastest_is_flagged():
    alice = make_user("alice")
    simulate("ligretto-mini", 2, 300, {0: alice.pk}, clicker(450, 15))
    profile = profile_of(alice)
    assert profile is not None and profile.flag == REGULAR and reaction.held_out(alice)


# --------------------------------------------------------------------------- the writes


def _profile_statements(queries: CaptureQueriesContext) -> list[str]:
    table = ReactionProfile._meta.db_table
    return [q["sql"] for q in queries.captured_queries if table in q["sql"]]


@pytest.mark.django_db
def test_a_batch_is_read_and_written_in_one_statement_each_however_many_players():
    players = [make_user(f"p{i}") for i in range(4)]
    rng = random.Random(2)
    expected = {p.pk: Summary() for p in players}
    writes = []
    for _ in range(3):
        batch = {
            p.pk: [rng.randint(150, 900) for _s in range(reaction.SAVE_EVERY)] for p in players
        }
        for user_id, samples in batch.items():
            for ms in samples:
                expected[user_id].add(ms)
        with CaptureQueriesContext(connection) as queries:
            saved = store.write_reactions("ligretto", batch)
        writes.append(_profile_statements(queries))
        assert sorted(p.user_id for p in saved) == sorted(batch)
    # The first batch also makes the players' empty profiles (one insert, read again); then one
    # locked read and one upsert, whether the batch holds one player or twelve.
    assert len(writes[0]) == 4 and [len(w) for w in writes[1:]] == [2, 2], writes
    assert "ON CONFLICT" in writes[1][-1]
    for p in players:
        profile = ReactionProfile.objects.get(user=p, game="ligretto")
        want = expected[p.pk]
        assert (profile.count, profile.buckets) == (want.count, want.buckets)
        assert profile.log_mean == pytest.approx(want.log_mean)
        assert profile.log_m2 == pytest.approx(want.log_m2)


@pytest.mark.django_db
def test_a_batch_keeps_a_flag_and_what_the_moderator_wrote():
    alice, bob, mod = make_user("alice"), make_user("bob"), make_user("mod")
    (flagged,) = store.write_reactions("ligretto", {alice.pk: [80] * 40})
    assert flagged.flag == FAST and flagged.flagged_at is not None
    flagged_at = ReactionProfile.objects.get(user=alice).flagged_at
    store.write_reactions("ligretto", {bob.pk: [650] * 10})
    ReactionProfile.objects.filter(user=bob).update(cleared_at=timezone.now(), cleared_by=mod)

    saved = store.write_reactions("ligretto", {alice.pk: [700] * 10, bob.pk: [650] * 10})
    assert [p.user_id for p in saved] == sorted([alice.pk, bob.pk])
    alice_now, bob_now = (ReactionProfile.objects.get(user=u) for u in (alice, bob))
    assert alice_now.flagged_at == flagged_at and alice_now.flag == FAST  # flagged stays flagged
    assert alice_now.count == 50 and bob_now.count == 20
    assert bob_now.cleared_by == mod and bob_now.cleared_at is not None
    # Another game is another profile.
    store.write_reactions("allegra", {alice.pk: [700] * 3})
    assert ReactionProfile.objects.get(user=alice, game="allegra").count == 3


@pytest.mark.django_db
def test_a_dropped_room_writes_the_samples_short_of_a_batch():
    alice = make_user("alice")
    registry = Rooms(None)
    room = registry.room(1)
    counted, _ = simulate(
        "ligretto-mini", 2, 6, {0: alice.pk}, clicker(400, 50), room=room, save=False
    )
    assert counted == 6
    pending = sum(len(s) for s in room.reaction.pending.values())
    assert 0 < pending < reaction.SAVE_EVERY and profile_of(alice) is None
    registry.drop(1)
    profile = profile_of(alice)
    assert profile is not None and profile.count == pending
    assert not room.reaction.pending


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_a_stopping_process_writes_every_rooms_samples_short_of_a_batch():
    alice = await sync_to_async(make_user)("alice")
    started = await sync_to_async(started_room)(alice, game="ligretto", bots=3)
    live = rooms.bind(asyncio.get_running_loop())
    room = await rooms.room_for(started.pk)
    for _ in range(4):
        await rooms.act(started.pk, 0, {"type": "flip"})  # always legal in Ligretto
    pending = sum(len(s) for s in room.reaction.pending.values())
    assert 0 < pending < reaction.SAVE_EVERY

    assert await rooms.settle(timeout=5)  # as cardgames.lifecycle.stop waits for it
    assert not live.saving and not room.reaction.pending
    profile = await sync_to_async(profile_of)(alice)
    assert profile is not None and profile.count == pending


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_rooms_reaction_times_are_gathered_and_written_together():
    alice = await sync_to_async(make_user)("alice")
    bob = await sync_to_async(make_user)("bob")
    live = rooms.bind(asyncio.get_running_loop())
    # Two rooms' trackers hand in their batches (as Tracker.save does) within the gathering.
    live.write_reactions("ligretto", {alice.pk: [700] * 10, bob.pk: [650] * 4})
    live.write_reactions("ligretto", {bob.pk: [640] * 6})
    live.write_reactions("allegra", {alice.pk: [900] * 3})
    await asyncio.sleep(0.05)
    assert await sync_to_async(profile_of)(alice) is None  # still gathered, not written
    assert live.reactions_due is not None and not live.saving

    assert await rooms.settle(timeout=5)  # a stopping process writes them at once
    assert not live.saving and live.reactions == {} and live.reactions_due is None

    def counts() -> dict[tuple[str, str], int]:
        rows = ReactionProfile.objects.select_related("user")
        return {(p.user.username, p.game): p.count for p in rows}

    assert await sync_to_async(counts)() == {
        ("alice", "ligretto"): 10,
        ("bob", "ligretto"): 10,
        ("alice", "allegra"): 3,
    }


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_gathered_reaction_times_are_written_after_the_gathering():
    alice = await sync_to_async(make_user)("alice")
    live = rooms.bind(asyncio.get_running_loop())
    live.write_reactions("ligretto", {alice.pk: [700] * 10})
    for _ in range(int(rooms.REACTIONS_GATHER * 100) + 300):  # the gathering, then the write
        await asyncio.sleep(0.01)
        if live.reactions_due is None and not live.saving:
            break
    profile = await sync_to_async(profile_of)(alice)
    assert profile is not None and profile.count == 10
