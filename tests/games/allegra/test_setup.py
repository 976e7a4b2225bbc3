"""Allegra A1-A5: players and options, the deck, the deal, areas and the opening."""

from __future__ import annotations

from collections import Counter

import pytest

from games.allegra import rules as R
from games.engine import IllegalAction
from games.registry import rules_for

from .helpers import P, count_cards, types


def refused(code: str, fn, *args, **kw) -> None:
    with pytest.raises(IllegalAction) as exc:
        fn(*args, **kw)
    assert exc.value.code == code
    assert exc.value.message.endswith(".")


# A1 ------------------------------------------------------------------------------------------


def test_A1_seat_limits_and_registry() -> None:
    game = rules_for("allegra")
    assert (game.min_seats, game.max_seats) == (2, 6)
    for seats in range(2, 7):
        assert game.check_options(seats, None) == {"rounds": 3, "clock": 30}
    for seats in (0, 1, 7, 12, True, "3", None, 2.0):
        refused("invalid_seats", R.check_options, seats, None)


def test_A1_options_default_and_rounds() -> None:
    assert R.check_options(4, None) == {"rounds": 3, "clock": 30}
    assert R.check_options(4, {}) == {"rounds": 3, "clock": 30}
    assert R.check_options(4, {"rounds": 1}) == {"rounds": 1, "clock": 30}
    assert R.check_options(4, {"rounds": 20}) == {"rounds": 20, "clock": 30}
    # The clock (seconds a decision, 0: none) is the site's to keep; the rules check it only.
    assert R.check_options(4, {"clock": 0}) == {"rounds": 3, "clock": 0}
    assert R.check_options(4, {"clock": 600}) == {"rounds": 3, "clock": 600}


@pytest.mark.parametrize(
    "options",
    [
        {"rounds": True},
        {"rounds": False},
        {"rounds": 0},
        {"rounds": -2},
        {"rounds": 21},
        {"rounds": 10**9},
        {"rounds": "3"},
        {"rounds": 3.0},
        {"rounds": None},
        {"clock": -1},
        {"clock": 601},
        {"clock": True},
        {"clock": "30"},
        {"target": 99},
        {"rounds": 3, "row_variant": False},
        [],
        "rounds",
    ],
)
def test_A1_invalid_options(options) -> None:
    refused("invalid_options", R.check_options, 3, options)
    refused("invalid_options", R.new_match, 3, options, 1)


def test_A1_new_match_validates_and_keeps_rounds() -> None:
    refused("invalid_seats", R.new_match, 7, None, 1)
    assert R.new_match(2, {"rounds": 5}, 1).rounds == 5


# A2 ------------------------------------------------------------------------------------------


def test_A2_deck_table() -> None:
    assert R.DECK_COUNTS == {
        -1: 6, 0: 8, 1: 9, 2: 10, 3: 10, 4: 11, 5: 12, 6: 11, 7: 10, 8: 10, 9: 9, 10: 8, 11: 6,
    }  # fmt: skip
    deck = R.full_deck()
    assert len(deck) == R.DECK_SIZE == 120
    assert Counter(deck) == Counter(R.DECK_COUNTS)


@pytest.mark.parametrize("seats", range(2, 7))
def test_A2_deal_uses_the_whole_deck(seats: int) -> None:
    s = R.new_match(seats, None, 42)
    values = s.deck + s.discard + [c[0] for g in s.grids for row in g for c in row]
    assert Counter(values) == Counter(R.DECK_COUNTS)
    assert count_cards(s) == 120


# A3 ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("seats", range(2, 7))
def test_A3_grids_face_down_and_one_discard(seats: int) -> None:
    s = R.new_match(seats, None, 3)
    assert len(s.grids) == seats
    for g in s.grids:
        assert len(g) == 3 and all(len(row) == 4 for row in g)
        assert all(c is not None and c[1] is False for row in g for c in row)
    assert len(s.discard) == 1
    assert len(s.deck) == 120 - 12 * seats - 1
    view = R.player_view(s, 0)
    assert view["discard_top"] == {"value": s.discard[-1]}
    assert view["deck_count"] == len(s.deck)
    assert all(
        cell == {"hidden": True} for g in view["grids"] for row in g["cells"] for cell in row
    )


# A4 ------------------------------------------------------------------------------------------


def grid_cols(seats: int, seat: int) -> list[tuple[int, int]]:
    """Return (grid seat, col) of the five area columns."""
    rows = R.area_rows(seats, seat)
    cols = [(p[0], p[2]) for p in rows[0]]
    for r, row in enumerate(rows):
        assert [(p[0], p[2]) for p in row] == cols
        assert all(p[1] == r for p in row)
    return cols


def test_A4_areas_two_players() -> None:
    assert grid_cols(2, 0) == [(1, 3), (0, 0), (0, 1), (0, 2), (0, 3)]
    assert grid_cols(2, 1) == [(0, 3), (1, 0), (1, 1), (1, 2), (1, 3)]


def test_A4_areas_three_players() -> None:
    assert grid_cols(3, 0) == [(1, 3), (0, 0), (0, 1), (0, 2), (0, 3)]
    assert grid_cols(3, 1) == [(2, 3), (1, 0), (1, 1), (1, 2), (1, 3)]
    assert grid_cols(3, 2) == [(0, 3), (2, 0), (2, 1), (2, 2), (2, 3)]


def test_A4_areas_six_players() -> None:
    for seat in range(6):
        assert grid_cols(6, seat) == [((seat + 1) % 6, 3)] + [(seat, c) for c in range(4)]
    # Every rightmost column lies in exactly two areas (owner and right neighbour), others in one.
    seen = Counter(gc for seat in range(6) for gc in grid_cols(6, seat))
    for seat in range(6):
        assert [seen[(seat, c)] for c in range(4)] == [1, 1, 1, 2]


@pytest.mark.parametrize("seats", [2, 3, 6])
def test_A4_view_areas_match(seats: int) -> None:
    s = R.new_match(seats, None, 1)
    view = R.player_view(s, None)
    assert [a["seat"] for a in view["areas"]] == list(range(seats))
    for a in view["areas"]:
        assert len(a["places"]) == 3 and all(len(row) == 5 for row in a["places"])
        want = [[P(*p) for p in row] for row in R.area_rows(seats, a["seat"])]
        assert a["places"] == want


# A5 ------------------------------------------------------------------------------------------


def test_A5_opening_reveals_two_of_the_area_all_at_once() -> None:
    s = R.new_match(3, None, 5)
    assert s.phase == "opening"
    view = R.player_view(s, 1)
    assert view["turn"] == s.first  # A5+: turn already names who begins
    assert view["revealed_count"] == [0, 0, 0]
    # Every seat may reveal at once, any face-down card of its area (incl. the neighbour's col 3).
    assert len(R.legal_actions(s, 0)) == 15
    s, ev = R.apply(s, 2, {"type": "reveal", "place": P(0, 1, 3)})  # seat 0's col 3 is in 2's area
    assert types(ev) == ["card_revealed"]
    assert ev[0]["value"] == s.grids[0][1][3][0] and s.grids[0][1][3][1]
    # The same card is now face up for seat 0 as well.
    refused("face_up", R.apply, s, 0, {"type": "reveal", "place": P(0, 1, 3)})
    refused("not_in_area", R.apply, s, 0, {"type": "reveal", "place": P(2, 0, 0)})
    assert len(R.legal_actions(s, 0)) == 14
    s, _ = R.apply(s, 0, {"type": "reveal", "place": P(0, 0, 0)})
    s, _ = R.apply(s, 2, {"type": "reveal", "place": P(2, 0, 0)})
    refused("no_more_reveals", R.apply, s, 2, {"type": "reveal", "place": P(2, 0, 1)})
    assert R.legal_actions(s, 2) == []
    refused("wrong_phase", R.apply, s, 0, {"type": "draw", "source": "deck"})
    s, _ = R.apply(s, 1, {"type": "reveal", "place": P(1, 0, 0)})
    s, _ = R.apply(s, 1, {"type": "reveal", "place": P(2, 2, 3)})
    assert s.phase == "opening"
    s, ev = R.apply(s, 0, {"type": "reveal", "place": P(1, 2, 3)})
    assert s.phase == "draw" and s.turn == s.first
    assert types(ev)[-1] == "opening_ended"
    assert R.legal_actions(s, s.first) == [
        {"type": "draw", "source": "deck"},
        {"type": "draw", "source": "discard"},
    ]
    assert "revealed_count" not in R.player_view(s, 0)


def test_A5_first_player_random_in_round_one_then_next_seat() -> None:
    firsts = {R.new_match(4, None, seed).first for seed in range(40)}
    assert firsts == {0, 1, 2, 3}  # random, but...
    assert R.new_match(4, None, 9).first == R.new_match(4, None, 9).first  # ...from the seed
    s = R.new_match(4, None, 9)
    first = s.first
    s.status, s.scores, s.ready = "round_over", [{"round": 1, "points": [0, 0, 0, 0]}], []
    for seat in range(4):
        s, ev = R.apply(s, seat, {"type": "ready"})
    assert s.round == 2 and s.phase == "opening" and s.first == (first + 1) % 4 == s.turn
    assert ev[-1] == {"type": "round_dealt", "round": 2, "first": s.first}
