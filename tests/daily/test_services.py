"""The daily challenge's write path and reads: one attempt a day, the same deal for everyone,
the reveal after the UTC rollover, the board from the server's own results, streaks."""

from __future__ import annotations

from datetime import date, timedelta

import pytest
from django.contrib.auth.models import Group

from daily import board, services
from daily import deal as deals
from daily.models import Attempt
from games.registry import GAMES
from lobby.models import Room
from tables import play
from tables.guests import GROUP
from tables.models import Match, RoundScore
from tests.conftest import make_user
from tests.daily.helpers import at, play_round
from tests.tables.helpers import set_state

pytestmark = pytest.mark.django_db

NOON = at("2026-12-05T12:00:00")
D = date(2026, 12, 5)


def _first_deal_views(room: Room) -> list[object]:
    match = Match.objects.get(room=room)
    game = GAMES[match.game]
    state = game.load(match.rounds.get(number=1).state)
    return [game.player_view(state, seat) for seat in (0, 1)]


def test_an_attempt_starts_the_days_deal_against_the_days_bot(alice):
    attempt = services.play(alice, NOON)
    deal = services.deal_of(D)
    room = attempt.room
    assert attempt.day == D and attempt.ranked and room.rated and room.private
    assert room.status == Room.Status.PLAYING and room.game == "ligretto-mini"
    match = Match.objects.get(room=room)
    assert (match.seed, match.bot_seed) == (deal.seed, deal.bot_seed)
    seats = list(room.seat_set.order_by("index").values_list("user__username", "bot_level"))
    assert seats == [("alice", ""), (None, "normal")]


def test_a_second_start_the_same_day_is_refused_with_the_first_attempt(alice):
    first = services.play(alice, NOON)
    with pytest.raises(services.DailyError) as refused:
        services.play(alice, at("2026-12-05T23:59:59"))
    assert refused.value.status == 409 and refused.value.code == "already_played"
    assert refused.value.attempt == first
    assert Attempt.objects.count() == 1 and Room.objects.count() == 1


def test_two_accounts_get_the_same_deal(alice, bob):
    mine, theirs = services.play(alice, NOON), services.play(bob, NOON)
    assert _first_deal_views(mine.room) == _first_deal_views(theirs.room)


def test_after_the_rollover_the_revealed_seed_reproduces_commitment_and_deal(alice):
    before = at("2026-12-05T23:59:59")
    published = services.deal_of(services.today(before)).commitment
    attempt = services.play(alice, before)
    after = at("2026-12-06T00:00:01")
    assert services.today(after) == D + timedelta(days=1)
    assert deals.revealed(attempt.day, services.today(after))
    # What anyone can do with the revealed seeds: recompute the commitment, deal the cards.
    revealed = services.deal_of(attempt.day)
    again = deals.commitment(D, "ligretto-mini", revealed.seed, "normal", revealed.bot_seed)
    assert again == published
    game = GAMES["ligretto-mini"]
    dealt = game.new_match(2, {"rounds": 1}, revealed.seed)
    assert _first_deal_views(attempt.room) == [game.player_view(dealt, s) for s in (0, 1)]
    # The new day is a new deal and a new attempt.
    tomorrow = services.play(alice, after)
    assert tomorrow.day == D + timedelta(days=1)
    assert _first_deal_views(tomorrow.room) != _first_deal_views(attempt.room)


def test_a_guest_plays_unranked_and_stays_off_the_board(alice):
    guest = make_user("guest-1234")
    guest.groups.add(Group.objects.get_or_create(name=GROUP)[0])
    attempt = services.play(guest, NOON)
    assert not attempt.ranked and not attempt.room.rated
    play_round(attempt.room_id)
    assert board.board(D) == []
    with pytest.raises(services.DailyError):
        services.play(guest, NOON)  # once a day for a guest too


def test_the_board_shows_the_servers_own_results_in_order(alice, bob, carol):
    events = {}
    for n, user in enumerate((alice, bob, carol)):
        attempt = services.play(user, NOON)
        events[user.username] = (attempt, play_round(attempt.room_id, seed=n))
    rows = board.board(D)
    assert [r.rank for r in rows] == [1, 2, 3]
    assert [r.sort_key[:3] for r in rows] == sorted(r.sort_key[:3] for r in rows)
    for row in rows:
        attempt, ended = events[row.name]
        stored = RoundScore.objects.get(round__match__room=attempt.room, seat=0).points
        assert row.points == stored == ended["points"][0]
        assert row.ended_by_player == (ended["reason"] == "stack_empty" and ended.get("seat") == 0)
        assert row.duration_ms >= 0 and row.finished


def test_an_attempt_still_being_played_is_not_on_the_board(alice):
    services.play(alice, NOON)
    assert board.board(D) == []
    [result] = board.read(list(Attempt.objects.all()))
    assert not result.finished


def test_streaks_count_utc_days_played(alice):
    for day in ("2026-12-01", "2026-12-02", "2026-12-04"):
        services.play(alice, at(f"{day}T08:00:00"))
    streak = services.streak(alice, at("2026-12-04T23:00:00"))
    assert (streak.current, streak.best, streak.days, streak.today) == (1, 2, 3, True)
    streak = services.streak(alice, at("2026-12-06T00:00:00"))
    assert (streak.current, streak.best, streak.today) == (0, 2, False)


@pytest.mark.parametrize(
    ("text", "status"),
    [
        ("2026-12-5", 400),
        ("yesterday", 400),
        ("２026-12-05", 400),
        ("2026-02-30", 404),
        ("2026-12-06", 404),
    ],
)
def test_a_bad_day_is_a_clear_refusal(text, status):
    with pytest.raises(services.DailyError) as refused:
        services.parse_day(text, NOON)
    assert refused.value.status == status and refused.value.message
    assert services.parse_day("2026-12-05", NOON) == D


def _last_card_played_by(room_id: int, seat: int) -> None:
    """Give `seat` one card left in its stack, a 1 (it always fits), and play it: the round ends
    by that seat's move; then both seats say ready, which comes after in the log."""

    def last_card(data):
        data["players"][seat]["stack"] = [["red", 1, seat]]
        return data

    set_state(room_id, last_card)
    outcome = play.act(room_id, seat, {"type": "play", "from": "stack"}, by_bot=seat == 1)
    assert any(e.get("type") == "round_ended" for e in outcome.events)
    for who in (1, 0):
        play.act(room_id, who, {"type": "ready"}, by_bot=who == 1)


def test_ended_by_the_player_is_whose_move_ended_the_round(alice, bob):
    mine, theirs = services.play(alice, NOON), services.play(bob, NOON)
    _last_card_played_by(mine.room_id, 0)  # alice empties her stack
    _last_card_played_by(theirs.room_id, 1)  # the bot empties its stack against bob
    rows = {r.name: r for r in board.board(D)}
    assert rows["alice"].ended_by_player and not rows["bob"].ended_by_player
    assert Match.objects.get(room=mine.room).status == "finished"
