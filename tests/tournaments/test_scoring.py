"""Scoring is pure: docs/tournaments.md's worked example, shares, streaks and tie-breaks."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tournaments.scoring import SeatResult, arena_points, score_round, shares, standings

# docs/tournaments.md, "A worked example": 4-seat Ligretto, 3 tables, one game round, deals A–D.
EXAMPLE = [
    [("Ann", 8), ("Bob", -4), ("Cid", 3), ("Dan", 10)],
    [("Eve", 5), ("Fay", 3), ("Gus", 3), ("Hal", 6)],
    [("Ivy", 8), ("Jon", 1), ("Kim", -1), ("Lea", 12)],
]


def _example():
    tables = [
        [SeatResult(name, seat, points) for seat, (name, points) in enumerate(table)]
        for table in EXAMPLE
    ]
    return score_round(tables, duplicate=True)


def test_the_worked_example_of_the_docs():
    table1 = {s.key: s for s in _example()[0]}
    assert [table1[k].par for k in ("Ann", "Bob", "Cid", "Dan")] == [6.5, 2, 1, 9]
    assert [table1[k].adjusted for k in ("Ann", "Bob", "Cid", "Dan")] == [1.5, -6, 2, 1]
    points = {k: round(s.round_points, 2) for k, s in table1.items()}
    assert points == {"Cid": 100, "Ann": 66.67, "Dan": 33.33, "Bob": 0}
    # On raw points Dan would have won table 1: his cards were the best.
    assert max(table1.values(), key=lambda s: s.value).key == "Dan"
    # "You beat 0 of 2 who held your cards" (Bob); Ann beats Eve and ties Ivy: 1.5 of 2.
    assert (table1["Bob"].deal_beaten, table1["Bob"].deal_holders) == (0, 2)
    assert (table1["Ann"].deal_beaten, table1["Ann"].deal_holders) == (1.5, 2)


def test_a_plain_event_places_on_the_points_and_a_missed_seat_scores_nothing():
    table = [SeatResult("a", 0, 5), SeatResult("b", 1, 9), SeatResult("c", 2, 20, missed=True)]
    scored = score_round([table], duplicate=False)[0]
    assert [s.round_points for s in scored] == [50, 100, 0]


def test_below_three_tables_a_duplicate_round_places_on_the_points():
    tables = [
        [SeatResult(f"{t}{s}", s, p) for s, p in enumerate(row)]
        for t, row in enumerate([[1, 2], [5, 0]])
    ]
    scored = score_round(tables, duplicate=True)
    assert all(s.par is None for table in scored for s in table)
    assert [s.round_points for s in scored[0]] == [0, 100]
    assert (scored[0][0].deal_beaten, scored[0][0].deal_holders) == (0, 1)


@given(st.lists(st.one_of(st.none(), st.integers(-30, 30)), min_size=2, max_size=12))
def test_shares_add_up_like_a_round_robin(values):
    got = shares(values)
    n = len(values)
    missed = values.count(None)
    # Every pair hands out one point, but a pair of two missed seats hands out none.
    assert sum(got) * (n - 1) == pytest.approx(n * (n - 1) / 2 - missed * (missed - 1) / 2)
    assert all(0 <= s <= 1 for s in got)
    assert all(got[i] == 0 for i, v in enumerate(values) if v is None)


def test_two_good_results_in_a_row_set_a_player_on_fire():
    # win, win, win (double), loss (single, ends it), win, win, win (double again)
    assert arena_points([1, 1, 1, 0, 1, 1, 1]) == [
        (10, False),
        (10, False),
        (20, True),
        (0, False),
        (10, False),
        (10, False),
        (20, True),
    ]
    assert arena_points([2 / 3, 2 / 3, 2 / 3]) == [(7, False), (7, False), (14, True)]


def test_standings_break_ties_in_the_documented_order():
    one = [
        [SeatResult("a", 0, 10), SeatResult("b", 1, 0)],
        [SeatResult("c", 0, 3), SeatResult("d", 1, 2)],
    ]
    rounds = [score_round(one, duplicate=False)]
    lines = standings(rounds, ["a", "b", "c", "d"], secret="s")
    # a and c both won (100): a beat his table's mean by more (+5 against +0.5).
    # b and d both lost: d lost by less than his table's mean (−0.5 against −5).
    assert [line.key for line in lines] == ["a", "c", "d", "b"]
    assert [line.rank for line in lines] == [1, 2, 3, 4]
    assert lines[0].against_cards == 5 and lines[1].against_cards == 0.5
