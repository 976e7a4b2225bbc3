"""What the reaction-time check costs a move: `Tracker.note` beside the room's own `apply`.

    .venv/bin/python bench/reaction_cost.py

Plays in-memory matches through the live room's `apply` (no database), every seat a human
account (the most the tracker does: every seat's legal actions after every change), choosing
with the normal bot, and times (CPU time of this thread) `LiveRoom.apply` and `Tracker.note`
per move, for Ligretto Mini (2 seats), Ligretto (4 and 12 seats) and Allegra (3 seats). The
samples' write (ten at a time, in another thread) is left out: the loop only schedules it.
"""

from __future__ import annotations

import os
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cardgames.settings")

import django  # noqa: E402

django.setup()

from games.engine import IllegalAction  # noqa: E402
from games.registry import GAMES  # noqa: E402
from tables.current import Table  # noqa: E402
from tables.errors import PlayError  # noqa: E402
from tables.live.room import LiveRoom  # noqa: E402
from tables.models import Match, Player, Round  # noqa: E402
from tables.reaction import Tracker  # noqa: E402

MOVES = 3000


class Unwritten(Tracker):
    def save(self) -> None:
        self.pending = {}  # the server hands these to another thread; not timed here


def table(game: str, seats: int, seed: int) -> Table:
    match = Match(pk=1, room_id=1, game=game, seed=seed, version=1, status="playing")
    players = [
        Player(pk=i + 1, match_id=1, seat=i, name=f"p{i}", user_id=i + 1, connections=1)
        for i in range(seats)
    ]
    state = GAMES[game].new_match(seats, None, seed)
    return Table(match=match, players=players, state=state, round=Round(pk=1, number=1, seed=seed))


def run(game: str, seats: int) -> tuple[float, float]:
    rng, seed = random.Random(1), 1
    room = LiveRoom(1)
    room.reaction = Unwritten()
    current = table(game, seats, seed)
    applied, noted = [], []
    while len(noted) < MOVES:
        seat = rng.randrange(seats)
        action, _ = GAMES[game].bot_choose(current.view(seat), "normal", rng)
        if action is None:
            continue
        started = time.thread_time_ns()
        try:
            entry = room.apply(current, seat, action)
        except (IllegalAction, PlayError):
            continue
        middle = time.thread_time_ns()
        room.reaction.note(current, entry)
        ended = time.thread_time_ns()
        applied.append(middle - started)
        noted.append(ended - middle)
        if entry.refusal is None:
            current = entry.table
        if current.match.status != Match.Status.PLAYING:
            seed += 1
            current = table(game, seats, seed)
    return statistics.median(applied) / 1000, statistics.median(noted) / 1000


def main() -> None:
    print(f"{'game':<16}{'seats':>6}{'apply µs':>11}{'note µs':>10}")
    for game, seats in (("ligretto-mini", 2), ("ligretto", 4), ("ligretto", 12), ("allegra", 3)):
        apply_us, note_us = run(game, seats)
        print(f"{game:<16}{seats:>6}{apply_us:>11.1f}{note_us:>10.1f}")


if __name__ == "__main__":
    main()
