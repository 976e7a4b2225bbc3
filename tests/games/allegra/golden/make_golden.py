"""Allegra golden replays (A1-A10, G1): regenerate the JSON files beside this script.
Run from the repository root: python -m tests.games.allegra.golden.make_golden"""

from __future__ import annotations

import json
from pathlib import Path

from games.allegra.simulate import play_match
from games.registry import rules_for

HERE = Path(__file__).parent

CASES = [
    {"name": "two_normal_easy", "seats": 2, "levels": ["normal", "easy"], "seed": 101},
    {"name": "three_normal", "seats": 3, "levels": ["normal"] * 3, "seed": 202},
    {"name": "five_mixed", "seats": 5, "levels": ["normal", "easy"] * 2 + ["normal"], "seed": 303,
     "options": {"rounds": 2}},
]  # fmt: skip


def main() -> None:
    """Play each case with seeded bots and store its actions and final scores."""
    for case in CASES:
        options = case.get("options")
        r = play_match(case["seats"], case["levels"], case["seed"], options, keep_log=True)
        game = rules_for("allegra")
        state = game.new_match(case["seats"], options, case["seed"])
        for seat, action in r.log:
            state, _ = game.apply(state, seat, action)
        data = {
            "seats": case["seats"],
            "options": options,
            "seed": case["seed"],
            "levels": case["levels"],
            "scores": game.player_view(state, None)["scores"],
            "totals": r.totals,
            "winners": r.winners,
            "knocks": r.knocks,
            "triples": r.triples,
            "actions": r.log,
        }
        path = HERE / f"{case['name']}.json"
        path.write_text(json.dumps(data, separators=(",", ":")) + "\n")
        print(f"{path.name}: {len(r.log)} actions, totals {r.totals}")


if __name__ == "__main__":
    main()
