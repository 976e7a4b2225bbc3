"""What a replay costs: rebuilding a round from the seed and the log, and drawing one step.

    .venv/bin/python bench/replay.py --game ligretto --seats 12 --rounds 3
    .venv/bin/python bench/replay.py --game allegra --seats 6 --rounds 3

Plays one bot match to its end through the write path (full speed, in a fresh SQLite file),
then times, for its last round: building the replay cold (every action of the match read and
applied: the rounds before are replayed to reach the round's deal), the same from the
process's memory, and drawing a step's board (the page's `&part=board` answer, without HTTP).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--game", default="ligretto")
    parser.add_argument("--seats", type=int, default=12)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    db = Path(tempfile.mkdtemp()) / "bench.sqlite3"
    os.environ.update(
        DATABASE_URL=f"sqlite:///{db}",
        DJANGO_SETTINGS_MODULE="cardgames.settings",
        BOT_PACE="0",
        TABLE_COUNTDOWN="0",
        LEAVER_GRACE="0",
        END_UNWATCHED="False",  # the host never opens his table: his stand-in plays it out
        BOT_DRIVER="False",
    )
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.core.management import call_command

    from lobby import services
    from tables import replay
    from tables.driver import MatchBots
    from tables.models import ActionLog, Match

    call_command("migrate", verbosity=0)
    host = get_user_model().objects.create_user("benchhost", password=None)
    room = services.create_room(host, args.game, args.seats, {"rounds": args.rounds})
    services.add_bots(room.pk, host, count=args.seats - 1, level="normal")
    services.start_room(room.pk, host)
    bots = MatchBots(room.pk, rng=random.Random(1))
    while bots.step() is not None:
        pass
    match = Match.objects.get(room_id=room.pk)
    last = match.rounds.order_by("-number").first().number
    logged = ActionLog.objects.filter(match=match).count()

    cold = []
    for _ in range(5):
        replay._memo().clear()
        t = time.perf_counter()
        rep = replay.replay_round(match, last)
        cold.append(time.perf_counter() - t)
    t = time.perf_counter()
    for _ in range(100):
        replay.replay_round(match, last)
    warm = (time.perf_counter() - t) / 100
    steps = list(range(0, len(rep.steps) + 1, max(1, len(rep.steps) // 50)))
    drawn = []
    for i in steps:
        t = time.perf_counter()
        html = replay.render_step(rep, i)
        drawn.append(time.perf_counter() - t)
    print(
        f"{args.game}, {args.seats} seats, {last} rounds: {logged} logged actions, "
        f"last round {len(rep.steps)} steps\n"
        f"  build cold (median of 5): {statistics.median(cold) * 1000:.1f} ms\n"
        f"  build from memory: {warm * 1e6:.1f} µs\n"
        f"  draw one step (median of {len(drawn)}): {statistics.median(drawn) * 1000:.2f} ms, "
        f"{len(html.encode())} bytes"
    )


if __name__ == "__main__":
    main()
