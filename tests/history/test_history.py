"""Score history queries: a match's sheet, a player's record, the leaderboards."""

from __future__ import annotations

import pytest

from tables import history
from tables.models import Match, Player, RoundScore
from tests.conftest import make_user
from tests.history.factories import played_match

pytestmark = pytest.mark.django_db


def test_a_sheet_has_rounds_as_rows_players_as_columns_and_running_totals(alice, bob):
    match = played_match("ligretto-mini", [alice, bob, "easy"], [[10, -2, 4], [3, 8, -5]])
    sheet = history.match_sheet(match)
    assert [p.name for p in sheet.players] == ["alice", "bob", "Easy bot 3"]
    assert [r.number for r in sheet.rounds] == [1, 2]
    assert [r.points for r in sheet.rounds] == [[10, -2, 4], [3, 8, -5]]
    assert [r.running for r in sheet.rounds] == [[10, -2, 4], [13, 6, -1]]
    assert sheet.totals == [13, 6, -1]
    assert sheet.winners == [0] and sheet.finished and not sheet.closed


def test_in_allegra_the_lowest_total_wins_and_equal_totals_share_it(alice, bob, carol):
    tie = played_match("allegra", [alice, bob, carol], [[20, 5, 9], [-3, 12, 8]])
    sheet = history.match_sheet(tie)
    assert sheet.totals == [17, 17, 17] and sheet.winners == [0, 1, 2]
    other = played_match("allegra", [alice, bob], [[30, 4]])
    assert history.match_sheet(other).winners == [1]


def test_a_closed_match_has_no_winner_and_a_match_in_play_has_leaders(alice, bob):
    closed = played_match(
        "ligretto", [alice, bob], [[9, 1]], status=Match.Status.CLOSED, closed_reason="Closed."
    )
    sheet = history.match_sheet(closed)
    assert sheet.closed and sheet.winners == [] and sheet.leaders == []
    playing = played_match("ligretto", [alice, bob], [[2, 7]], status=Match.Status.PLAYING)
    # The round being played has no end yet: it is not on the sheet.
    playing.rounds.create(number=2, seed=2, state={}, version=9)
    sheet = history.match_sheet(playing)
    assert [r.number for r in sheet.rounds] == [1]
    assert sheet.winners == [] and sheet.leaders == [1]


def test_a_players_record_counts_finished_matches_wins_and_points_per_round(alice, bob):
    played_match("ligretto-mini", [alice, bob], [[10, 2], [6, 0]])  # alice wins, 2 rounds
    played_match("ligretto-mini", [alice, bob], [[1, 5]])  # bob wins
    played_match("allegra", [alice, "normal"], [[3, 30]])  # alice wins (lowest)
    played_match("ligretto-mini", [alice, bob], [[50, 0]], status=Match.Status.CLOSED)
    records, recent = history.player_record(alice)
    by_game = {r.game: r for r in records}
    assert set(by_game) == {"ligretto-mini", "allegra"}
    mini = by_game["ligretto-mini"]
    assert (mini.matches, mini.wins, mini.rounds, mini.points) == (2, 1, 3, 17)
    assert mini.average == round(17 / 3, 1)
    assert mini.match_totals == [16, 1]
    allegra = by_game["allegra"]
    assert (allegra.matches, allegra.wins, allegra.average) == (1, 1, 3.0)
    # The latest first, the closed one included (with a link to its sheet), never counted won.
    assert [m.match.status for m in recent][0] == Match.Status.CLOSED
    assert [m.total for m in recent] == [50, 3, 1, 16]
    assert [m.won for m in recent] == [False, True, False, True]
    assert "<svg" in mini.chart() and "16" in mini.chart()


def test_a_player_who_left_a_match_the_others_finished_lost_it(alice, bob):
    # Issue 17: he used to count for nobody; now the match counts, as a loss, even when the
    # bot that took his seat won it; the bot's rounds and points are not his.
    match = played_match("ligretto", [alice, bob], [[10, 0]])
    Player.objects.filter(match=match, user=alice).update(left=True)
    records, recent = history.player_record(alice)
    [mini] = records
    assert (mini.matches, mini.wins, mini.rounds, mini.points) == (1, 0, 0, 0)
    assert [m.won for m in recent] == [False]
    board = history.leaderboard("ligretto")
    assert [(s.username, s.wins, s.matches) for s in board] == [("alice", 0, 1), ("bob", 0, 1)]


def test_the_leaderboard_ranks_humans_by_wins_then_win_rate_then_matches(alice, bob, carol, eve):
    dave = make_user("dave")
    played_match("ligretto", [alice, bob], [[1, 9]])  # bob
    played_match("ligretto", [alice, bob], [[0, 9]])  # bob
    played_match("ligretto", [alice, dave], [[9, 1]])  # alice
    played_match("ligretto", [alice, dave, "fast"], [[9, 1, 50]])  # a bot's: counts for no one
    played_match("ligretto", [carol, "easy"], [[9, 1]])  # carol
    played_match("ligretto", [eve, "easy"], [[0, 1]])  # the bot's
    played_match("ligretto", [carol, bob], [[0, 99]], status=Match.Status.CLOSED)  # not counted
    played_match("allegra", [dave, alice], [[0, 40]])  # another game's board
    board = history.leaderboard("ligretto")
    assert [(s.username, s.wins, s.matches) for s in board] == [
        ("bob", 2, 2),  # the most wins
        ("carol", 1, 1),  # one win, at a better rate than alice's
        ("alice", 1, 4),
        ("dave", 0, 2),  # no win: more matches first
        ("eve", 0, 1),
    ]
    assert [(s.username, s.wins) for s in history.leaderboard("allegra")] == [
        ("dave", 1),
        ("alice", 0),
    ]


def test_the_live_chart_comes_from_the_view_alone(django_assert_num_queries):
    view = {
        "players": [{"seat": 0, "name": "alice"}, {"seat": 1, "name": "bob"}],
        "scores": [{"round": 1, "points": [4, -1]}, {"round": 2, "points": [2, 6]}],
    }
    with django_assert_num_queries(0):
        svg = history.sheet_for_view(view)
    assert "alice (6)" in svg and "bob (5)" in svg


def test_the_sheet_agrees_with_the_round_score_rows(alice, bob):
    match = played_match("ligretto-mini", [alice, bob], [[3, 4], [5, -6], [7, 8]])
    sheet = history.match_sheet(match)
    for entry in sheet.rounds:
        rows = RoundScore.objects.filter(round__match=match, round__number=entry.number)
        assert [r.points for r in rows.order_by("seat")] == entry.points
