"""Allegra A8: triples in rows of an area (neighbour's column included) and in columns."""

from __future__ import annotations

from games.allegra import rules as R

from .helpers import HIDDEN, P, count_cards, grid, make_state, types


def swap_in(s: R.State, seat: int, value: int, place: dict) -> tuple[R.State, list[dict]]:
    """Let `seat` (the active player) swap `value`, as if just drawn from the discard pile."""
    s.deck.remove(value)  # keep all 120 cards accounted for
    s.phase, s.drawn, s.drawn_from, s.turn = "decide", value, "discard", seat
    return R.apply(s, seat, {"type": "swap", "place": place})


def test_A8_row_triple_uses_the_left_neighbours_column() -> None:
    # Seat 0's area row 0 reads [1's col 3, 0's col 0..3] = [4, 4, _, ...].
    s = make_state([grid("4 ? ? ?", *HIDDEN[1:]), grid("? ? ? 4", *HIDDEN[1:])], discard=[0])
    s, ev = swap_in(s, 0, 4, P(0, 0, 1))
    assert types(ev) == ["card_swapped", "triple_removed"]
    assert ev[1]["places"] == [P(0, 0, 0), P(0, 0, 1), P(1, 0, 3)]
    assert ev[1]["values"] == [4, 4, 4]
    assert s.grids[1][0][3] is None and s.grids[0][0][:2] == [None, None]
    assert s.removed == [4, 4, 4] and count_cards(s) == 120
    view = R.player_view(s, 1)
    assert view["grids"][1]["cells"][0][3] is None and view["grids"][0]["cells"][0][0] is None


def test_A8_column_triple_in_a_shared_column_counts_for_both() -> None:
    # Seat 1's column 3 is in seat 1's area and in seat 0's (3 seats).
    s = make_state(
        [grid(*HIDDEN), grid("? ? ? 9", "? ? ? 9", "? ? ? ?"), grid(*HIDDEN)], discard=[0]
    )
    before0, before1 = R.area_sum(s, 0), R.area_sum(s, 1)
    col = [s.grids[1][r][3][0] for r in range(3)]
    # Seat 0 makes the triple in its own area, which is the owner's column as well.
    s, ev = swap_in(s, 0, 9, P(1, 2, 3))
    assert ev[-1]["type"] == "triple_removed"
    assert ev[-1]["places"] == [P(1, 0, 3), P(1, 1, 3), P(1, 2, 3)]
    assert R.area_sum(s, 0) == before0 - sum(col)
    assert R.area_sum(s, 1) == before1 - sum(col)


def test_A8_a_triple_in_two_areas_and_overlapping_triples_leave_together() -> None:
    # Row 0: seat 1's area [2c3, 1c0..3] = [?, ?, 5, 5, _5]; seat 0's area [1c3, 0c0, 0c1, ...]
    # = [_5, 5, 5, ...]. Revealing the 5 at 1c3 makes a triple in each area; all five leave at once.
    s = make_state([grid("5 5 ? ?", *HIDDEN[1:]), grid("? 5 5 ?", *HIDDEN[1:]), grid(*HIDDEN)])
    s.grids[1][0][3] = (5, False)
    s.turn, s.phase = 0, "decide"
    s.drawn, s.drawn_from = None, None  # seat 0 discarded and now reveals the shared card
    s, ev = R.apply(s, 0, {"type": "reveal", "place": P(1, 0, 3)})
    assert types(ev) == ["card_revealed", "triple_removed"]
    assert ev[1]["places"] == [P(0, 0, 0), P(0, 0, 1), P(1, 0, 1), P(1, 0, 2), P(1, 0, 3)]
    assert ev[1]["values"] == [5] * 5


def test_A8_five_equal_in_a_row_all_leave() -> None:
    s = make_state([grid("2 2 2 2", *HIDDEN[1:]), grid("? ? ? ?", *HIDDEN[1:])])
    s.grids[1][0][3] = (2, True)
    # Already a row of five 2s: any change triggers the check for all areas.
    s, ev = swap_in(s, 0, 3, P(0, 2, 2))
    assert ev[-1]["type"] == "triple_removed" and len(ev[-1]["places"]) == 5


def test_A8_empty_places_and_face_down_cards_break_triples() -> None:
    s = make_state([grid("3 . 3 ?", *HIDDEN[1:]), grid("? ? ? ?3", *HIDDEN[1:])])
    s, ev = swap_in(s, 0, 3, P(0, 0, 3))  # 3 _ 3 3 and ?3 at 1c3: no triple
    assert types(ev) == ["card_swapped"]
    assert R.find_triples(s) == set()


def test_A8_triple_made_by_another_player_in_my_column() -> None:
    # Seat 1 swaps into seat 2's column 3 (in 1's area), completing seat 2's column.
    s = make_state([grid(*HIDDEN), grid(*HIDDEN), grid("? ? ? 6", "? ? ? 6", "? ? ? ?")])
    s, ev = swap_in(s, 1, 6, P(2, 2, 3))
    assert ev[-1]["places"] == [P(2, 0, 3), P(2, 1, 3), P(2, 2, 3)]


def test_A8_triple_in_the_opening() -> None:
    s = make_state(
        [grid("? ? ? ?", *HIDDEN[1:]), grid("? ? ? ?", *HIDDEN[1:])],
        phase="opening",
        revealed=[0, 0],
    )
    for p in ((0, 0, 0), (0, 0, 1), (1, 0, 3)):
        s.grids[p[0]][p[1]][p[2]] = (8, False)
    s, _ = R.apply(s, 0, {"type": "reveal", "place": P(0, 0, 0)})
    s, _ = R.apply(s, 1, {"type": "reveal", "place": P(1, 0, 3)})
    s, ev = R.apply(s, 0, {"type": "reveal", "place": P(0, 0, 1)})
    assert ev[-1]["type"] == "triple_removed"
    assert s.phase == "opening" and R.legal_actions(s, 1)  # seat 1 still has one reveal
