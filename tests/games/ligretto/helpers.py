"""Builders for hand-crafted Ligretto states and checks shared by the Ligretto tests."""

from __future__ import annotations

from collections import Counter
from typing import Any

from games.ligretto import rules as R

LETTERS = {"r": "red", "y": "yellow", "g": "green", "b": "blue"}


def c(text: str, owner: int = 0) -> list[Any]:
    """Return a dumped card from "r3" (owner given) or "r3@1" (owner after the @)."""
    if "@" in text:
        text, who = text.split("@")
        owner = int(who)
    return [LETTERS[text[0]], int(text[1:]), owner]


def build(
    players: list[dict[str, Any]],
    center: list[list[str]] | None = None,
    preset: str = "ligretto",
    options: dict[str, Any] | None = None,
    status: str = "playing",
    scores: list[list[int]] | None = None,
    round_no: int = 1,
    ready: list[int] | None = None,
) -> R.State:
    """Load a state from short card names; each player's cards belong to him unless "@s" says."""
    opts = R.check_options(len(players), options, preset)
    data = {
        "version": R.DUMP_VERSION,
        "preset": preset,
        "options": opts,
        "seed": 7,
        "round": round_no,
        "status": status,
        "players": [
            {
                "row": [
                    [c(x, seat) for x in (slot if isinstance(slot, list) else [slot])]
                    for slot in p.get("row", [])
                ],
                "stack": [c(x, seat) for x in p.get("stack", [])],
                "hand": [c(x, seat) for x in p.get("hand", [])],
                "waste": [c(x, seat) for x in p.get("waste", [])],
            }
            for seat, p in enumerate(players)
        ],
        "center": [
            {
                "color": c(pile[0])[0],
                "cards": [c(x) for x in pile],
                "closed": c(pile[-1])[1] == R.TOP_VALUE[preset],
            }
            for pile in center or []
        ],
        "scores": scores or [],
        "ready": ready or [],
        "end_reason": None,
    }
    return R.load(data)


def all_cards(state: R.State) -> Counter:
    """Count every card of the state wherever it lies."""
    cards: Counter = Counter()
    for p in state.players:
        for slot in p.row:
            cards.update(slot)
        cards.update(p.stack)
        cards.update(p.hand)
        cards.update(p.waste)
    for pile in state.center:
        cards.update(pile.cards)
    return cards


def check_invariants(state: R.State) -> None:
    """Assert card conservation (L2) and well-formed centre piles (L9)."""
    cards = all_cards(state)
    full: Counter = Counter()
    for seat in range(state.seats):
        full.update(R.deck(state.preset, seat))
    assert cards == full
    top = R.TOP_VALUE[state.preset]
    for pile in state.center:
        assert [x.value for x in pile.cards] == list(range(1, len(pile.cards) + 1))
        assert {x.color for x in pile.cards} == {pile.color}
        assert pile.closed == (len(pile.cards) == top)


def view_cards(view: dict[str, Any]) -> Counter:
    """Count every card face that appears anywhere in a view."""
    found: Counter = Counter()

    def walk(x: Any) -> None:
        if isinstance(x, dict):
            if set(x) == {"color", "value"}:
                found[(x["color"], x["value"])] += 1
            else:
                for v in x.values():
                    walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)

    walk(view)
    return found


def visible_cards(state: R.State) -> Counter:
    """Count the cards the rules let anyone see: row tops, stack and waste tops (no pile faces)."""
    found: Counter = Counter()
    for p in state.players:
        for slot in p.row:
            if slot:
                found[(slot[-1].color, slot[-1].value)] += 1
        for pile in (p.stack, p.waste):
            if pile:
                found[(pile[-1].color, pile[-1].value)] += 1
    return found
