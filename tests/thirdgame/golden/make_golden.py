"""Record High Card golden replays: `python -m tests.thirdgame.golden.make_golden` (seeded bots)."""

from __future__ import annotations

import json
import random
from pathlib import Path

from games.registry import Game

GAME = Game("highcard", "High Card", "tests.thirdgame")  # the test settings register it so
MATCHES = {"three_two_rounds": (3, {"rounds": 2}, 17), "two_one_round": (2, None, 5)}


def record(seats: int, options: dict | None, seed: int) -> dict:
    rng = random.Random(seed)
    state = GAME.new_match(seats, options, seed)
    actions = []
    while GAME.player_view(state, None)["status"] != "finished":
        seat = next(s for s in range(seats) if GAME.legal_actions(state, s))
        action, _ = GAME.bot_choose(GAME.player_view(state, seat), "easy", rng)
        state, _ = GAME.apply(state, seat, action)
        actions.append([seat, action])
    view = GAME.player_view(state, None)
    return {
        "game": GAME.slug,
        "seats": seats,
        "options": options,
        "seed": seed,
        "actions": actions,
        "scores": [row["points"] for row in view["scores"]],
        "totals": view["totals"],
    }


if __name__ == "__main__":
    for name, match in MATCHES.items():
        path = Path(__file__).parent / f"{name}.json"
        path.write_text(json.dumps(record(*match)) + "\n")
