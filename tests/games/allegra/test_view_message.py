"""Allegra views carry the caller's `seat` and a `message` on what just happened (api.md)."""

from __future__ import annotations

import random

from games.allegra import rules as R

from .helpers import HIDDEN, P, grid, make_state, types
from .test_end import play_randomly


def test_A5_views_name_their_seat_and_the_deal_message_lasts_through_the_opening() -> None:
    s = R.new_match(3, None, 4)
    said = f"Round 1 is dealt: everyone turns two cards face up, then Seat {s.first} begins."
    for seat in (0, 1, 2, None):
        view = R.player_view(s, seat)
        assert view["seat"] == seat and view["message"] == said
    for seat in range(3):
        for _ in range(2):
            s, ev = R.apply(s, seat, R.legal_actions(s, seat)[0])
            if seat < 2:
                assert R.player_view(s, 0)["message"] == said
    assert "opening_ended" in types(ev)
    assert R.player_view(s, 1)["message"] is None  # the first turn clears it


def test_A9_the_final_lap_is_the_message_until_the_round_ends() -> None:
    s = make_state(
        [
            grid(*HIDDEN),
            grid("1 2 3 4", "4 3 2 1", "6 7 ?8 9"),
            grid("? ? ? 0", "? ? ? 10", "? ? ? -1"),
        ],
        turn=1,
        phase="decide",
    )
    s, ev = R.apply(s, 1, {"type": "reveal", "place": P(1, 2, 2)})
    said = "Seat 1 has every card face up: everyone else gets one more turn."
    assert ev[-1]["message"] == said
    for seat in (2, 0):
        assert R.player_view(s, None)["message"] == said
        s, _ = R.apply(s, seat, {"type": "draw", "source": "discard"})
        assert R.player_view(s, seat)["message"] == said
        s, ev = R.apply(s, seat, {"type": "swap", "place": P(seat, 0, 0)})
    assert s.status == "round_over" and ev[-1]["type"] == "round_ended"
    assert R.player_view(s, 2)["message"] == ev[-1]["message"]
    assert ev[-1]["message"].startswith("Seat 1 ended round 1.")


def test_A1_the_next_deal_and_the_match_result_are_the_message() -> None:
    rng = random.Random(3)
    s = R.new_match(2, {"rounds": 2}, 9)
    s = play_randomly(s, rng, "round_over")
    ended = s.message
    assert ended.endswith(".") and "ended round 1" in ended
    s, _ = R.apply(s, 0, {"type": "ready"})
    assert R.player_view(s, 1)["message"] == ended  # it lasts through round_over
    s, _ = R.apply(s, 1, {"type": "ready"})
    assert R.player_view(s, 0)["message"] == (
        f"Round 2 is dealt: everyone turns two cards face up, then Seat {s.first} begins."
    )
    s = play_randomly(s, rng, "round_over")
    for seat in (0, 1):
        s, ev = R.apply(s, seat, {"type": "ready"})
    assert s.status == "finished"
    assert R.player_view(s, None)["message"] == ev[-1]["message"]
    assert "the match with" in ev[-1]["message"]
