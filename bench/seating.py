"""Seat a Swiss round (tournaments.seating) for N players at tables of S, after R rounds of
made-up results: the time per round and the repeated pairs (docs/performance.md, "Tournaments").

    .venv/bin/python bench/seating.py --players 96 --seats 12 --rounds 5
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tournaments.seating import meet, repeats, swiss_tables  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--players", type=int, default=96)
    parser.add_argument("--seats", type=int, default=12)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    rng = random.Random(1)
    met: Counter = Counter()
    points = dict.fromkeys(range(args.players), 0)
    order = list(range(args.players))
    for number in range(1, args.rounds + 1):
        started = time.perf_counter()
        tables = swiss_tables(order, args.seats, met)
        took = time.perf_counter() - started
        print(
            f"round {number}: {len(tables)} tables, {repeats(tables, met)} repeated pairs, "
            f"seated in {took * 1000:.0f} ms"
        )
        meet(met, tables)
        for table in tables:
            people = [k for k in table if k is not None]
            rng.shuffle(people)
            for place, k in enumerate(people):
                points[k] += place
        order = sorted(points, key=lambda k: (-points[k], k))


if __name__ == "__main__":
    main()
