"""Allegra A6 (a turn) and G2 (refusals: code, sentence, state unchanged)."""

from __future__ import annotations

import copy

import pytest

from games.allegra import rules as R

from .helpers import HIDDEN, P, count_cards, grid, make_state, refused, types


def two() -> R.State:
    return make_state(
        [
            grid("1 ? ? ?", "? ?5 ? ?", ". ? ? ?"),
            grid("? ? ? 9", "? ? ? ?5", "? ? ? ?"),
        ],
        discard=[4, 2],
        deck=None,
    )


def test_A6_draw_from_deck_is_public_and_swap_replaces_face_up() -> None:
    s = two()
    top = s.deck[-1]
    s2, ev = R.apply(s, 0, {"type": "draw", "source": "deck"})
    assert s2.phase == "decide" and s2.drawn == top
    assert ev == [{"type": "card_drawn", "seat": 0, "source": "deck", "value": top}]
    for seat in (0, 1, None):
        assert R.player_view(s2, seat)["drawn"] == {"value": top}
    legal = R.legal_actions(s2, 0)
    swaps = [a["place"] for a in legal if a["type"] == "swap"]
    assert P(1, 0, 3) in swaps  # the left neighbour's column 3 is in my area
    assert P(0, 2, 0) not in swaps  # empty place
    assert len(swaps) == 14 and {"type": "discard"} in legal
    s3, ev = R.apply(s2, 0, {"type": "swap", "place": P(0, 1, 1)})
    assert s3.grids[0][1][1] == (top, True)
    assert s3.discard[-1] == 5 and R.player_view(s3, 1)["discard_top"] == {"value": 5}
    assert types(ev) == ["card_swapped"] and ev[0]["old"] == 5
    assert s3.turn == 1 and s3.phase == "draw" and s3.drawn is None
    assert count_cards(s3) == 120


def test_A6_from_discard_must_swap() -> None:
    s, _ = R.apply(two(), 0, {"type": "draw", "source": "discard"})
    assert s.drawn == 2 and s.drawn_from == "discard" and s.discard == [4]
    assert all(a["type"] == "swap" for a in R.legal_actions(s, 0))
    refused("must_swap", s, 0, {"type": "discard"})
    s, _ = R.apply(s, 0, {"type": "swap", "place": P(1, 0, 3)})
    assert s.grids[1][0][3] == (2, True) and s.discard == [4, 9]


def test_A6_discard_then_reveal() -> None:
    s, _ = R.apply(two(), 0, {"type": "draw", "source": "deck"})
    top = s.drawn
    s, ev = R.apply(s, 0, {"type": "discard"})
    assert ev == [{"type": "card_discarded", "seat": 0, "value": top}]
    assert s.phase == "decide" and s.drawn is None and s.turn == 0  # A6+
    legal = R.legal_actions(s, 0)
    assert legal and all(a["type"] == "reveal" for a in legal)
    assert R.player_view(s, 0)["drawn"] is None
    refused("wrong_phase", s, 0, {"type": "swap", "place": P(0, 1, 1)})
    refused("wrong_phase", s, 0, {"type": "discard"})
    refused("face_up", s, 0, {"type": "reveal", "place": P(0, 0, 0)})
    refused("face_up", s, 0, {"type": "reveal", "place": P(1, 0, 3)})
    refused("empty_place", s, 0, {"type": "reveal", "place": P(0, 2, 0)})
    refused("not_in_area", s, 0, {"type": "reveal", "place": P(1, 0, 0)})
    refused("not_your_turn", s, 1, {"type": "reveal", "place": P(1, 0, 0)})
    s, ev = R.apply(s, 0, {"type": "reveal", "place": P(1, 1, 3)})
    assert s.grids[1][1][3] == (5, True) and s.turn == 1 and s.phase == "draw"


def test_A6_no_discard_when_nothing_is_face_down() -> None:
    s = make_state(
        [grid("1 2 3 4", "4 3 2 1", "6 7 8 9"), grid("? ? ? 0", "? ? ? 0", "? ? ? -1")],
        phase="decide",
        drawn=10,
        drawn_from="deck",
        ender=None,
    )
    legal = R.legal_actions(s, 0)
    assert {"type": "discard"} not in legal and len(legal) == 15
    refused("must_swap", s, 0, {"type": "discard"})


def test_A6_refusals_order_and_codes() -> None:
    s = two()
    refused("not_your_turn", s, 1, {"type": "draw", "source": "deck"})
    refused("wrong_phase", s, 0, {"type": "swap", "place": P(0, 0, 0)})
    refused("wrong_phase", s, 0, {"type": "reveal", "place": P(0, 0, 1)})
    refused("wrong_phase", s, 0, {"type": "place", "place": P(0, 0, 1)})
    refused("wrong_phase", s, 0, {"type": "take", "from": P(1, 0, 0), "to": P(0, 0, 0)})
    refused("wrong_phase", s, 0, {"type": "ready"})
    s, _ = R.apply(s, 0, {"type": "draw", "source": "deck"})
    # not_your_turn comes before wrong_phase
    refused("not_your_turn", s, 1, {"type": "draw", "source": "deck"})
    refused("not_your_turn", s, 1, {"type": "swap", "place": P(1, 0, 0)})
    refused("wrong_phase", s, 0, {"type": "draw", "source": "deck"})
    refused("wrong_phase", s, 0, {"type": "reveal", "place": P(0, 0, 1)})
    refused("not_in_area", s, 0, {"type": "swap", "place": P(1, 0, 2)})
    refused("not_in_area", s, 0, {"type": "swap", "place": P(5, 0, 0)})
    refused("not_in_area", s, 0, {"type": "swap", "place": P(0, 3, 0)})
    refused("not_in_area", s, 0, {"type": "swap", "place": P(0, 0, 4)})
    refused("empty_place", s, 0, {"type": "swap", "place": P(0, 2, 0)})
    refused("no_knocking", s, 1, {"type": "knock"})
    refused("not_knocked", s, 0, {"type": "give", "to": 1})


@pytest.mark.parametrize(
    "action",
    [
        None,
        [],
        "draw",
        {},
        {"type": "fly"},
        {"type": 3},
        {"type": "draw"},
        {"type": "draw", "source": "hand"},
        {"type": "swap"},
        {"type": "swap", "place": [0, 0, 0]},
        {"type": "swap", "place": {"seat": 0, "row": 0}},
        {"type": "swap", "place": {"seat": 0, "row": "0", "col": 0}},
        {"type": "swap", "place": {"seat": True, "row": 0, "col": 0}},
        {"type": "reveal", "place": {"seat": 0, "row": 0, "col": 1.0}},
        {"type": "take", "from": P(0, 0, 0)},
        {"type": "give"},
        {"type": "give", "to": "1"},
        {"type": "give", "to": True},
    ],
)
def test_G2_malformed_actions_are_bad_action(action) -> None:
    refused("bad_action", two(), 0, action)


@pytest.mark.parametrize("seat", [-1, 2, 9, None, True, "0", 0.0])
def test_G2_unknown_seat(seat) -> None:
    refused("no_such_seat", two(), seat, {"type": "draw", "source": "deck"})


def test_G2_apply_never_mutates_its_input() -> None:
    s = two()
    before = copy.deepcopy(s)
    s2, _ = R.apply(s, 0, {"type": "draw", "source": "deck"})
    R.apply(s2, 0, {"type": "swap", "place": P(0, 0, 0)})
    assert s == before


def test_A6_empty_deck_draw_is_refused_and_not_legal() -> None:
    s = make_state([grid(*HIDDEN), grid(*HIDDEN)], discard=[0])
    # Move every deck card into removed so the deck is empty but all cards are accounted for.
    s.removed, s.deck = s.deck, []
    assert {"type": "draw", "source": "deck"} not in R.legal_actions(s, 0)
    refused("deck_empty", s, 0, {"type": "draw", "source": "deck"})
