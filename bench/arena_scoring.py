"""Score a duplicate Arena's counted tables again (tournaments.scoring.score_arena), as the
scheduler does whenever a table ends, after T tables of made-up results: the pool it grew, the
time to choose the pool deals and the time to score (docs/performance.md, "Tournaments").

    .venv/bin/python bench/arena_scoring.py --players 100 --seats 2 --tables 5000
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tournaments.scoring import SeatResult, score_arena  # noqa: E402
from tournaments.seating import pool_deals  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--players", type=int, default=100)
    parser.add_argument("--seats", type=int, default=2)
    parser.add_argument("--tables", type=int, default=5000)
    args = parser.parse_args()
    rng = random.Random(1)
    held: dict[int, set[int]] = {}
    plays: list[int] = []
    tables = []
    started = time.perf_counter()
    for _ in range(args.tables):
        keys = rng.sample(range(args.players), args.seats)
        (deal,) = pool_deals([keys], held, plays)
        if deal > len(plays):
            plays.append(0)
        plays[deal - 1] += 1
        for key in keys:
            held.setdefault(key, set()).add(deal)
        seats = [SeatResult(key, s, rng.randint(-10, 20)) for s, key in enumerate(keys)]
        tables.append((deal, seats))
    seated = time.perf_counter() - started
    started = time.perf_counter()
    score_arena(tables, duplicate=True)
    scored = time.perf_counter() - started
    print(
        f"{args.tables} tables of {args.seats}, {args.players} players: a pool of {len(plays)} "
        f"deals; choosing them {seated * 1000 / args.tables:.3f} ms a table; "
        f"scoring all {scored * 1000:.0f} ms"
    )


if __name__ == "__main__":
    main()
