"""Allegra A9 (end of round, final lap, doubling), A10 (empty deck) and the match (A1)."""

from __future__ import annotations

import random

import pytest

from games.allegra import rules as R

from .helpers import HIDDEN, P, count_cards, grid, make_state, refused, types


def take_discard_and_swap(s: R.State, seat: int, place: dict) -> tuple[R.State, list[dict]]:
    s, ev1 = R.apply(s, seat, {"type": "draw", "source": "discard"})
    s, ev2 = R.apply(s, seat, {"type": "swap", "place": place})
    return s, ev1 + ev2


# A9 ------------------------------------------------------------------------------------------


def test_A9_final_lap_gives_every_other_player_exactly_one_turn() -> None:
    s = make_state(
        [
            grid(*HIDDEN),
            grid("1 2 3 4", "4 3 2 1", "6 7 ?8 9"),
            grid("? ? ? 0", "? ? ? 10", "? ? ? -1"),
            grid(*HIDDEN),
        ],
        turn=1,
        phase="decide",
    )
    # Seat 1 discarded a deck card and now turns its last face-down card.
    s, ev = R.apply(s, 1, {"type": "reveal", "place": P(1, 2, 2)})
    assert types(ev) == ["card_revealed", "round_ending"]
    assert ev[1]["ender"] == 1 and "Seat 1" in ev[1]["message"]
    assert (s.ender, s.turn, s.final_lap) == (1, 2, [3, 0])
    view = R.player_view(s, None)
    assert view["ender"] == 1 and view["turn"] == 2
    played = []
    for seat, place in ((2, P(2, 0, 0)), (3, P(3, 0, 0)), (0, P(0, 0, 0))):
        assert s.turn == seat and s.status == "playing"
        refused("not_your_turn", s, 1, {"type": "draw", "source": "deck"})
        s, ev = take_discard_and_swap(s, seat, place)
        played.append(seat)
    assert played == [2, 3, 0]
    assert s.status == "round_over" and "round_ended" in types(ev)
    assert ev[-1]["ender"] == 1 and "Seat 1 ended round 1" in ev[-1]["message"]
    assert count_cards(s) == 120


def test_A9_a_swap_into_a_shared_column_can_end_the_round_for_its_owner() -> None:
    # Seat 0 turns up seat 1's last face-down card (1's column 3 lies in 0's area).
    s = make_state(
        [
            grid(*HIDDEN),
            grid("1 2 3 ?", "4 3 2 1", "6 7 8 9"),
            grid("? ? ? 0", "? ? ? 10", "? ? ? -1"),
        ],
        discard=[5],
    )
    s, ev = take_discard_and_swap(s, 0, P(1, 0, 3))
    assert types(ev)[-1] == "round_ending" and s.ender == 1
    # Once round from the seat after the active player, skipping the ender: 0 plays once more.
    assert s.turn == 2 and s.final_lap == [0]
    s, _ = take_discard_and_swap(s, 2, P(2, 0, 0))
    assert s.turn == 0
    s, ev = take_discard_and_swap(s, 0, P(0, 0, 0))
    assert s.status == "round_over"


def test_A9_active_player_is_ender_before_a_later_seat() -> None:
    # One swap into 1c3 turns both 0's and 1's areas fully face up: 0 (active) is the ender.
    s = make_state(
        [
            grid("1 2 3 4", "4 3 2 1", "6 7 8 9"),
            grid("2 3 4 ?", "1 2 3 4", "9 8 7 6"),
            grid("? ? ? 0", "? ? ? 10", "? ? ? -1"),
        ],
        discard=[5],
    )
    s, ev = take_discard_and_swap(s, 0, P(1, 0, 3))
    assert s.ender == 0 and s.turn == 1 and s.final_lap == [2]


def ending(a_values: list[int], b_value: int, extra: list[int] | None = None) -> R.State:
    """Two or three seats, every card face up; seat 1 ended; seat 0 plays the last turn.

    Seat 0's area sums to sum(a_values), seat 1's to b_value (shared columns sum to 0), seat 2's
    (if any) to sum(extra). Seat 0's last turn swaps a 0 for a 0 and changes nothing.
    """
    a = [str(v) for v in a_values] + ["."] * (3 - len(a_values))
    grids = [
        grid(f"{a[0]} {a[1]} {a[2]} 0", ". . . 1", ". . . -1"),
        grid(f"{b_value} . . 0", ". . . 1", ". . . -1"),
    ]
    if extra is not None:
        e = [str(v) for v in extra] + ["."] * (3 - len(extra))
        grids.append(grid(f"{e[0]} {e[1]} {e[2]} 0", ". . . 1", ". . . -1"))
    return make_state(grids, discard=[0], ender=1, turn=0, final_lap=[])


@pytest.mark.parametrize(
    ("a", "b", "points", "doubled"),
    [
        ([5], 9, [5, 18], True),  # not lowest, above 0: doubled
        ([9], 5, [9, 5], False),  # lowest
        ([7], 7, [7, 7], False),  # tied for lowest counts as lowest
        ([-1], 0, [-1, 0], False),  # not lowest but 0
        ([-1, -1], -1, [-2, -1], False),  # not lowest but below 0
        ([-1], 1, [-1, 2], True),
    ],
)
def test_A9_doubling_only_when_not_lowest_and_above_zero(a, b, points, doubled) -> None:
    s = ending(a, b)
    s, ev = take_discard_and_swap(s, 0, P(0, 0, 3))
    end = ev[-1]
    assert end["type"] == "round_ended" and end["points"] == points
    assert end["sums"] == [sum(a), b]
    assert end["doubled"] == (1 if doubled else None)
    assert s.scores == [{"round": 1, "points": points}]
    assert ("doubled to" in end["message"]) == doubled
    assert end["message"].startswith("Seat 1 ended round 1.")


def test_A9_three_way_tie_for_lowest_is_not_doubled() -> None:
    s = ending([4], 4, extra=[4])
    s.final_lap = []
    s, ev = take_discard_and_swap(s, 0, P(0, 0, 3))
    assert ev[-1]["points"] == [4, 4, 4]


def test_A9_all_cards_turn_face_up_and_triples_leave_before_scoring() -> None:
    s = ending([3], 9)
    for r in range(3):
        s.grids[0][r][1] = (7, False)  # a hidden column of 7s in seat 0's grid
    s.grids[0][0][2] = (6, False)
    s, ev = take_discard_and_swap(s, 0, P(0, 0, 3))
    assert types(ev)[-3:] == ["cards_turned", "triple_removed", "round_ended"]
    assert ev[-2]["places"] == [P(0, 0, 1), P(0, 1, 1), P(0, 2, 1)]
    assert ev[-1]["sums"] == [9, 9]
    view = R.player_view(s, 1)
    assert view["status"] == "round_over" and view["message"] == s.message
    cells = [c for g in view["grids"] for row in g["cells"] for c in row]
    assert {"hidden": True} not in cells  # A9: everything face up


def test_A9_shared_columns_count_for_both() -> None:
    s = ending([2], 3)
    s.grids[1][0][3] = (11, True)  # seat 1's column 3 is in seat 1's and seat 0's areas
    s.grids[0][0][3] = (10, True)
    s.discard = [10]
    s, ev = take_discard_and_swap(s, 0, P(0, 0, 3))
    assert ev[-1]["sums"] == [2 + 11 + 10, 3 + 11 + 10]


# A10 -----------------------------------------------------------------------------------------


def nearly_empty_deck() -> R.State:
    s = make_state([grid(*HIDDEN), grid(*HIDDEN), grid(*HIDDEN)], discard=[3])
    cards = s.deck
    s.deck, s.discard = cards[-1:], cards[:-1] + [3]
    return s


def test_A10_empty_deck_is_reshuffled_from_the_discard_pile_at_once() -> None:
    s = nearly_empty_deck()
    old_discard = s.discard[:]
    s2, ev = R.apply(s, 0, {"type": "draw", "source": "deck"})
    assert types(ev) == ["card_drawn", "deck_reshuffled"]
    assert s2.discard == [3] and sorted(s2.deck) == sorted(old_discard[:-1])
    assert s2.deck != old_discard[:-1]  # shuffled
    assert s2.reshuffles == 1 and count_cards(s2) == 120
    # Seeded from the round's seed and the reshuffle counter: replayable, and varies.
    again, _ = R.apply(s, 0, {"type": "draw", "source": "deck"})
    assert again.deck == s2.deck
    s.reshuffles = 5
    other, _ = R.apply(s, 0, {"type": "draw", "source": "deck"})
    assert other.deck != s2.deck and sorted(other.deck) == sorted(s2.deck)


def test_A10_a_lone_discard_card_is_not_reshuffled() -> None:
    s = make_state([grid(*HIDDEN), grid(*HIDDEN)], discard=[3])
    s.removed, s.deck = s.deck[:-1], s.deck[-1:]
    s, ev = R.apply(s, 0, {"type": "draw", "source": "deck"})
    assert s.deck == [] and "deck_reshuffled" not in types(ev)
    s, ev = R.apply(s, 0, {"type": "discard"})
    assert types(ev) == ["card_discarded", "deck_reshuffled"] and s.deck == [3]


# The match (A1) ------------------------------------------------------------------------------


def play_randomly(s: R.State, rng: random.Random, until_status: str) -> R.State:
    while s.status != until_status:
        moves = [(seat, a) for seat in range(s.seats) for a in R.legal_actions(s, seat)]
        seat, action = rng.choice(moves)
        s, _ = R.apply(s, seat, action)
    return s


def test_A1_three_rounds_then_finished_lowest_total_wins() -> None:
    rng = random.Random(1)
    s = R.new_match(3, None, 11)
    firsts = [s.first]
    for round_no in (1, 2, 3):
        s = play_randomly(s, rng, "round_over")
        assert s.round == round_no and len(s.scores) == round_no
        refused("round_over", s, 0, {"type": "draw", "source": "deck"})
        # The match's winners show the moment its last round is over, before anyone is ready.
        last = R.player_view(s, 0).get("match_winners")
        assert (last is not None) == (round_no == 3)
        assert R.legal_actions(s, 1) == [{"type": "ready"}]
        s, ev = R.apply(s, 1, {"type": "ready"})
        refused("already_ready", s, 1, {"type": "ready"})
        assert R.player_view(s, 0)["ready"] == [1]
        s, _ = R.apply(s, 0, {"type": "ready"})
        s, ev = R.apply(s, 2, {"type": "ready"})
        if round_no < 3:
            assert types(ev) == ["player_ready", "round_dealt"] and s.status == "playing"
            firsts.append(s.first)
            assert count_cards(s) == 120 and s.phase == "opening"
    assert firsts == [firsts[0], (firsts[0] + 1) % 3, (firsts[0] + 2) % 3]
    assert s.status == "finished" and ev[-1]["type"] == "match_finished"
    totals = [sum(e["points"][i] for e in s.scores) for i in range(3)]
    assert ev[-1]["totals"] == totals
    assert ev[-1]["winners"] == [i for i in range(3) if totals[i] == min(totals)]
    view = R.player_view(s, None)
    assert view["status"] == "finished" and view["winners"] == ev[-1]["winners"] == last
    assert R.legal_actions(s, 0) == []
    refused("match_over", s, 0, {"type": "ready"})


def test_A1_ties_share_the_win_and_rounds_option() -> None:
    s = ending([6], 6)
    s.rounds = 1
    s, _ = take_discard_and_swap(s, 0, P(0, 0, 3))
    s, _ = R.apply(s, 0, {"type": "ready"})
    s, ev = R.apply(s, 1, {"type": "ready"})
    assert s.status == "finished"
    assert ev[-1]["winners"] == [0, 1] and "Seat 0 and Seat 1 win" in ev[-1]["message"]
