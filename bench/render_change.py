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
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cardgames.settings")

import django  # noqa: E402

django.setup()

from games.engine import IllegalAction  # noqa: E402
from games.registry import GAMES  # noqa: E402
from tables.current import Table  # noqa: E402
from tables.errors import PlayError  # noqa: E402
from tables.live import render  # noqa: E402
from tables.live.room import Delivery, LiveRoom  # noqa: E402
from tables.models import Match, Player, Round  # noqa: E402
from tables.reaction import Tracker  # noqa: E402


class Unwritten(Tracker):
    def save(self) -> None:
        self.pending = {}


@dataclass(eq=False)
class Reader:
    """A browser socket of the room (what `render.change` asks of a listener)."""

    seat: int | None
    language: str
    wants_html: bool = True

    def deliver_now(self, delivery: Delivery) -> bool:
        return True

    async def deliver(self, delivery: Delivery) -> None:
        return None

    async def table_notice(self, event: dict) -> None:
        return None


def table(game: str, seats: int, seed: int) -> Table:
    match = Match(pk=1, room_id=1, game=game, seed=seed, version=1, status="playing")
    players = [
        Player(pk=i + 1, match_id=1, seat=i, name=f"player{i}", user_id=i + 1, connections=1)
        for i in range(seats)
    ]
    state = GAMES[game].new_match(seats, None, seed)
    return Table(match=match, players=players, state=state, round=Round(pk=1, number=1, seed=seed))


def moves(
    game: str, seats: int, count: int, seed: int, flips: bool = False
) -> list[tuple[Table, list]]:
    """`count` accepted moves' tables and events, in order (new matches as the old ones end);
    with `flips`, flips alone (what bench/table_push.py sends), else the normal bot's moves."""
    rng, match_seed = random.Random(seed), seed
    room = LiveRoom(1)
    room.reaction = Unwritten()
    current = table(game, seats, match_seed)
    out: list[tuple[Table, list]] = [(current, [])]
    while len(out) < count:
        seat = rng.randrange(seats)
        if flips:
            action = {"type": "flip"}
        else:
            action, _ = GAMES[game].bot_choose(current.view(seat), "normal", rng)
        if action is None:
            continue
        try:
            entry = room.apply(current, seat, action)
        except (IllegalAction, PlayError):
            continue
        if entry.refusal is not None:
            continue
        current = entry.table
        # No countdown between rounds: a table "starting" or "playing" by the wall clock
        # would make the same seed draw other changes from run to run.
        current.match.starts_at = None
        out.append((current, entry.events))
        if current.match.status != Match.Status.PLAYING:
            match_seed += 1
            current = table(game, seats, match_seed)
            out.append((current, []))
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
