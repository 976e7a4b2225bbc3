"""High Card bots: they see their own view only; the caller passes the random.Random."""

from __future__ import annotations

import random

from games.engine import Action, View

LEVELS = ("easy", "normal")
DELAY = {"easy": 1.0, "normal": 0.5}


def choose(view: View, level: str, rng: random.Random) -> tuple[Action | None, float]:
    """Ready when asked; the easy bot plays any card, the normal one its highest."""
    legal = view.get("legal") or []
    if not legal:
        return None, DELAY[level]
    if legal[0]["type"] == "ready":
        return dict(legal[0]), DELAY[level]
    if level == "easy":
        return dict(rng.choice(legal)), DELAY[level]
    hand = view["hand"]
    best = max(range(len(hand)), key=hand.__getitem__)
    return {"type": "play", "index": best}, DELAY[level]
