"""Soak: one server plays many one-round 4-seat Ligretto matches with bots to the end, and gives
back what each held.

    .venv/bin/python bench/soak.py                       # 1,000 matches, 20 at a time
    .venv/bin/python bench/soak.py --matches 200 --at-once 10

This process is the server: it runs the site's ASGI application in its event loop with the bot
driver, the live rooms and their writer, on an SQLite file of its own (the embedded default).
It runs with the production settings (DEBUG off). Each match is a room opened by a player of
its own with three bots; the player is away, so a
stand-in plays his seat at once (LEAVER_GRACE=0), and every bot plays at full speed (BOT_PACE=0).
A spectator's table socket (the browser's, through the routing, as a page opens it) watches
every match to its end, so that pushes are drawn and delivered. Prints the resident memory
(VmRSS) after the 100th and after the last finished match, the difference, and how many live
rooms the process still holds once the last match is over and the grace has passed.
Figures: docs/performance.md ("Soak").
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def configure(folder: Path) -> None:
    os.environ.update(
        DJANGO_SETTINGS_MODULE="cardgames.settings",
        DATABASE_URL=f"sqlite:///{folder / 'soak.sqlite3'}",
        BOT_PACE="0",
        TABLE_COUNTDOWN="0",
        LEAVER_GRACE="0",
        LIVE_ROOM_GRACE="0.5",
        ROOMS_PER_USER="1000000",
        ROOM_ACTIONS_PER_USER="1000000",
        # As in production: DEBUG keeps a log of every query (9,000 a connection), which a
        # soak would count as the site's memory.
        DEBUG="False",
        SECRET_KEY="soak-" + os.urandom(16).hex(),
        ALLOWED_HOSTS="localhost",
    )
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    call_command("collectstatic", interactive=False, verbosity=0)  # the manifest pages need


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS in /proc/self/status")


def open_match(n: int) -> int:
    """A room of player `n` with three bots, started: its id."""
    from django.contrib.auth import get_user_model

    from lobby import services

    user = get_user_model().objects.create(username=f"soak{n}")
    room = services.create_room(user, "ligretto", 4, {"rounds": 1})
    services.add_bots(room.pk, user, count=3, level="fast")
    services.start_room(room.pk, user)
    return room.pk


def finished(room_id: int) -> bool:
    from tables.models import Match

    return Match.objects.filter(room_id=room_id, status=Match.Status.FINISHED).exists()


async def play_one(n: int) -> None:
    from asgiref.sync import sync_to_async
    from channels.testing import WebsocketCommunicator

    from cardgames.asgi import application

    room_id = await sync_to_async(open_match)(n)
    headers = [(b"origin", b"http://localhost"), (b"host", b"localhost")]
    watcher = WebsocketCommunicator(application, f"/ws/rooms/{room_id}/table/", headers=headers)
    connected, _ = await watcher.connect(timeout=30)
    assert connected, "the spectator's socket was refused"
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        # Read what the table pushes (a socket that never reads would hold it all).
        while not await watcher.receive_nothing(timeout=0.2):
            await watcher.receive_from()
        if await sync_to_async(finished)(room_id):
            break
    else:
        raise RuntimeError(f"room {room_id} did not finish in 300 s")
    await watcher.disconnect()


async def main(matches: int, at_once: int, mark: int) -> dict[str, float]:
    from tables import driver
    from tables.live import rooms

    rooms.bind(asyncio.get_running_loop())
    driver.ensure_started()
    done = 0
    figures: dict[str, float] = {"start_mb": rss_mb()}
    started = time.monotonic()
    queue = iter(range(matches))

    async def worker() -> None:
        nonlocal done
        for n in queue:
            await play_one(n)
            done += 1
            if done == mark:
                gc.collect()
                figures["after_mark_mb"] = rss_mb()
                print(f"{done} matches: {figures['after_mark_mb']:.1f} MB", flush=True)
            elif done % 100 == 0:
                print(f"{done} matches: {rss_mb():.1f} MB, {rooms.count()} rooms", flush=True)

    await asyncio.gather(*(worker() for _ in range(at_once)))
    await asyncio.sleep(1.0)  # past the grace: the last rooms go
    gc.collect()
    figures["after_last_mb"] = rss_mb()
    figures["rooms_left"] = rooms.count()
    figures["seconds"] = time.monotonic() - started
    return figures


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=1000)
    parser.add_argument("--at-once", type=int, default=20)
    parser.add_argument("--mark", type=int, default=100, help="the reading compared with the last")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        configure(Path(folder))
        figures = asyncio.run(main(args.matches, args.at_once, args.mark))
    growth = figures["after_last_mb"] - figures["after_mark_mb"]
    print(
        f"{args.matches} matches in {figures['seconds']:.0f} s; RSS at start"
        f" {figures['start_mb']:.1f} MB, after {args.mark} {figures['after_mark_mb']:.1f} MB,"
        f" after {args.matches} {figures['after_last_mb']:.1f} MB ({growth:+.1f} MB);"
        f" live rooms left: {figures['rooms_left']:.0f}"
    )
