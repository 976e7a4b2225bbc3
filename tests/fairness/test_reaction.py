"""Reaction-time checks (issue 42): an auto-clicker is flagged within 50 plays; the site's bots at
every level and players with human-like timing are not, over 2,000 plays.

The matches here are real: the live room's own `apply` and its tracker's hook, as
`Rooms.apply_here` calls them, on in-memory tables, with a simulated clock (each player acts a
reaction time after the change he reacts to). Only the clock is the test's; the samples go
through the store (`tables.live.store.write_reactions`, which the room's registry hands the
tracker) into the database as in the server.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass

import pytest
from django.utils import timezone

from games.engine import IllegalAction
from games.registry import GAMES
from tables import reaction
from tables.current import Table
from tables.errors import PlayError
from tables.live import store
from tables.live.room import LiveRoom
from tables.models import Match, Player, ReactionProfile, Round
from tables.reaction import FAST, REGULAR, Summary
from tests.conftest import make_user


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
) -> tuple[int, LiveRoom]:
    """Play `plays` plays of the subject's seat (seat 0: a user with `delay`; the others bots
    of `level`, at their own delays) or, with no subject, of all seats; return how many."""
    rng = random.Random(seed)
    users = subject or {}
    clock = Clock(timezone.now().timestamp())
    room = LiveRoom(1)
    room.reaction.clock = clock
    room.reaction.write = store.write_reactions  # as the registry hands it (Rooms.room)
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
