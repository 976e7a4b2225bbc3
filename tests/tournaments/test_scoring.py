"""Scoring is pure: docs/tournaments.md's worked examples (Swiss and Arena duplicate), shares,
streaks and tie-breaks."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tournaments.scoring import (
    PAR_TABLES,
    SeatResult,
    arena_points,
    score_arena,
    score_round,
    shares,
    standings,
)

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


# docs/tournaments.md, "An Arena duplicate, worked": Ligretto Mini, pool deal 1 at three tables
# in the order they ended (seat 0, seat 1).
ARENA = [[("Ann", 6), ("Bob", 9)], [("Cid", 4), ("Dan", 12)], [("Eve", 8), ("Fay", 7)]]


def _arena(ended: int):
    tables = [
        (1, [SeatResult(name, seat, points) for seat, (name, points) in enumerate(table)])
        for table in ARENA[:ended]
    ]
    return {s.key: s for table in score_arena(tables, duplicate=True) for s in table}


def test_the_arena_duplicate_example_of_the_docs():
    # Two tables of deal 1 (below PAR_TABLES): placed on the plain points; Bob won table 1.
    early = _arena(2)
    assert (early["Ann"].par, early["Ann"].round_points, early["Bob"].round_points) == (None, 0, 10)
    assert (early["Ann"].deal_beaten, early["Ann"].deal_holders) == (1, 1)  # beat Cid
    # The third table fills the pars in, and table 1 turns round: Ann's cards were the worse.
    late = _arena(3)
    assert [late[k].par for k in ("Ann", "Bob", "Cid", "Dan", "Eve", "Fay")] == [
        6,
        9.5,
        7,
        8,
        5,
        10.5,
    ]
    assert [late[k].adjusted for k in ("Ann", "Bob", "Cid", "Dan", "Eve", "Fay")] == [
        0,
        -0.5,
        -3,
        4,
        3,
        -3.5,
    ]
    assert {k: s.round_points for k, s in late.items()} == {
        "Ann": 10,
        "Bob": 0,
        "Cid": 0,
        "Dan": 10,
        "Eve": 10,
        "Fay": 0,
    }
    assert (late["Ann"].deal_beaten, late["Ann"].deal_holders) == (1, 2)  # "beat 1 of 2"


def test_an_arena_scores_the_streak_over_its_tables_in_time_order():
    # a wins three tables in a row (fresh deals: plain placing), the third counts double.
    tables = [(k, [SeatResult("a", 0, 5), SeatResult(f"x{k}", 1, 1)]) for k in (1, 2, 3)]
    for duplicate in (True, False):
        got = [t[0] for t in score_arena(tables, duplicate)]
        assert [(s.round_points, s.on_fire) for s in got] == [(10, False), (10, False), (20, True)]
    # A filler's points are its placing's, never doubled; a missed seat scores nothing.
    filler = score_arena(
        [(None, [SeatResult(None, 0, 3), SeatResult("b", 1, 9, missed=True)])], duplicate=False
    )[0]
    assert [(s.round_points, s.share) for s in filler] == [(10, 1.0), (0, 0.0)]


@given(
    # 2 or 4 other holders: their means are exact in floating point, so that a tie stays a tie.
    st.sampled_from([PAR_TABLES, PAR_TABLES + 2]),
    st.integers(2, 4),
    st.lists(st.integers(-20, 20), min_size=24, max_size=24),
    st.lists(st.integers(-15, 15), min_size=4, max_size=4),
)
def test_an_arena_duplicate_cancels_the_luck_of_the_deal(tables, seats, values, luck):
    """Cards that score `luck[seat]` more wherever they are held change no share, no point:
    par moves with them, once the deal was held at PAR_TABLES tables or more."""

    def scored(shift: list[int]) -> list[tuple[float, float]]:
        played = [
            (1, [SeatResult(f"p{t}.{s}", s, values[t * 4 + s] + shift[s]) for s in range(seats)])
            for t in range(tables)
        ]
        return [(x.share, x.round_points) for table in score_arena(played, True) for x in table]

    assert scored(luck) == scored([0, 0, 0, 0])


@given(
    st.lists(
        st.lists(st.tuples(st.integers(-9, 9), st.booleans()), min_size=3, max_size=3),
        min_size=1,
        max_size=7,
    )
)
def test_par_and_the_deal_comparison_are_the_other_holders_of_the_seat(rows):
    """Against the definition, seat by seat: par the mean of the other non-missed holders of the
    same seat, deal_beaten those it did better than (½ a tie)."""
    tables = [
        [SeatResult(f"{t}.{s}", s, v, m) for s, (v, m) in enumerate(r)] for t, r in enumerate(rows)
    ]
    for t, table in enumerate(score_round(tables, duplicate=True)):
        for s in table:
            if s.missed:
                assert s.share == 0 and s.par is None
                continue
            others = [
                tables[u][s.seat].value
                for u in range(len(tables))
                if u != t and not tables[u][s.seat].missed
            ]
            assert s.deal_holders == len(others)
            assert s.deal_beaten == sum((o < s.value) + 0.5 * (o == s.value) for o in others)
            if len(tables) >= PAR_TABLES and others:
                assert s.par == sum(others) / len(others)
            else:
                assert s.par is None
