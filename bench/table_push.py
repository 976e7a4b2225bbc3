"""Move-to-push latency of live tables: N tables x S seated players over real WebSockets.

    .venv/bin/python bench/table_push.py --tables 10 --seats 4 --rate 10 --seconds 20
    .venv/bin/python bench/table_push.py --tables 40 --seats 4 --rate 10 --seconds 20
    .venv/bin/python bench/table_push.py --tables 10 --seats 4 --scale  # 2 Daphne, PG + Redis
    .venv/bin/python bench/table_push.py --tables 10 --seats 4 --game allegra
    .venv/bin/python bench/table_push.py --tables 10 --seats 4 --api    # the Board API's stream
    .venv/bin/python bench/table_push.py --tables 10 --seats 4 --nginx  # 2 Daphne behind nginx

Every seat of every table is a signed-in WebSocket on its table. Each table sends `--rate`
actions a second from a random seat (Ligretto: flips, always legal, and each one changes what
everybody sees), and every socket of the table times the frame that carries the new version,
from just before the action was sent. Allegra's actions take turns: the benchmark keeps its own
copy of each table's state (the setup prints it; the engine is pure and deterministic), picks a
random legal action of the seat whose move it is (a knock now and then) and sends it only once
the previous action's push has arrived, so that no action overtakes the one before it on another
socket. A table plays its first round only: the next is dealt from a server seed kept secret
until it ends (docs/fairness.md), which a copy of the state cannot follow.
With `--scale`, two Daphne processes share PostgreSQL and Redis and each table's sockets are
split between them, so half of every push crosses processes.
With `--nginx`, the same two processes sit behind nginx with deploy/nginx.conf (tests/proxy.py):
every socket connects to the proxy, which sends each table's sockets to one process (the room
hash), so pushes stay in the process that owns the room. With `--node`, CPU is reported for the
servers and for the whole stack (nginx, and the PostgreSQL cluster and Redis server that
`--database-url` and `--redis-url` name, counted even when the run does not use them); without
it, nginx's CPU is counted with the servers'.
With `--api`, every seat is instead a Board API stream (`/ws/api/v1/rooms/{id}/?token=`): JSON
views per seat instead of rendered HTML parts.
Prints p50 / p95 / p99 in milliseconds, bytes per delivery, and lost pushes (a socket that never
got a version it should have).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from contextlib import ExitStack
from pathlib import Path

import websockets

from tests.devserver import ROOT, free_port, start_daphne, stop
from tests.proxy import running_proxy

sys.path.insert(0, str(ROOT / "bench"))
from cpuwindow import PARTS, Stack, cpu_seconds, run_load  # noqa: E402
from lobby_push import fresh_database  # noqa: E402

VERSION = re.compile(r'id="table-version" data-version="(\d+)"')
API_VERSION = re.compile(r'^\{"type": ?"view", ?"view": ?\{.*?"version": ?(\d+)')

SETUP = """
import json
from django.conf import settings
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY, get_user_model
from django.contrib.sessions.backends.db import SessionStore
from api.models import ApiToken
from lobby import services
from tables.live import rooms

User = get_user_model()
out = []
for t in range({tables}):
    users = [User.objects.create_user(f"b{{t}}x{{s}}", password=None) for s in range({seats})]
    room = services.create_room(users[0], "{game}", {seats}, {options})
    for u in users[1:]:
        services.join_room(room.pk, u)
    if not {through_proxy}:
        services.start_room(room.pk, users[0])
    cookies = []
    for u in users:
        if {api}:
            cookies.append(ApiToken.objects.issue(u, "bench")[1])
            continue
        session = SessionStore()
        session[SESSION_KEY] = str(u.pk)
        session[BACKEND_SESSION_KEY] = settings.AUTHENTICATION_BACKENDS[0]
        session[HASH_SESSION_KEY] = u.get_session_auth_hash()
        session.create()
        cookies.append(session.session_key)
    if {through_proxy}:  # started later through the proxy, by the process the hash picks
        host = ApiToken.objects.issue(users[0], "bench-host")[1]
        out.append({{"room": room.pk, "sessions": cookies, "state": None, "host": host}})
        continue
    table = rooms.read(room.pk)
    out.append({{"room": room.pk, "sessions": cookies, "state": table.game.dump(table.state)}})
print("SETUP" + json.dumps(out))
"""


class Table:
    api = False

    def __init__(self, room: int, sessions: list[str], state: dict | None = None) -> None:
        self.room = room
        self.state = state
        self.sessions = sessions
        self.sockets: list = []
        self.sent: dict[int, float] = {}  # version -> when the action that made it was sent
        self.next_version = 0
        self.arrivals: list[dict[int, float]] = []
        self.sizes: list[int] = []
        self.refused = 0


async def reader(table: Table, index: int, ws, stop_at: list[float]) -> None:
    seen = table.arrivals[index]
    while True:
        try:
            frame = await asyncio.wait_for(ws.recv(), timeout=1)
        except TimeoutError:
            if stop_at and time.perf_counter() > stop_at[0]:
                return
            continue
        now = time.perf_counter()
        match = (API_VERSION.match if table.api else VERSION.search)(frame)
        if match is None:
            if 'id="table-flash"' in frame or frame.startswith('{"type": "error"'):
                table.refused += 1
            continue
        version = int(match.group(1))
        seen.setdefault(version, now)
        table.sizes.append(len(frame.encode()))


async def actor(table: Table, rate: float, until: float, rng: random.Random) -> None:
    flip = json.dumps(wrap(table, {"type": "flip"}))
    # Nothing else changes these tables (no bots, nobody comes or goes) and a flip is always
    # accepted, so each action makes exactly the next version.
    table.next_version = max(max(a) for a in table.arrivals) + 1
    while time.perf_counter() < until:
        seat = rng.randrange(len(table.sockets))
        table.sent[table.next_version] = time.perf_counter()
        table.next_version += 1
        await table.sockets[seat].send(flip)
        await asyncio.sleep(rng.expovariate(rate))


def wrap(table: Table, action: dict) -> dict:
    """The message that sends `action`: itself (a table socket), or the API stream's envelope."""
    return {"type": "action", "action": action} if table.api else action


def allegra_move(state, rng: random.Random) -> tuple[int, dict] | None:  # noqa: ANN001
    """A random legal action of the seat whose move it is (None: the match is over)."""
    from games.allegra import rules

    if state.status == "finished":
        return None
    if state.status == "round_over":
        return next(s for s in range(state.seats) if s not in state.ready), {"type": "ready"}
    seats = range(state.seats)
    if state.phase == "opening":
        seat = rng.choice([s for s in seats if rules.legal_actions(state, s)])
        return seat, rng.choice(rules.legal_actions(state, seat))
    knockers = [s for s in seats if {"type": "knock"} in rules.legal_actions(state, s)]
    if knockers and rng.random() < 0.2:
        return rng.choice(knockers), {"type": "knock"}
    seat = state.knocker if state.phase == "knock_place" else state.turn
    return seat, rng.choice(rules.legal_actions(state, seat))


async def allegra_actor(table: Table, rate: float, until: float, rng: random.Random) -> None:
    from games.allegra import rules

    state = rules.load(table.state)
    table.next_version = max(max(a) for a in table.arrivals) + 1
    while time.perf_counter() < until:
        # Wait for the previous action's push: a turn-based action must not overtake it.
        while max(max(a, default=0) for a in table.arrivals) < table.next_version - 1:
            if time.perf_counter() > until + 60:  # refused, or lost: said, never waited out
                print(f"table {table.room}: no push of {table.next_version - 1}", file=sys.stderr)
                return
            await asyncio.sleep(0.001)
        move = allegra_move(state, rng)
        if move is None or state.status == "round_over":
            # The next round is dealt from a server seed that stays secret until that round
            # ends (docs/fairness.md): this copy of the state cannot follow it, and its moves
            # would be refused ("That place is empty") and the table wait for ever. A table's
            # play ends with its first round.
            return
        seat, action = move
        state, _ = rules.apply(state, seat, action)
        table.sent[table.next_version] = time.perf_counter()
        table.next_version += 1
        await table.sockets[seat].send(json.dumps(wrap(table, action)))
        await asyncio.sleep(rng.expovariate(rate))


async def run(args: argparse.Namespace) -> None:
    workdir = Path(tempfile.mkdtemp(prefix="bench-"))
    env = {
        **os.environ,
        "DEBUG": "False",
        "SECRET_KEY": "bench-only",
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        "SECURE_SSL_REDIRECT": "False",
        "TABLE_COUNTDOWN": "0",
        "LOG_LEVEL": "WARNING",
        "DJANGO_SETTINGS_MODULE": "cardgames.settings",
    }
    # The bench's own clients: no flood limit should refuse them. A player here moves at 10/s,
    # Poisson: a table socket's bucket of 12 a second, and its two moves in flight, refused a
    # burst now and then, and a refused flip shifts every later version of its table onto an
    # earlier send (bench/ours/load.js), so that one refusal raised a run's p95 tenfold.
    env["TABLE_ACTION_RATE"] = env["TABLE_MOVES_IN_FLIGHT"] = "1000000"
    if args.api:
        env["API_ACTIONS_PER_USER"] = "1000000"
    if args.nginx:
        args.scale = True
    if args.scale:
        env["DATABASE_URL"] = args.database_url
        env["REDIS_URL"] = args.redis_url
        env["CHANNELS_PREFIX"] = f"bench{os.getpid()}"
        fresh_database(args.database_url)
    else:
        env["DATABASE_URL"] = f"sqlite:///{workdir / 'bench.sqlite3'}"
        env.pop("REDIS_URL", None)
    manage = [sys.executable, "manage.py"]
    subprocess.run([*manage, "migrate", "-v", "0"], cwd=ROOT, env=env, check=True)
    if args.game == "allegra":
        # Rounds enough for the whole run; no bot driver, whose countdown pushes between
        # rounds would add versions the benchmark does not expect (there are no bots here).
        options = {"rounds": 20}
        env["BOT_DRIVER"] = "False"
    else:
        options = None
    setup = SETUP.format(
        tables=args.tables,
        seats=args.seats,
        game=args.game,
        options=options,
        api=args.api,
        through_proxy=args.nginx,
    )
    done = subprocess.run(
        [*manage, "shell", "--no-imports", "-c", setup],
        cwd=ROOT,
        env=env,
        check=True,
        capture_output=True,
        text=True,
    )
    rooms = json.loads(done.stdout[done.stdout.index("SETUP") + 5 :])
    ports = [free_port()] + ([free_port()] if args.scale else [])
    daphne_options = ("--proxy-headers",) if args.nginx else ()
    servers = [start_daphne(port, env, options=daphne_options) for port in ports]
    pids = [s.pid for s in servers]
    proxy_pids: list[int] = []
    rng = random.Random(args.seed)
    with ExitStack() as stack:
        stack.callback(lambda: [stop(server) for server in servers])
        if args.nginx:
            proxy = stack.enter_context(running_proxy(ports, workdir / "nginx"))
            ports = [proxy.port]  # the clients' one address
            proxy_pids = proxy.pids()
            start_through(proxy.url, rooms)
        if args.node:
            rest = Stack(args.database_url, args.redis_url, proxy_pids)
            node_load(args, rooms, ports, pids, rest, workdir)
        else:  # nginx's CPU counted with the servers'
            await python_load(args, rooms, ports, pids + proxy_pids, rng)


def start_through(url: str, rooms: list) -> None:
    """Start each room through the proxy: the process its hash picks starts the match and holds
    its lease from the start (as when people start it from the table page)."""
    for room in rooms:
        request = urllib.request.Request(
            f"{url}/api/v1/rooms/{room['room']}/start",
            data=b"{}",
            headers={"Authorization": f"Bearer {room['host']}", "Content-Type": "application/json"},
            method="POST",
        )
        with urllib.request.urlopen(request, timeout=30) as answer:
            assert answer.status == 200, answer.status


async def python_load(
    args: argparse.Namespace, rooms: list, ports: list[int], pids: list[int], rng: random.Random
) -> None:
    """Drive the tables from this process's own clients (websockets) and print the figures."""
    tables = [Table(r["room"], r["sessions"], r["state"]) for r in rooms]
    for table in tables:
        table.api = args.api
        for i, session in enumerate(table.sessions):
            port = ports[i % len(ports)]
            if args.api:
                url = f"ws://127.0.0.1:{port}/ws/api/v1/rooms/{table.room}/?token={session}"
                headers = {}
            else:
                url = f"ws://127.0.0.1:{port}/ws/rooms/{table.room}/table/"
                headers = {"Cookie": f"sessionid={session}"}
            ws = await websockets.connect(
                url,
                origin=f"http://127.0.0.1:{port}",
                additional_headers=headers,
                max_size=None,
            )
            table.sockets.append(ws)
            table.arrivals.append({})
    stop_at: list[float] = []
    readers = [
        asyncio.create_task(reader(t, i, ws, stop_at))
        for t in tables
        for i, ws in enumerate(t.sockets)
    ]
    await asyncio.sleep(2)  # the whole tables and the presence changes settle
    for t in tables:
        t.sizes.clear()
        t.refused = 0
    cpu_before = [cpu_seconds(pid) for pid in pids]
    start = time.perf_counter()
    until = start + args.seconds
    play = allegra_actor if args.game == "allegra" else actor
    await asyncio.gather(*(play(t, args.rate, until, rng) for t in tables))
    # Read on until every socket has its table's last version (or 60 s): a push still queued
    # in a saturated server is late, not lost.
    deadline = time.perf_counter() + 60
    while time.perf_counter() < deadline and not all(
        t.next_version - 1 in seen for t in tables for seen in t.arrivals
    ):
        await asyncio.sleep(0.2)
    stop_at.append(time.perf_counter() + 1)
    await asyncio.gather(*readers)
    cpu = sum(cpu_seconds(pid) - b for pid, b in zip(pids, cpu_before, strict=True))
    latencies: list[float] = []
    lost = expected = 0
    for t in tables:
        for version, sent in t.sent.items():
            for seen in t.arrivals:
                expected += 1
                if version in seen:
                    latencies.append((seen[version] - sent) * 1000)
                elif not any(v > version for v in seen):
                    lost += 1  # never arrived, and no later version covered it
    latencies.sort()
    sizes = [s for t in tables for s in t.sizes]
    refused = sum(t.refused for t in tables)

    def pct(p: float) -> float:
        return latencies[min(len(latencies) - 1, int(p * (len(latencies) - 1)))]

    mode = "2 Daphne + PostgreSQL + Redis" if args.scale else "1 Daphne + SQLite + in-memory"
    if args.nginx:
        mode += " behind nginx"
    if args.api:
        mode += ", API stream"
    actions = sum(len(t.sent) for t in tables)
    print(
        f"{mode}: {args.tables} tables x {args.seats} seats, {args.rate}/s per table, "
        f"{args.seconds} s: {actions} actions, {expected} deliveries expected"
    )
    print(
        f"move-to-push ms: p50 {statistics.median(latencies):.1f}  p95 {pct(0.95):.1f}  "
        f"p99 {pct(0.99):.1f}  max {latencies[-1]:.1f}"
    )
    print(
        f"bytes per delivery: mean {statistics.mean(sizes):.0f}  "
        f"lost pushes: {lost}  late (covered by a newer version): "
        f"{expected - len(latencies) - lost}  refused actions: {refused}"
    )
    print(f"server CPU per action: {cpu / max(actions, 1) * 1000:.2f} ms (user + system)")
    if refused:
        print("WARNING: refused actions shift the version count; the figures are not valid")
    for t in tables:
        for ws in t.sockets:
            await ws.close()


def node_load(  # noqa: PLR0913
    args: argparse.Namespace,
    rooms: list,
    ports: list[int],
    pids,
    stack: Stack,
    workdir,  # noqa: ANN001
) -> None:
    """Drive the tables from bench/ours/load.js (Node, the `ws` package in `args.node`), as
    boardgame.io's own driver drives it: deliveries are the other players' receipts. CPU per
    move: the servers' and the whole stack's (nginx, PostgreSQL, Redis: bench/cpuwindow.py)."""
    tables = []
    for room in rooms:
        urls, headers = [], []
        for i, session in enumerate(room["sessions"]):
            port = ports[i % len(ports)]
            if args.api:
                urls.append(
                    f"ws://127.0.0.1:{port}/ws/api/v1/rooms/{room['room']}/?token={session}"
                )
                headers.append({})
            else:
                urls.append(f"ws://127.0.0.1:{port}/ws/rooms/{room['room']}/table/")
                headers.append({"Cookie": f"sessionid={session}"})
        tables.append({"urls": urls, "headers": headers, "origin": f"http://127.0.0.1:{ports[0]}"})
    spec = workdir / "tables.json"
    spec.write_text(json.dumps({"mode": "api" if args.api else "browser", "tables": tables}))
    # The driver's own CPU over its whole run (the servers' over the same: cpu_all_ms): Node is
    # the one child reaped meanwhile. A driver near a core of its own is the bottleneck.
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    out, cpu = run_load(
        [
            "node",
            str(ROOT / "bench" / "ours" / "load.js"),
            str(spec),
            str(args.rate / args.seats),
            str(args.seconds),
        ],
        pids,
        timeout=args.seconds + 180,
        stack=stack.cpu,
        env={**os.environ, "NODE_PATH": str(Path(args.node) / "node_modules")},
    )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    driver = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    figures = json.loads(out.strip().splitlines()[-1])
    figures["cpu_driver_ms"] = driver / max(figures["accepted"], 1) * 1000
    figures["cpu_ms"] = cpu["play"] / max(figures["accepted"], 1) * 1000
    figures["cpu_all_ms"] = cpu["all"] / max(figures["accepted"], 1) * 1000
    figures["cpu_stack_ms"] = cpu["stack"] / max(figures["accepted"], 1) * 1000
    figures["cpu_elsewhere_ms"] = cpu["elsewhere"] / max(figures["accepted"], 1) * 1000
    for part in PARTS:
        figures[f"cpu_{part}_ms"] = cpu[part] / max(figures["accepted"], 1) * 1000
    figures["stack_missing"] = stack.missing()
    print("NODE " + json.dumps(figures))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=10)
    parser.add_argument("--seats", type=int, default=4)
    parser.add_argument("--rate", type=float, default=10.0, help="actions per second per table")
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--game", default="ligretto")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--scale", action="store_true")
    parser.add_argument(
        "--nginx", action="store_true", help="--scale with both processes behind deploy/nginx.conf"
    )
    parser.add_argument("--api", action="store_true", help="Board API streams, JSON views")
    parser.add_argument(
        "--node", help="a folder whose node_modules has `ws`: drive the load from Node instead"
    )
    parser.add_argument(
        "--database-url", default="postgres://postgres@127.0.0.1:5432/cardgames_bench"
    )
    parser.add_argument("--redis-url", default="redis://127.0.0.1:6379/0")
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
