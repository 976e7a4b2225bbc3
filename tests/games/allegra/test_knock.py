"""Allegra A7: knocking with its three steps (3+ players), and the A7+ details."""

from __future__ import annotations

import pytest

from games.allegra import rules as R

from .helpers import HIDDEN, P, count_cards, grid, make_state, refused, types


def deciding(grids, drawn: int = 0, **kw) -> R.State:
    """Seat 0 holds a card fresh from the deck."""
    return make_state(grids, phase="decide", drawn=drawn, drawn_from="deck", **kw)


def three() -> R.State:
    return deciding(
        [
            grid("9 ? ? ?", "? ? ? ?", "? ? ? ?"),
            grid("1 ? 2 ?", "? ? ? ?", "? ? ? ?"),
            grid("? ? ? 3", "? ? ? ?", "? ? ? ?"),
        ],
        drawn=-1,
    )


def test_A7_who_may_knock() -> None:
    s = three()
    assert R.legal_actions(s, 1) == [{"type": "knock"}] == R.legal_actions(s, 2)
    refused("own_turn", s, 0, {"type": "knock"})
    s, ev = R.apply(s, 2, {"type": "knock"})
    assert ev == [{"type": "knocked", "seat": 2}]
    refused("already_knocked", s, 2, {"type": "knock"})
    assert R.legal_actions(s, 2) == []
    s, _ = R.apply(s, 1, {"type": "knock"})
    view = R.player_view(s, 0)
    assert view["knocks"] == [2, 1]
    gives = [a for a in view["legal"] if a["type"] == "give"]
    assert gives == [{"type": "give", "to": 2}, {"type": "give", "to": 1}]
    assert {"type": "discard"} in view["legal"]
    assert sum(a["type"] == "swap" for a in view["legal"]) == 15


def test_A7_no_knock_with_two_players_or_on_a_discard_card() -> None:
    s = deciding([grid(*HIDDEN), grid(*HIDDEN)])
    assert R.legal_actions(s, 1) == []
    refused("no_knocking", s, 1, {"type": "knock"})
    s = make_state([grid(*HIDDEN)] * 3, phase="decide", drawn=0, drawn_from="discard")
    assert R.legal_actions(s, 1) == []
    refused("wrong_phase", s, 1, {"type": "knock"})
    s = make_state([grid(*HIDDEN)] * 3)  # draw phase
    refused("wrong_phase", s, 1, {"type": "knock"})


@pytest.mark.parametrize(
    "action", [{"type": "swap", "place": P(0, 1, 1)}, {"type": "discard"}], ids=["swap", "discard"]
)
def test_A7_knocks_lapse_when_the_active_player_decides(action) -> None:
    s, _ = R.apply(three(), 1, {"type": "knock"})
    s, _ = R.apply(s, 0, action)
    assert s.knocks == [] and R.player_view(s, None)["knocks"] == []
    assert not any(a["type"] == "give" for a in R.legal_actions(s, 0))
    assert R.legal_actions(s, 2) == []  # no deck card awaits a decision any more


def test_A7_knock_sequence_end_to_end() -> None:
    s = three()
    deck_top = s.deck[-1]
    s, _ = R.apply(s, 1, {"type": "knock"})
    s, ev = R.apply(s, 0, {"type": "give", "to": 1})
    assert ev == [{"type": "card_given", "seat": 0, "to": 1, "value": -1}]
    assert (s.phase, s.knocker, s.turn, s.knocks) == ("knock_place", 1, 0, [])
    view = R.player_view(s, 2)
    assert view["drawn"] == {"value": -1} and view["knocker"] == 1 and view["hand"] is None
    # Only the knocker acts now; he may use any non-empty place of his area.
    assert R.legal_actions(s, 0) == []
    refused("not_your_turn", s, 0, {"type": "swap", "place": P(0, 0, 0)})
    refused("not_your_turn", s, 2, {"type": "place", "place": P(2, 0, 0)})
    refused("not_in_area", s, 1, {"type": "place", "place": P(0, 0, 0)})
    places = [a["place"] for a in R.legal_actions(s, 1)]
    assert places == [P(*p) for p in R.area_places(3, 1)]
    # Step 1: the knocker swaps the card in; his old card goes face up into his hand.
    s, ev = R.apply(s, 1, {"type": "place", "place": P(1, 1, 1)})
    old = ev[0]["old"]
    assert ev[0] == {
        "type": "card_placed", "seat": 1, "place": P(1, 1, 1), "value": -1, "old": old,
    }  # fmt: skip
    assert s.grids[1][1][1] == (-1, True) and s.hand == old
    view = R.player_view(s, 0)
    assert view["drawn"] is None and view["hand"] == {"value": old} and view["knocker"] == 1
    assert s.phase == "knock_take" and s.turn == 0
    # Step 2: take from the knocker's area outside mine (his column 3 is in my area).
    legal = R.legal_actions(s, 0)
    froms = {tuple(a["from"].values()) for a in legal}
    mine = R.area_set(3, 0)
    assert froms == {p for p in R.area_places(3, 1) if p not in mine}
    assert len(legal) == len(froms) * 15
    refused("in_own_area", s, 0, {"type": "take", "from": P(1, 0, 3), "to": P(0, 0, 0)})
    refused("not_in_area", s, 0, {"type": "take", "from": P(0, 0, 1), "to": P(0, 0, 0)})
    refused("not_in_area", s, 0, {"type": "take", "from": P(1, 0, 0), "to": P(2, 0, 0)})
    refused("not_your_turn", s, 1, {"type": "take", "from": P(1, 0, 0), "to": P(0, 0, 0)})
    hidden = s.grids[2][1][3]
    assert hidden is not None and not hidden[1]
    # Take the knocker's face-down card from his left neighbour's column (it turns face up).
    s, ev = R.apply(s, 0, {"type": "take", "from": P(2, 1, 3), "to": P(0, 0, 0)})
    assert types(ev) == ["card_taken", "hole_filled"]
    assert ev[0]["value"] == hidden[0] and ev[0]["old"] == 9
    assert s.grids[0][0][0] == (hidden[0], True)
    assert s.discard[-1] == 9
    # Step 3: the knocker's hand card fills the hole, face up.
    assert ev[1] == {"type": "hole_filled", "seat": 1, "place": P(2, 1, 3), "value": old}
    assert s.grids[2][1][3] == (old, True)
    assert (s.hand, s.knocker, s.phase, s.turn) == (None, None, "draw", 1)
    assert s.deck[-1] == deck_top
    assert count_cards(s) == 120


def test_A7_steps_two_and_three_skipped_when_nothing_is_outside() -> None:
    # Knocker 1's area: [2's col 3, own cols 0..3]; only his col 3 lies in active 0's area.
    s = deciding(
        [
            grid("? ? ? ?", "? ? ? ?", "? ? ? ?"),
            grid(". . . ?", ". . . ?", ". . . ?"),
            grid("? ? ? .", "? ? ? .", "? ? ? ."),
        ],
        drawn=4,
        knocks=[1],
    )
    s, _ = R.apply(s, 0, {"type": "give", "to": 1})
    s, ev = R.apply(s, 1, {"type": "place", "place": P(1, 0, 3)})
    old = ev[0]["old"]
    assert types(ev) == ["card_placed", "hand_discarded"]
    assert s.discard[-1] == old and s.hand is None and s.knocker is None
    assert (s.turn, s.phase) == (1, "draw")
    assert count_cards(s) == 120


def test_A7_triples_after_each_step_with_the_hole_empty() -> None:
    # Active 0, knocker 1 (4 seats: only 1's column 3 is also in 0's area).
    s = deciding(
        [
            grid("7 7 ? ?", "? ? ? ?", "? ? ? ?"),
            grid("? 6 6 8", "8 7 8 ?", "? ? ? ?"),
            grid(*HIDDEN),
            grid(*HIDDEN),
        ],
        drawn=6,
        knocks=[1],
    )
    s, _ = R.apply(s, 0, {"type": "give", "to": 1})
    # Step 1 makes 6 6 6 in the knocker's row 0: removed at once; his old 8 goes to his hand.
    s, ev = R.apply(s, 1, {"type": "place", "place": P(1, 0, 3)})
    assert types(ev) == ["card_placed", "triple_removed"]
    assert ev[1]["places"] == [P(1, 0, 1), P(1, 0, 2), P(1, 0, 3)]
    assert s.hand == 8
    # Step 2 takes the 7 between the 8s: 7 7 7 forms in my row; the hole (8 _ 8) is no triple
    # until step 3 fills it with the hand card, which then makes 8 8 8.
    s, ev = R.apply(s, 0, {"type": "take", "from": P(1, 1, 1), "to": P(0, 0, 2)})
    assert types(ev) == [
        "card_taken", "triple_removed", "hole_filled", "triple_removed",
    ]  # fmt: skip
    assert ev[1]["places"] == [P(0, 0, 0), P(0, 0, 1), P(0, 0, 2)]
    assert ev[3]["places"] == [P(1, 1, 0), P(1, 1, 1), P(1, 1, 2)]
    assert s.grids[1][1][:3] == [None, None, None]
    assert count_cards(s) == 120 and s.turn == 1
