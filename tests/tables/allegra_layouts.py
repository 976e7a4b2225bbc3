"""Known Allegra deals for table tests: written into a started room's round with `set_state`.

`short_round` is a 3-seat round (alice 0, bob 1, carol 2) that reaches every part of a turn in
a few actions, played in this order:

- the opening: alice turns (0,2,0) and (0,2,1), bob (1,0,1) and (1,1,1), carol (2,0,1), (2,1,1);
- alice draws the 4 from the deck; bob knocks; alice gives him the 4; bob places it on (1,0,3),
  his right column, which is in alice's area too: with alice's two 4s beside it, that row of her
  area holds a triple across the shared column, and it leaves (A8); bob's old 9 is in his hand;
- alice takes bob's -1 at (1,1,0) into her face-down (0,1,1); the 9 fills the hole. Her area is
  now all face up: she ended the round (A9), and the final lap begins;
- bob draws the 5, discards it and turns (1,2,0) face up; carol takes the 5 from the discard
  and swaps it for her face-down (2,2,0). The round ends: alice's 22 is not the lowest (carol
  has 14), so it is doubled to 44; bob has 63.
"""

from __future__ import annotations

from typing import Any


def _grid(*rows: str, hidden_shift: int = 0) -> list[list[list[Any]]]:
    """Rows of 4 cells: "4" face up, "?10" face down (its value moved by `hidden_shift`)."""
    out = []
    for row in rows:
        cells = []
        for tok in row.split():
            if tok.startswith("?"):
                cells.append([int(tok[1:]) + hidden_shift, False])
            else:
                cells.append([int(tok), True])
        out.append(cells)
    return out


def short_round(data: dict[str, Any], hidden_shift: int = 0) -> dict[str, Any]:
    """Lay out the round described above (face-down values moved by `hidden_shift`)."""
    h = hidden_shift
    data["grids"] = [
        _grid("4 4 2 3", "1 ?10 0 5", "?2 ?6 1 0", hidden_shift=h),
        _grid("7 ?8 3 9", "-1 ?5 6 2", "?11 3 8 1", hidden_shift=h),
        _grid("0 ?-1 1 0", "1 ?0 -1 1", "?-1 1 0 -1", hidden_shift=h),
    ]
    # The top of the deck is its last card: alice draws the 4, bob the 5.
    data["deck"] = [6, 7, 8, 2, 3, 9, 10, 6, 7, 8, 2, 3, 5, 4]
    data["discard"] = [11]
    data.update(
        status="playing",
        phase="opening",
        turn=0,
        first=0,
        revealed=[0, 0, 0],
        drawn=None,
        drawn_from=None,
        knocks=[],
        knocker=None,
        hand=None,
        ender=None,
        final_lap=[],
        removed=[],
        scores=[],
        sheet=[],
        ready=[],
        rounds=1,
        message=None,
    )
    return data


def after_opening(data: dict[str, Any], hidden_shift: int = 0) -> dict[str, Any]:
    """`short_round` with the opening done: the same six cards turned, alice to draw."""
    data = short_round(data, hidden_shift)
    for seat, row, col in ((0, 2, 0), (0, 2, 1), (1, 0, 1), (1, 1, 1), (2, 0, 1), (2, 1, 1)):
        data["grids"][seat][row][col][1] = True
        # A turned card shows the same value in every variant of the deal.
        data["grids"][seat][row][col][0] -= hidden_shift
    data.update(phase="draw", revealed=[2, 2, 2])
    return data


def place(seat: int, row: int, col: int) -> dict[str, int]:
    return {"seat": seat, "row": row, "col": col}


# The actions of the short round after the opening, by seat, as listed in the docstring.
SHORT_ROUND_TURNS: list[tuple[int, dict[str, Any]]] = [
    (0, {"type": "draw", "source": "deck"}),
    (1, {"type": "knock"}),
    (0, {"type": "give", "to": 1}),
    (1, {"type": "place", "place": place(1, 0, 3)}),
    (0, {"type": "take", "from": place(1, 1, 0), "to": place(0, 1, 1)}),
    (1, {"type": "draw", "source": "deck"}),
    (1, {"type": "discard"}),
    (1, {"type": "reveal", "place": place(1, 2, 0)}),
    (2, {"type": "draw", "source": "discard"}),
    (2, {"type": "swap", "place": place(2, 2, 0)}),
]
