"""What a Board API stream's move costs in the loop's Python, without sockets or a database.

    .venv/bin/python bench/move_cost.py                 # Ligretto, 4 seats, flips
    .venv/bin/python bench/move_cost.py --seats 12
    .venv/bin/python bench/move_cost.py --profile 30    # cProfile's top 30 as well

Plays in-memory Ligretto matches (tests/tables/in_memory.py: no database, as
bench/reaction_cost.py does) the way the server's loop plays a stream's move, one move after
the other on the same room: the room's `apply`, the reaction-time check (`Tracker.note`, every
seat a person), the stream's texts prepared while the row would be written (`render.prepare`)
and each seat's text taken for its push (`render.view_text`), every seat listening on a stream.
What the kernel's sends, the frame's reading and the SQLite commit cost is not here
(bench/table_push.py measures the whole). Prints the mean CPU time of this thread in
microseconds a move for each step (the quickest of the runs, and their median), and a hash
of every text pushed: two checkouts that push the same bytes print the same hash.
"""

from __future__ import annotations

import argparse
import cProfile
import hashlib
import os
import pstats
import random
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cardgames.settings")

import django  # noqa: E402

django.setup()

from games.engine import IllegalAction  # noqa: E402
from tables.errors import PlayError  # noqa: E402
from tables.live import render  # noqa: E402
from tables.live.room import LiveRoom  # noqa: E402
from tables.models import Match  # noqa: E402
from tests.tables.in_memory import Reader, Unwritten, table  # noqa: E402

STEPS = ("apply", "note", "prepare", "texts")


@dataclass
class Run:
    micros: dict[str, float]  # mean CPU time a move, per step
    digest: str  # of every text pushed, in order


def run(game: str, seats: int, moves: int, seed: int) -> Run:
    rng, match_seed = random.Random(seed), seed
    room = LiveRoom(1)
    room.reaction = Unwritten()
    for s in range(seats):
        room.listeners.add(Reader(s, "en", wants_html=False))  # streams: no HTML drawn
    current = table(game, seats, match_seed)
    room.loaded(current)
    spent = dict.fromkeys(STEPS, 0)
    digest = hashlib.sha256()
    done = 0
    while done < moves:
        seat = rng.randrange(seats)
        started = time.thread_time_ns()
        try:
            entry = room.apply(current, seat, {"type": "flip"})
        except (IllegalAction, PlayError):
            continue
        applied = time.thread_time_ns()
        room.reaction.note(current, entry)
        noted = time.thread_time_ns()
        render.prepare(room, entry.table)
        prepared = time.thread_time_ns()
        texts = [render.view_text(room, entry.table, s) for s in range(seats)]
        taken = time.thread_time_ns()
        for step, ns in zip(
            STEPS,
            (applied - started, noted - applied, prepared - noted, taken - prepared),
            strict=True,
        ):
            spent[step] += ns
        for text in texts:
            digest.update(text.encode())
        done += 1
        current = entry.table
        current.match.starts_at = None  # no countdown between rounds (in_memory.accepted)
        room.remember(current)
        if current.match.status != Match.Status.PLAYING:  # a new match as the old one ends
            match_seed += 1
            current = table(game, seats, match_seed)
            room.loaded(current)
    return Run({step: ns / done / 1000 for step, ns in spent.items()}, digest.hexdigest())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="ligretto")
    parser.add_argument("--seats", type=int, default=4)
    parser.add_argument("--moves", type=int, default=4000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--profile", type=int, default=0, help="print cProfile's top N")
    args = parser.parse_args()
    run(args.game, args.seats, 500, args.seed)  # warm: imports, catalogues, first builds
    runs = [run(args.game, args.seats, args.moves, args.seed) for _ in range(args.runs)]
    print(f"{args.game} {args.seats} seats, flips, {args.moves} moves, {args.runs} runs:")
    for step in STEPS:
        each = [r.micros[step] for r in runs]
        print(f"  {step:8} {min(each):6.1f} us a move (median {statistics.median(each):.1f})")
    total = [sum(r.micros.values()) for r in runs]
    print(f"  {'all':8} {min(total):6.1f} us a move (median {statistics.median(total):.1f})")
    differ = " (the runs differ!)" if len({r.digest for r in runs}) > 1 else ""
    print(f"  texts pushed: sha256 {runs[0].digest[:16]}{differ}")
    if args.profile:
        profiler = cProfile.Profile()
        profiler.enable()
        run(args.game, args.seats, args.moves, args.seed)
        profiler.disable()
        pstats.Stats(profiler).sort_stats("tottime").print_stats(args.profile)


if __name__ == "__main__":
    main()
