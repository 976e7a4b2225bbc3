"""What drawing a browser move's push costs: `render.change` on in-memory Ligretto tables.

    .venv/bin/python bench/render_change.py                        # 4 seats, readers in English
    .venv/bin/python bench/render_change.py --seats 12 --languages en,de,ru,ko
    .venv/bin/python bench/render_change.py --flips                # flips only (table_push's load)
    .venv/bin/python bench/render_change.py --profile 30           # cProfile's top 30 as well

Plays in-memory matches through the live room's `apply` (no database, as
bench/reaction_cost.py does), the seats' moves chosen by the normal bot, with a browser socket
per seat listening (each reading one of `--languages`, in turn), and times (CPU time of this
thread) `render.change` of every accepted move: the public parts that changed, once per
language, and each changed seat's own part. Nothing is sent. Prints the median, mean and p95
in microseconds per change (medians of the runs, and the quickest run's mean: on a shared
machine the least disturbed run), and how many seats' own parts drew the "you can play" sentence.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cardgames.settings")

import django  # noqa: E402

django.setup()

from games.registry import GAMES  # noqa: E402
from tables.current import Table  # noqa: E402
from tables.live import render  # noqa: E402
from tables.live.room import LiveRoom  # noqa: E402
from tables.models import Match  # noqa: E402
from tests.tables.in_memory import Reader, accepted, table  # noqa: E402


def moves(
    game: str, seats: int, count: int, seed: int, flips: bool = False
) -> list[tuple[Table, list]]:
    """`count` accepted moves' tables and events, in order (new matches as the old ones end);
    with `flips`, flips alone (what bench/table_push.py sends), else the normal bot's moves."""
    rng, match_seed = random.Random(seed), seed

    def pick(current: Table) -> tuple[int, dict | None]:
        seat = rng.randrange(seats)
        if flips:
            return seat, {"type": "flip"}
        return seat, GAMES[game].bot_choose(current.view(seat), "normal", rng)[0]

    dealt = table(game, seats, match_seed)
    out: list[tuple[Table, list]] = [(dealt, [])]
    while len(out) < count:
        for current, events in accepted(dealt, pick):
            out.append((current, events))
            if len(out) >= count or current.match.status != Match.Status.PLAYING:
                break
        if current.match.status != Match.Status.PLAYING:  # a new match as the old one ends
            match_seed += 1
            dealt = table(game, seats, match_seed)
            out.append((dealt, []))
    return out


def run(played: list[tuple[Table, list]], seats: int, languages: list[str]) -> tuple[list, int]:
    room = LiveRoom(1)
    for s in range(seats):
        room.listeners.add(Reader(s, languages[s % len(languages)]))
    times, said = [], 0
    for current, events in played:
        started = time.thread_time_ns()
        delivery = render.change(room, current, events)
        times.append(time.thread_time_ns() - started)
        said += sum("lg-me-say" in "".join(map(str, p.values())) for p in delivery.private.values())
    return times, said


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="ligretto")
    parser.add_argument("--seats", type=int, default=4)
    parser.add_argument("--moves", type=int, default=3000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--languages", default="en", help="the readers' languages, in turn")
    parser.add_argument("--flips", action="store_true", help="flips only, as table_push sends")
    parser.add_argument("--profile", type=int, default=0, help="print cProfile's top N")
    args = parser.parse_args()
    languages = args.languages.split(",")
    played = moves(args.game, args.seats, args.moves, args.seed, args.flips)
    run(played[:200], args.seats, languages)  # warm: templates compiled, catalogues loaded
    medians, means, p95s = [], [], []
    for _ in range(args.runs):
        times, said = run(played, args.seats, languages)
        times.sort()
        medians.append(statistics.median(times) / 1000)
        means.append(statistics.fmean(times) / 1000)
        p95s.append(times[int(len(times) * 0.95)] / 1000)
    print(
        f"{args.game} {args.seats} seats{', flips' if args.flips else ''}, "
        f"readers in {args.languages}, {len(played)} changes: "
        f"median {statistics.median(medians):.0f} us, mean {statistics.median(means):.0f} us, "
        f"p95 {statistics.median(p95s):.0f} us a change (medians of {args.runs} runs; "
        f"the quickest run's mean {min(means):.0f} us); own sentences drawn {said}"
    )
    if args.profile:
        profiler = cProfile.Profile()
        profiler.enable()
        run(played, args.seats, languages)
        profiler.disable()
        stats = pstats.Stats(profiler).sort_stats("tottime")
        stats.print_stats(args.profile)
        stats.sort_stats("cumulative").print_stats(args.profile)


if __name__ == "__main__":
    main()
