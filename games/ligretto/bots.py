"""Ligretto and Ligretto Mini bots (G3): they see only their seat's player_view and act at a pace.

Pure like the rules: the caller passes the random.Random; the delay is returned, never slept.
"""

from __future__ import annotations

import random
from typing import Any

from games.engine import Action, View

LEVELS = ("easy", "normal", "fast")

# Seconds per action before jitter: a person needs about a second to spot and place a card.
BASE_DELAY = {"easy": 1.5, "normal": 1.0, "fast": 0.5}
JITTER = 0.25
READY_DELAY = 0.5
# How often an easy bot overlooks every play it has and flips (or waits) instead.
EASY_MISS = 0.5


def _delay(level: str, rng: random.Random) -> float:
    return BASE_DELAY[level] * rng.uniform(1 - JITTER, 1 + JITTER)


def _rank(action: Action) -> int:
    """Order plays as a careful player does: lower is better."""
    source, to = action.get("from"), action.get("to")
    if to == "row":
        # A stack card on the row empties the stack like a play; a waste card only digs.
        return 2 if source == "stack" else 4
    # Stack and row plays both take a card off the Ligretto stack (a row gap refills from it).
    return {"stack": 0, "row": 1, "waste": 3}[str(source)]


def _flip_is_idle(view: View) -> bool:
    """Return whether a flip would change nothing: an empty hand and a waste of three or fewer."""
    seat = view.get("seat")
    tableaus = view.get("tableaus") or []
    if not isinstance(seat, int) or not 0 <= seat < len(tableaus):
        return False
    mine: dict[str, Any] = tableaus[seat]
    return bool(mine.get("hand_count", 0) == 0 and mine.get("waste_count", 0) <= 3)


def choose(view: View, level: str, rng: random.Random) -> tuple[Action | None, float]:
    """Return the bot's next action from its view (None: nothing to do) and its delay first."""
    if level not in BASE_DELAY:
        raise ValueError(f"Unknown bot level {level!r}")
    legal = view.get("legal") or []
    if not legal:
        return None, _delay(level, rng)
    if {"type": "ready"} in legal:
        return {"type": "ready"}, READY_DELAY
    plays = [a for a in legal if a.get("type") == "play"]
    flip = next((a for a in legal if a.get("type") == "flip"), None)
    if flip is not None and _flip_is_idle(view):
        flip = None
    if level == "easy":
        if plays and (flip is None or rng.random() >= EASY_MISS):
            return dict(rng.choice(plays)), _delay(level, rng)
        return (dict(flip) if flip else None), _delay(level, rng)
    if plays:
        best = min(_rank(a) for a in plays)
        return dict(rng.choice([a for a in plays if _rank(a) == best])), _delay(level, rng)
    return (dict(flip) if flip else None), _delay(level, rng)
