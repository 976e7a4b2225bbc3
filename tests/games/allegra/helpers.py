"""Allegra test helpers: hand-crafted states from a compact grid notation.
Pure test code: it builds `State` objects directly so every card stays accounted for."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from games.allegra import rules as R
from games.engine import IllegalAction

HID = "?"  # a face-down card whose value make_state picks from the cards left over


def cell(tok: str) -> Any:
    """Parse one cell: "5" face up, "?5" face down, "?" face down of any value, "." empty."""
    if tok == ".":
        return None
    if tok == "?":
        return HID
    if tok.startswith("?"):
        return (int(tok[1:]), False)
    return (int(tok), True)


def grid(*rows: str) -> list[list[R.Cell]]:
    """Parse a grid of 3 rows, each 4 space-separated cells."""
    assert len(rows) == 3
    out = [[cell(t) for t in row.split()] for row in rows]
    assert all(len(r) == 4 for r in out)
    return out


HIDDEN = ("? ? ? ?",) * 3  # an all face-down grid


def make_state(grids: list[list[list[R.Cell]]], **kw: Any) -> R.State:
    """Build a playing state around `grids`; the deck holds every card not placed elsewhere."""
    seats = len(grids)
    discard = list(kw.pop("discard", [0]))
    drawn = kw.get("drawn")
    hand = kw.get("hand")
    removed = list(kw.pop("removed", []))
    used = Counter(c[0] for g in grids for row in g for c in row if c not in (None, HID))
    used.update(discard)
    used.update(removed)
    used.update(v for v in (drawn, hand) if v is not None)
    left = Counter(R.DECK_COUNTS) - used
    assert not (used - Counter(R.DECK_COUNTS)), "more cards of a value than the deck holds"
    pool = sorted(left.elements())
    grids = [[row[:] for row in g] for g in grids]
    k = 0
    for g in grids:
        for row in g:
            for i, c in enumerate(row):
                if c == HID:
                    # Spread the picks over the values so hidden cards differ.
                    k = (k + 37) % len(pool)
                    v = pool.pop(k)
                    row[i] = (v, False)
                    left[v] -= 1
    deck = kw.pop("deck", None)
    if deck is None:
        deck = sorted(left.elements())
    else:
        assert Counter(deck) == left, "deck must hold exactly the remaining cards"
    base: dict[str, Any] = {
        "seats": seats,
        "rounds": 3,
        "seed": 7,
        "round": 1,
        "round_seed": R.round_seed_for(7, 1),
        "first": 0,
        "grids": [[row[:] for row in g] for g in grids],
        "deck": list(deck),
        "discard": discard,
        "status": "playing",
        "phase": "draw",
        "turn": 0,
        "revealed": [2] * seats,
        "removed": removed,
    }
    base.update(kw)
    return R.State(**base)


def count_cards(s: R.State) -> int:
    """Count every card of the match wherever it is (A2: always 120)."""
    on_table = sum(1 for g in s.grids for row in g for c in row if c is not None)
    held = (s.drawn is not None) + (s.hand is not None)
    return len(s.deck) + len(s.discard) + on_table + held + len(s.removed)


def P(seat: int, row: int, col: int) -> dict[str, int]:  # noqa: N802 - reads like a constructor
    """Return an API place."""
    return {"seat": seat, "row": row, "col": col}


def types(events: list[dict[str, Any]]) -> list[str]:
    """Return the event types in order."""
    return [e["type"] for e in events]


def refused(code: str, s: R.State, seat: Any, action: Any) -> None:
    """Assert that `action` is refused with `code` and leaves `s` unchanged (G2)."""
    before = R.dump(s)
    with pytest.raises(IllegalAction) as exc:
        R.apply(s, seat, action)
    assert exc.value.code == code, exc.value.message
    assert R.dump(s) == before
