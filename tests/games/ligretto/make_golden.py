"""Write the Ligretto golden replays: fixed seeds played once by seeded bots (G1).

Run from the project root: .venv/bin/python -m tests.games.ligretto.make_golden
Rerun only on a deliberate rules change, and check the new scores by hand before committing.
"""

from __future__ import annotations

import json
from pathlib import Path

from games.ligretto.simulate import play_match

# Each file: the match setup, the [seat, action] log (readies included) and the per-round points.

GOLDEN = Path(__file__).parent / "golden"
CASES = [
    ("mini_seed5", "ligretto-mini", ["normal", "easy"], 5, {"rounds": 2}),
    ("ligretto4_seed11", "ligretto", ["normal", "fast", "easy", "normal"], 11, {"rounds": 2}),
    (
        "ligretto3_variant_seed3",
        "ligretto",
        ["fast", "normal", "easy"],
        3,
        {"rounds": 1, "row_variant": True},
    ),
    ("ligretto2_target30_seed8", "ligretto", ["normal", "easy"], 8, {"target": 30}),
]


def main() -> None:
    """Play every case and write its seat/action log and final scores as JSON."""
    GOLDEN.mkdir(exist_ok=True)
    for name, game, levels, seed, options in CASES:
        log: list = []
        state = play_match(game, levels, seed, options, "delays", log=log)
        data = {
            "game": game,
            "seats": len(levels),
            "options": options,
            "seed": seed,
            "levels": levels,
            "actions": log,
            "scores": [list(p) for p in state.scores],
            "totals": [sum(p[s] for p in state.scores) for s in range(len(levels))],
        }
        (GOLDEN / f"{name}.json").write_text(json.dumps(data, indent=None) + "\n")
        print(name, len(log), "actions", data["scores"])


if __name__ == "__main__":
    main()
