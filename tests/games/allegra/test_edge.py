"""Allegra edge cases the rules leave open (A6, A7, A9): empty piles and emptied areas."""

from __future__ import annotations

from games.allegra import rules as R

from .helpers import HIDDEN, P, grid, make_state, refused, types

EMPTY = (". . . .",) * 3


def test_A6_empty_discard_pile_cannot_be_drawn() -> None:
    s = make_state([grid(*HIDDEN), grid(*HIDDEN)], discard=[])
    assert R.legal_actions(s, 0) == [{"type": "draw", "source": "deck"}]
    assert R.player_view(s, 0)["discard_top"] is None
    refused("discard_empty", s, 0, {"type": "draw", "source": "discard"})


def emptied() -> R.State:
    # Areas of seats 2 and 3 hold no card at all (4 seats): 2 = [3c3, 2c*], 3 = [0c3, 3c*].
    return make_state(
        [
            grid("? ? ? .", "? ? ? .", "? ? ? ."),
            grid(*HIDDEN),
            grid(*EMPTY),
            grid(*EMPTY),
        ],
        discard=[4],
    )


def test_A7_a_player_with_an_empty_area_cannot_knock() -> None:
    s, _ = R.apply(emptied(), 0, {"type": "draw", "source": "deck"})
    assert R.legal_actions(s, 3) == [] and R.legal_actions(s, 1) == [{"type": "knock"}]
    refused("empty_area", s, 3, {"type": "knock"})


def test_A9_a_player_with_an_empty_area_is_the_ender_and_is_skipped() -> None:
    s, _ = R.apply(emptied(), 0, {"type": "draw", "source": "discard"})
    s, ev = R.apply(s, 0, {"type": "swap", "place": P(0, 0, 0)})
    # An empty area counts as all face up: seat 2 is the first such seat after 0.
    assert ev[-1] == {
        "type": "round_ending", "ender": 2, "message": ev[-1]["message"],
    }  # fmt: skip
    assert s.turn == 1 and s.final_lap == [3, 0]
    s, _ = R.apply(s, 1, {"type": "draw", "source": "discard"})
    s, ev = R.apply(s, 1, {"type": "swap", "place": P(1, 0, 0)})
    # Seat 3 has no card to swap or reveal: its turn passes at once.
    assert types(ev)[-1] == "turn_skipped" and ev[-1]["seat"] == 3
    assert s.turn == 0 and s.final_lap == []
    s, _ = R.apply(s, 0, {"type": "draw", "source": "discard"})
    s, ev = R.apply(s, 0, {"type": "swap", "place": P(0, 1, 0)})
    assert s.status == "round_over"
    assert ev[-1]["points"][2] == 0 and ev[-1]["points"][3] == 0
