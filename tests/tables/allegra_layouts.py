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


def _grid(*rows: str) -> list[list[list[Any]]]:
    """Rows of 4 cells: "4" face up, "?10" face down."""
    return [
        [[int(t.removeprefix("?")), not t.startswith("?")] for t in row.split()] for row in rows
    ]


def _other(value: int, shift: int) -> int:
    # Another card value of A2 (-1..11) for each shift, the same one for shift 0.
    return (value + 1 + shift) % 13 - 1


def hide_differently(data: dict[str, Any], shift: int) -> dict[str, Any]:
    """Change what nobody may see: every face-down value and the deck below its two top cards."""
    for grid in data["grids"]:
        for row in grid:
            for cell in row:
                if cell is not None and not cell[1]:
                    cell[0] = _other(cell[0], shift)
    data["deck"] = [_other(v, shift) for v in data["deck"][:-2]] + data["deck"][-2:]
    return data


def short_round(data: dict[str, Any]) -> dict[str, Any]:
    """Lay out the round described above."""
    data["grids"] = [
        _grid("4 4 2 3", "1 ?10 0 5", "?2 ?6 1 0"),
        _grid("7 ?8 3 9", "-1 ?5 6 2", "?11 3 8 1"),
        _grid("0 ?-1 1 0", "1 ?0 -1 1", "?-1 1 0 -1"),
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
    """`short_round` with the opening done (the same six cards turned), alice to draw; with a
    `hidden_shift`, what nobody may see is different (`hide_differently`)."""
    data = short_round(data)
    for seat, row, col in ((0, 2, 0), (0, 2, 1), (1, 0, 1), (1, 1, 1), (2, 0, 1), (2, 1, 1)):
        data["grids"][seat][row][col][1] = True
    data.update(phase="draw", revealed=[2, 2, 2])
    hide_differently(data, hidden_shift)
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
