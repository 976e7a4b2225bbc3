"""How long a change takes to reach every open lobby page, through real Daphne processes.

    .venv/bin/python bench/lobby_push.py --watchers 50 --rooms 30
    .venv/bin/python bench/lobby_push.py --watchers 50 --rooms 30 --scale   # PostgreSQL + Redis

One person signs up and opens rooms over HTTP, as a browser does; `--watchers` WebSockets sit on
the lobby and time each room's arrival, from just before the POST to the frame that lists it.
Default: one Daphne with SQLite and the in-memory layer. With `--scale`: two Daphne processes
sharing PostgreSQL and Redis (pub/sub layer); the POSTs go to one, the watchers to the other,
so every push crosses processes. Prints p50 / p95 / max in milliseconds.
"""

from __future__ import annotations

import argparse
import asyncio
import http.cookiejar
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from pathlib import Path

import websockets

from tests.devserver import ROOT, free_port, start_daphne, stop

PASSWORD = "correct horse battery staple"


def fresh_database(url: str) -> None:
    """Drop and recreate the benchmark's own PostgreSQL database (never the tests' one)."""
    import psycopg

    name = urllib.parse.urlparse(url).path.lstrip("/")
    admin = url.rsplit("/", 1)[0] + "/postgres"
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}"')
        conn.execute(f'CREATE DATABASE "{name}"')


class Browser:
    """A cookie-keeping HTTP client that posts forms with their CSRF token, like a browser."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar))

    def token(self, path: str) -> str:
        page = self.opener.open(self.base + path).read().decode()
        return re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)

    def post_form(self, path: str, fields: dict[str, str], token: str | None = None) -> str:
        token = token or self.token(path)
        data = urllib.parse.urlencode({**fields, "csrfmiddlewaretoken": token}).encode()
        request = urllib.request.Request(
            self.base + path, data=data, headers={"Referer": self.base + path}
        )
        with self.opener.open(request) as response:
            return response.geturl()


async def watch(url: str, expected: int, arrivals: list[dict[int, float]], ready) -> None:
    seen: dict[int, float] = {}
    async with websockets.connect(url, origin="http://127.0.0.1", max_size=None) as ws:
        await ws.recv()  # the list as it stands
        ready()
        while len(seen) < expected:
            frame = await ws.recv()
            now = time.perf_counter()
            for room_id in map(int, re.findall(r'id="room-(\d+)"', frame)):
                seen.setdefault(room_id, now)
    arrivals.append(seen)


async def run(args: argparse.Namespace) -> None:
    workdir = Path(tempfile.mkdtemp(prefix="bench-"))
    env = {
        **os.environ,
        "DEBUG": "True",
        "DJANGO_SETTINGS_MODULE": "cardgames.settings",
        # One host opens every room, quickly: the per-user limits must not get in the way.
        "ROOMS_PER_USER": "100000",
        "ROOM_ACTIONS_PER_USER": "100000",
    }
    if args.scale:
        env["DATABASE_URL"] = args.database_url
        env["REDIS_URL"] = args.redis_url
        fresh_database(args.database_url)
    else:
        env["DATABASE_URL"] = f"sqlite:///{workdir / 'bench.sqlite3'}"
        env.pop("REDIS_URL", None)
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "-v", "0"], cwd=ROOT, env=env, check=True
    )
    ports = [free_port()] + ([free_port()] if args.scale else [])
    servers = [start_daphne(port, env) for port in ports]
    try:
        post_base = f"http://127.0.0.1:{ports[0]}"
        watch_url = f"ws://127.0.0.1:{ports[-1]}/ws/lobby/"
        host = Browser(post_base)
        host.post_form(
            "/accounts/signup/",
            {"username": f"bench{os.getpid()}", "password1": PASSWORD, "password2": PASSWORD},
        )
        arrivals: list[dict[int, float]] = []
        connected = asyncio.Event()
        count = 0

        def ready() -> None:
            nonlocal count
            count += 1
            if count == args.watchers:
                connected.set()

        watchers = [
            asyncio.create_task(watch(watch_url, args.rooms, arrivals, ready))
            for _ in range(args.watchers)
        ]
        await asyncio.wait_for(connected.wait(), 60)
        sent: dict[int, float] = {}
        token = host.token("/rooms/new/")
        for _ in range(args.rooms):
            started = time.perf_counter()
            url = await asyncio.to_thread(
                host.post_form, "/rooms/new/", {"game": "ligretto", "seats": "4"}, token
            )
            sent[int(re.search(r"/rooms/(\d+)/", url).group(1))] = started
            await asyncio.sleep(args.pause)
        await asyncio.wait_for(asyncio.gather(*watchers), 60)
        latencies = sorted(
            (seen[room] - started) * 1000 for seen in arrivals for room, started in sent.items()
        )
        p95 = latencies[int(0.95 * (len(latencies) - 1))]
        mode = "2 Daphne + PostgreSQL + Redis" if args.scale else "1 Daphne + SQLite + in-memory"
        print(f"{mode}: {args.watchers} watchers x {args.rooms} rooms = {len(latencies)} pushes")
        print(
            f"POST-to-frame latency ms: p50 {statistics.median(latencies):.1f}  "
            f"p95 {p95:.1f}  max {latencies[-1]:.1f}"
        )
    finally:
        for server in servers:
            stop(server)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--watchers", type=int, default=50)
    parser.add_argument("--rooms", type=int, default=30)
    parser.add_argument("--pause", type=float, default=0.05, help="seconds between rooms")
    parser.add_argument("--scale", action="store_true")
    parser.add_argument(
        "--database-url", default="postgres://postgres@127.0.0.1:5432/cardgames_bench"
    )
    parser.add_argument("--redis-url", default="redis://127.0.0.1:6379/0")
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
