"""What the daily challenge costs: starting attempts, and reading the day's board.

    .venv/bin/python bench/daily.py --players 200

In a fresh SQLite file (full speed, no server): `--players` accounts each start today's attempt
through the write path (`daily.services.play`: the room through the lobby's `arrange_room` and
the attempt row in one transaction), then each round is played to its end through
`tables.play.act` (bots' choices for both seats); then times reading the board
(`daily.board.board`: every result from the tables' rows) and drawing the whole page.
"""

from __future__ import annotations

import argparse
import contextlib
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
    parser.add_argument("--players", type=int, default=200)
    args = parser.parse_args()
    db = Path(tempfile.mkdtemp()) / "bench.sqlite3"
    os.environ.update(
        DATABASE_URL=f"sqlite:///{db}",
        DJANGO_SETTINGS_MODULE="cardgames.settings",
        BOT_PACE="0",
        TABLE_COUNTDOWN="0",
        BOT_DRIVER="False",
        ALLOWED_HOSTS="testserver",
    )
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.test import Client

    from daily import board, services
    from tables import play
    from tables.live import rooms
    from tables.models import ActionLog

    call_command("migrate", verbosity=0)
    users = [
        get_user_model().objects.create_user(f"p{n}", password=None) for n in range(args.players)
    ]
    starts = []
    attempts = []
    for user in users:
        began = time.perf_counter()
        attempts.append(services.play(user))
        starts.append(time.perf_counter() - began)
    began = time.perf_counter()
    for n, attempt in enumerate(attempts):
        rng = random.Random(n)
        for _ in range(20_000):
            table = rooms.read(attempt.room_id)
            assert table is not None
            if table.state.status != "playing":
                break
            for seat in (0, 1):
                view = table.game.player_view(table.state, seat)
                action, _delay = table.game.bot_choose(view, "fast", rng)
                if action is not None:
                    # A race lost to the other seat (L12) is refused: the next turn goes on.
                    with contextlib.suppress(Exception):
                        play.act(attempt.room_id, seat, action, by_bot=seat == 1)
    played = time.perf_counter() - began
    day = services.today()
    reads = []
    for _ in range(20):
        began = time.perf_counter()
        rows = board.board(day)
        reads.append(time.perf_counter() - began)
    client = Client()
    client.force_login(users[0])
    pages = []
    for _ in range(10):
        began = time.perf_counter()
        page = client.get("/daily/")
        pages.append(time.perf_counter() - began)
    assert page.status_code == 200
    ms = 1000
    print(f"players {args.players}, finished {len(rows)}, moves {ActionLog.objects.count()}")
    start, worst = statistics.median(starts) * ms, max(starts) * ms
    print(f"start an attempt: median {start:.1f} ms, max {worst:.1f} ms")
    print(f"play every round: {played:.1f} s")
    print(f"read the board: median {statistics.median(reads) * ms:.1f} ms")
    size = len(page.content) / 1024
    print(f"draw the page: median {statistics.median(pages) * ms:.1f} ms, {size:.1f} KB")


if __name__ == "__main__":
    main()
