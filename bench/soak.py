"""Soak: one server plays many one-round 4-seat Ligretto matches to the end, each between one
Board API player and three bots, and gives back what each held.

    .venv/bin/python bench/soak.py                       # 1,000 matches, 20 at a time
    .venv/bin/python bench/soak.py --matches 200 --at-once 10

This process is the server: it runs the site's ASGI application in its event loop with the bot
driver, the live rooms and their writer, on an SQLite file of its own (the embedded default).
It runs with the production settings (DEBUG off). Each match is a room opened by a player of
its own, with an API token of his own, and three bots at full speed (BOT_PACE=0); the player
plays his seat over the Board API stream (`/ws/api/v1/rooms/{id}/?token=...`, through the
routing as a client opens it), choosing each move as a fast bot would from the view he is
sent, and reads every view to the match's end. Prints the resident memory (VmRSS) every 100
finished matches, after the 100th and after the last, the difference, and how many live rooms
the process still holds once the last match is over and the grace has passed.
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
        # The player moves once per version he sees, and bots at full speed make many a
        # second: over the Board API's ten a second he would be refused, and wait.
        API_ACTIONS_PER_USER="1000000",
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


def open_match(n: int) -> tuple[int, str]:
    """A room of player `n` with three bots, started: its id and the player's API token."""
    from django.contrib.auth import get_user_model

    from api.models import ApiToken
    from lobby import services

    user = get_user_model().objects.create(username=f"soak{n}")
    _, raw = ApiToken.objects.issue(user, "soak")
    room = services.create_room(user, "ligretto", 4, {"rounds": 1})
    services.add_bots(room.pk, user, count=3, level="fast")
    services.start_room(room.pk, user)
    return room.pk, raw


async def play_one(n: int) -> None:
    import json
    import random

    from asgiref.sync import sync_to_async
    from channels.testing import WebsocketCommunicator

    from cardgames.asgi import application
    from games.registry import GAMES

    room_id, token = await sync_to_async(open_match)(n)
    headers = [(b"origin", b"http://localhost"), (b"host", b"localhost")]
    player = WebsocketCommunicator(
        application, f"/ws/api/v1/rooms/{room_id}/?token={token}", headers=headers
    )
    connected, _ = await player.connect(timeout=30)
    assert connected, "the player's stream was refused"
    rng = random.Random(n)
    acted = -1
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        # receive_nothing first: a receive that times out ends the application under test.
        if await player.receive_nothing(timeout=2):
            message = {"type": "quiet"}
        else:
            message = json.loads(await player.receive_from())
        if message.get("type") != "view":
            # A refusal (a race lost: too_slow) or a quiet spell: ask for the whole view again.
            acted = -1
            await player.send_to(text_data=json.dumps({"type": "sync"}))
            continue
        view = message["view"]
        if view["status"] in ("finished", "closed"):
            break
        if view["version"] <= acted:
            continue  # one move per version seen, as a player waits to see his move land
        acted = view["version"]
        if view["status"] == "round_over" and any(a["type"] == "ready" for a in view["legal"]):
            await player.send_to(text_data=json.dumps({"type": "ready"}))
        elif view["status"] == "playing" and view["legal"]:
            action, _ = GAMES[view["game"]].bot_choose(view, "fast", rng)
            # A bot may choose to wait; a player at a standstill presses on (any legal move).
            action = action or rng.choice(view["legal"])
            await player.send_to(text_data=json.dumps({"type": "action", "action": action}))
    else:
        raise RuntimeError(f"room {room_id} did not finish in 300 s")
    await player.disconnect()


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
            if done % 100 == 0 or done == mark:
                gc.collect()
                mb = rss_mb()
                if done == mark:
                    figures["after_mark_mb"] = mb
                print(f"{done} matches: {mb:.1f} MB, {rooms.count()} rooms", flush=True)

    await asyncio.gather(*(worker() for _ in range(at_once)))
    # Past the grace the last rooms go; on a loaded machine their drop may come a little later:
    # look for up to 10 s, and say how long it took.
    waited = time.monotonic()
    await asyncio.sleep(1.0)
    while rooms.count() and time.monotonic() - waited < 10:
        await asyncio.sleep(0.25)
    figures["rooms_gone_after_s"] = time.monotonic() - waited
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
        f" (looked {figures['rooms_gone_after_s']:.1f} s after the last match)"
    )
