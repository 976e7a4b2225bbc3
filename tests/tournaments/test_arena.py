"""An Arena with bot entrants and two people playing through the Board API: tables form as
matches end, it ends on time (a match under way then counts within the grace), and the streak
bonus doubles a player's points after two good results in a row."""

from __future__ import annotations

import random
from datetime import timedelta

import pytest
from django.utils import timezone

from games.registry import GAMES
from tables.driver import MatchBots
from tables.models import Match
from tests.api.helpers import Api
from tournaments import scheduler
from tournaments.models import TableSeat, Tournament, TournamentTable

pytestmark = pytest.mark.django_db(transaction=True)


def _play(table: TournamentTable, people: dict[int, Api], rng: random.Random) -> None:
    """Play a table to its end: its bots through the driver, its people through the API (each
    choosing with a bot's judgement from the view the API gives them)."""
    bots = MatchBots(table.room_id, rng=rng)
    game = GAMES[table.tournament.game]
    seats = {
        s.index: people[s.entry.user_id]
        for s in table.seat_set.select_related("entry")
        if s.entry is not None and s.entry.user_id in people
    }
    for _ in range(100_000):
        if bots.step() is None:
            return
        for api in seats.values():
            view = api.get(f"rooms/{table.room_id}/view").json()
            action, _delay = game.bot_choose(view, "normal", rng)
            if action is not None:
                api.post(f"rooms/{table.room_id}/actions", {"action": action})
    raise AssertionError(f"room {table.room_id} did not end")


@pytest.mark.timeout(600)
def test_an_arena_ends_on_time_with_the_streak_bonus(alice, bob, carol, settings):
    settings.BOT_PACE = 0
    settings.LEAVER_GRACE = 3600  # the people play through the API, without a socket
    settings.TOURNAMENT_ARENA_WAIT = 0
    settings.TOURNAMENT_ARENA_GRACE = 30
    settings.API_ACTIONS_PER_USER = 1_000_000
    creator = Api(carol)
    made = creator.post(
        "tournaments",
        {"game": "ligretto-mini", "seats": 2, "format": "arena", "minutes": 2, "starts_in": 0},
    )
    assert made.status_code == 201, made.content
    tid = made.json()["id"]
    # The deals come from the tournament's secret (random when made): a known one makes the
    # run the same every time (with a random one, a run now and then had nobody on fire).
    Tournament.objects.filter(pk=tid).update(secret="arena-test-deals")
    people = {alice.pk: Api(alice), bob.pk: Api(bob)}
    for api in people.values():
        assert api.post(f"tournaments/{tid}/join").status_code == 200
    assert creator.post(f"tournaments/{tid}/bots", {"count": 2, "level": "easy"}).status_code == 201
    assert creator.post(f"tournaments/{tid}/bots", {"count": 2, "level": "fast"}).status_code == 201

    rng = random.Random(43)
    now = timezone.now()
    scheduler.run_due(now)  # the start: every entrant is seated at once
    t = Tournament.objects.get(pk=tid)
    assert t.status == "running" and t.ends_at == now + timedelta(minutes=2)
    seen = set(t.tables.values_list("pk", flat=True))
    seated_after_end = []
    while t.status == "running":
        for table in t.tables.filter(status="playing").select_related("tournament"):
            _play(table, people, rng)
        now += timedelta(seconds=20)
        if now >= t.ends_at:
            # The tables seated last ended (above) after the end, within the grace.
            now = t.ends_at + timedelta(seconds=10)
        scheduler.run_due(now)
        t.refresh_from_db()
        new = set(t.tables.values_list("pk", flat=True)) - seen
        if now >= t.ends_at:
            seated_after_end += new
        seen |= new
    assert t.status == "finished" and not seated_after_end
    tables = list(t.tables.all())
    assert len(tables) >= 12
    # Within the grace: the tables under way at the end counted.
    assert all(x.status == "finished" for x in tables)
    assert all(Match.objects.get(room_id=x.room_id).status == "finished" for x in tables)
    # Somebody was on fire: a good result after two good ones counted double.
    fired = TableSeat.objects.filter(table__tournament=t, on_fire=True)
    assert fired.exists() and all(s.round_points == 20 for s in fired)
    answer = creator.get(f"tournaments/{tid}").json()
    lines = answer["standings"]
    assert len(lines) == 6 and [line["rank"] for line in lines] == list(range(1, 7))
    for line in lines:  # each line adds up its seats' points, the bonus included
        mine = TableSeat.objects.filter(table__tournament=t, entry_id=line["entry"])
        assert line["points"] == sum(s.round_points for s in mine)
    # The people played their seats themselves (no stand-in scored for them).
    assert not TableSeat.objects.filter(table__tournament=t, missed=True).exists()
