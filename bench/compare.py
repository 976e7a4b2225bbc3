"""`make bench`: our live tables beside boardgame.io 0.50.2, same machine, same run.

    .venv/bin/python bench/compare.py              # the three loads, 10 s each
    .venv/bin/python bench/compare.py --seconds 20 --runs 3
    .venv/bin/python bench/compare.py --seconds 4 --loads 10x4 --rows bgio,bgio-pg,nginx-api

boardgame.io is installed from npm into a scratch folder with its PostgreSQL storage adapter,
bgio-postgres (bench/bgio/ holds the race game: everyone moves at once with ignoreStaleStateID,
a per-player secret stripped by playerView, and its load driver, which makes each match through
boardgame.io's Lobby API and moves with the players' credentials). It runs twice per load: one
Node process in memory ("boardgame.io", clients straight to it), and the like-for-like peer of
our durable rows, one Node process on bgio-postgres behind nginx ("boardgame.io + PostgreSQL +
nginx"): deploy/nginx.conf as it is (tests/proxy.py), both of its upstream lines naming that one
process, and a database of its own on this machine's PostgreSQL (`cardgames_bench_bgio`,
created for every run and dropped after it).

One process, because boardgame.io 0.50.2 does not run one match across several: its socket.io
transport takes a `pubSub` to relay a match's updates between processes but ships only an
in-memory one; socket.io's long-polling needs all of a client's requests on one process (and its
URLs carry no match for nginx's room hash); and the transport queues a match's moves one at a
time per process while its Master reads the match, applies the move and writes it back with no
lock in the store between (bgio-postgres keeps the write with the higher state id), so two
processes taking moves of one match would both apply theirs to the same state and the store
would keep one, the other gone after its players saw it. Its load driver waits up to 60 s after
the last move for the deliveries; a move missing from its match's final count, and a delivery
that never came in that time, count as lost.

Ours is measured by bench/table_push.py over the Board API stream and over the browser's table
sockets: one process on SQLite and the in-memory channel layer, and two processes on PostgreSQL
+ Redis behind nginx with deploy/nginx.conf ("2 proc. + nginx": the room hash sends each table's
sockets to the process that owns it). The two processes use this machine's PostgreSQL and Redis:
the server that SCALE_DATABASE_URL names (else 127.0.0.1:5432) with a database of the bench's
own (`cardgames_bench_nginx`, dropped and created again for every run), and SCALE_REDIS_URL
(else redis://127.0.0.1:6379/0) under a channel prefix of the run's own. Loads are tables x
players @ moves per second per player; a delivery is a socket's receipt of the version a move
made; "carried" is the deliveries received of those the moves sent should have made.

CPU per accepted move is read from the first move to the last delivery (bench/cpuwindow.py):
"servers" is the application's processes (Daphne, or boardgame.io's Node); "stack" adds nginx's
master and workers, the PostgreSQL cluster (its postmaster, background processes and the
backends of the run's database) and the Redis server, for every row (idle, near zero, for a row
that uses neither). "run" is the servers' over the whole run, the clients' connections and
first views included. What PostgreSQL spent in the window on other databases (others' tests on
a shared machine) or on connections that ended in it is left out of "stack" and printed under
the row. Prints the side-by-side table (medians of the runs) and Allegra's throughput on one
process.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]
from cpuwindow import PARTS, Stack, run_load  # noqa: E402
from lobby_push import fresh_database  # noqa: E402

from tests.proxy import running_proxy  # noqa: E402

LOADS = [(10, 4, 10.0), (5, 12, 3.0), (40, 4, 10.0)]
FIELDS = (
    "accepted",
    "refused",
    "lost",
    "carried",
    "p50",
    "p95",
    "p99",
    "cpu_ms",
    "cpu_stack_ms",
    "cpu_elsewhere_ms",
    *(f"cpu_{part}_ms" for part in PARTS),
    "cpu_all_ms",
    "bytes",
)
ROWS = {  # --rows key: the row's name
    "bgio": "boardgame.io",
    "bgio-pg": "boardgame.io + PostgreSQL + nginx",
    "api": "ours, API",
    "browser": "ours, browser",
    "nginx-api": "2 proc. + nginx, API",
    "nginx-browser": "2 proc. + nginx, browser",
}
BGIO_POSTGRES = "bgio-postgres@1.0.16"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def database_server() -> str:
    """The PostgreSQL server the durable rows use (module docstring), without a database."""
    server = os.environ.get("SCALE_DATABASE_URL") or "postgres://postgres@127.0.0.1:5432/x"
    return server.rsplit("/", 1)[0]


def redis_url() -> str:
    return os.environ.get("SCALE_REDIS_URL") or "redis://127.0.0.1:6379/0"


def install_bgio(folder: Path) -> None:
    """boardgame.io 0.50.2 and its PostgreSQL adapter from npm into `folder`, beside a copy of
    our race game."""
    (folder / "package.json").write_text('{"private": true}')
    subprocess.run(
        [
            *("npm", "install", "--no-audit", "--no-fund", "--silent"),
            *("boardgame.io@0.50.2", BGIO_POSTGRES, "ws@8"),
        ],
        cwd=folder,
        check=True,
        timeout=300,
    )
    for name in ("game.js", "server.js", "server-postgres.js", "load.js"):
        shutil.copy(ROOT / "bench" / "bgio" / name, folder / name)


def wait_listening(port: int, server: subprocess.Popen, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise RuntimeError(f"the server exited with {server.returncode} before it listened")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"the server did not listen on {port} within {timeout} s")


def stop_node(server: subprocess.Popen) -> None:
    if server.poll() is None:
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(5)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


def run_bgio(folder: Path, tables: int, players: int, rate: float, seconds: float, durable: bool):
    """boardgame.io in memory (clients straight to it), or on bgio-postgres behind nginx."""
    port = free_port()
    env = {**os.environ, "PORT": str(port)}
    database = f"{database_server()}/cardgames_bench_bgio"
    if durable:
        fresh_database(database)
        env["DATABASE_URL"] = database
    with ExitStack() as stack:
        workdir = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="bench-bgio-")))
        if durable:
            stack.callback(drop_database, database)
        log = stack.enter_context(open(workdir / "server.log", "w+"))  # noqa: SIM115
        server = subprocess.Popen(
            ["node", "server-postgres.js" if durable else "server.js"],
            cwd=folder,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        stack.callback(stop_node, server)
        wait_listening(port, server)
        proxy_pids: list[int] = []
        if durable:  # deploy/nginx.conf as it is, both upstream lines naming the one process
            proxy = stack.enter_context(running_proxy([port, port], workdir / "nginx"))
            port, proxy_pids = proxy.port, proxy.pids()
        rest = Stack(database, redis_url(), proxy_pids)
        try:
            out, cpu = run_load(
                ["node", "load.js", str(port), str(tables), str(players), str(rate), str(seconds)],
                [server.pid],
                timeout=seconds + 180,  # up to 31.5 s for the first views, 60 s for the last
                stack=rest.cpu,
                cwd=folder,
            )
        except SystemExit as failed:
            log.seek(0)
            said = log.read().strip().splitlines()[-3:]
            raise NoResult(f"{failed}; the server said: {' / '.join(said)}") from None
        if server.poll() is not None:
            raise NoResult(f"the server exited with {server.returncode} during the run")
    figures = json.loads(out.strip().splitlines()[-1])
    if not figures["deliveries"]:
        raise NoResult(
            f"no move was delivered ({figures['offered']} sent, {figures['accepted']} in their"
            f" matches, {figures['unsynced']} of {tables * players} clients never synced)"
        )
    return with_cpu(figures, cpu, rest, players)


class NoResult(Exception):
    """A load that gave no figures (the reason is the message)."""


def drop_database(url: str) -> None:
    import psycopg

    name = url.rsplit("/", 1)[1]
    with psycopg.connect(url.rsplit("/", 1)[0] + "/postgres", autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def with_cpu(figures: dict, cpu: dict, rest: Stack, players: int) -> dict:
    """`figures` with CPU per accepted move (play window: servers, whole stack; servers over
    the whole run) and the share of deliveries carried."""
    accepted = max(figures["accepted"], 1)
    figures["cpu_ms"] = cpu["play"] / accepted * 1000
    figures["cpu_stack_ms"] = cpu["stack"] / accepted * 1000
    figures["cpu_all_ms"] = cpu["all"] / accepted * 1000
    figures["cpu_elsewhere_ms"] = cpu["elsewhere"] / accepted * 1000
    for part in PARTS:
        figures[f"cpu_{part}_ms"] = cpu[part] / accepted * 1000
    figures["stack_missing"] = rest.missing()
    figures["carried"] = carried(figures, players)
    return figures


def carried(figures: dict, players: int) -> float:
    """Deliveries received, of those every move sent should have made."""
    return figures["deliveries"] / max(figures["offered"] * (players - 1), 1)


OURS = {
    "actions": re.compile(r"(\d+) actions, (\d+) deliveries expected"),
    "lat": re.compile(r"p50 ([\d.]+)\s+p95 ([\d.]+)\s+p99 ([\d.]+)"),
    "bytes": re.compile(r"mean (\d+)\s+lost pushes: (\d+).*refused actions: (\d+)"),
    "cpu": re.compile(r"server CPU per action: ([\d.]+) ms"),
}


def table_push(tables: int, players: int, rate: float, seconds: float, *options: str):
    """Run bench/table_push.py at `rate` moves a second per player; return what it ran."""
    cmd = [
        sys.executable,
        "bench/table_push.py",
        "--tables",
        str(tables),
        "--seats",
        str(players),
        "--rate",
        str(rate * players),
        "--seconds",
        str(seconds),
        *options,
    ]
    # A session of its own: a run that outlives its time is stopped with the servers it
    # started (a killed driver would leave its Daphne processes running).
    with subprocess.Popen(
        cmd,
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        start_new_session=True,
    ) as run:
        try:
            out, err = run.communicate(timeout=seconds + 600)
        except subprocess.TimeoutExpired:
            os.killpg(run.pid, signal.SIGKILL)
            run.communicate()
            raise
    return subprocess.CompletedProcess(cmd, run.returncode, out, err)


def services() -> list[str]:
    """table_push.py's options for the PostgreSQL and Redis servers (module docstring): the two
    processes' store and layer, and for every row the stack whose CPU is counted."""
    database = f"{database_server()}/cardgames_bench_nginx"
    return ["--database-url", database, "--redis-url", redis_url()]


def run_node(
    folder: Path,
    tables: int,
    players: int,
    rate: float,
    seconds: float,
    api: bool,
    nginx: bool = False,
):
    """Ours, loaded by bench/ours/load.js: Node clients measured as boardgame.io's are."""
    options = ["--node", str(folder), *(["--api"] * api), *(["--nginx"] * nginx), *services()]
    out = table_push(tables, players, rate, seconds, *options)
    line = next((x for x in out.stdout.splitlines() if x.startswith("NODE ")), None)
    if line is None:
        said = (out.stderr.strip() or out.stdout.strip()).splitlines()[-3:]
        raise NoResult(f"bench/table_push.py --node failed: {' / '.join(said)}")
    figures = json.loads(line.removeprefix("NODE "))
    figures.update({k: figures[k] or 0.0 for k in ("p50", "p95", "p99")})
    figures["carried"] = carried(figures, players)
    return figures


def run_ours(tables: int, players: int, rate: float, seconds: float, api: bool, game="ligretto"):
    """Ours, loaded by bench/table_push.py's own Python clients (Allegra's turns need them)."""
    out = table_push(tables, players, rate, seconds, "--game", game, *(["--api"] * api)).stdout
    actions = int(OURS["actions"].search(out).group(1))
    p50, p95, p99 = (float(x) for x in OURS["lat"].search(out).groups())
    size, lost, refused = (int(x) for x in OURS["bytes"].search(out).groups())
    cpu = float(OURS["cpu"].search(out).group(1))
    return {
        "offered": actions,
        "accepted": actions - refused,
        "refused": refused,
        "lost": lost,
        "p50": p50,
        "p95": p95,
        "p99": p99,
        "bytes": size,
        "cpu_ms": cpu * actions / max(actions - refused, 1),
        "seconds": seconds,
    }


def median(runs: list[dict]) -> dict:
    return {k: statistics.median(r[k] for r in runs) for k in ("offered", *FIELDS, "seconds")}


HEADER = (
    f"  {'system':<34} offered accepted refused   lost carried      p50      p95      p99"
    "  CPU ms/move: servers  stack (run)  bytes"
)


def line(name: str, f: dict) -> str:
    per_s = f["accepted"] / f["seconds"]
    return (
        f"  {name:<34} {f['offered'] / f['seconds']:>5.0f}/s {per_s:>6.0f}/s {f['refused']:>7.0f}"
        f" {f['lost']:>6.0f} {f['carried'] * 100:>6.1f}%  {f['p50']:>8.1f} {f['p95']:>8.1f}"
        f" {f['p99']:>8.1f}  {'':>12} {f['cpu_ms']:>7.2f} {f['cpu_stack_ms']:>6.2f}"
        f" ({f['cpu_all_ms']:.2f}) {f['bytes']:>6.0f}"
    )


def ratio(name: str, ours: dict, ref_name: str, ref: dict) -> str:
    return (
        f"  {name} / {ref_name}: accepted x{ours['accepted'] / max(ref['accepted'], 1):.2f}"
        f", p50 x{ours['p50'] / max(ref['p50'], 1e-9):.2f}"
        f", p95 x{ours['p95'] / max(ref['p95'], 1e-9):.2f}"
        f", CPU per move x{ours['cpu_ms'] / max(ref['cpu_ms'], 1e-9):.2f}"
        f" (stack x{ours['cpu_stack_ms'] / max(ref['cpu_stack_ms'], 1e-9):.2f})"
    )


def measure(key: str, folder: Path, tables: int, players: int, rate: float, seconds: float):
    if key in ("bgio", "bgio-pg"):
        return run_bgio(folder, tables, players, rate, seconds, durable=key == "bgio-pg")
    api = key.endswith("api")
    return run_node(folder, tables, players, rate, seconds, api, nginx=key.startswith("nginx"))


def parse_loads(text: str | None) -> list[tuple[int, int, float]]:
    if not text:
        return LOADS
    chosen = []
    for word in text.split(","):
        found = [load for load in LOADS if f"{load[0]}x{load[1]}" == word.strip()]
        if not found:
            raise SystemExit(f"--loads: {word!r} is none of {[f'{t}x{p}' for t, p, _ in LOADS]}")
        chosen += found
    return chosen


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--loads", help="some of the loads, e.g. 10x4,40x4 (default: all three)")
    parser.add_argument(
        "--rows", help=f"some of the rows, e.g. bgio,nginx-api (default: {','.join(ROWS)})"
    )
    parser.add_argument("--no-allegra", action="store_true", help="skip Allegra's line")
    args = parser.parse_args()
    keys = [k.strip() for k in args.rows.split(",")] if args.rows else list(ROWS)
    if unknown := set(keys) - set(ROWS):
        raise SystemExit(f"--rows: unknown {sorted(unknown)}; known: {','.join(ROWS)}")
    with tempfile.TemporaryDirectory(prefix="bench-bgio-") as scratch:
        folder = Path(scratch)
        install_bgio(folder)
        print(f"load average at start: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
        print(HEADER)
        for tables, players, rate in parse_loads(args.loads):
            print(f"{tables} x {players} @ {rate:g}/s per player ({args.runs} run(s), median)")
            results: dict[str, list[dict]] = {key: [] for key in keys}
            failures: dict[str, list[str]] = {key: [] for key in keys}
            for _ in range(args.runs):
                for key in keys:
                    try:
                        results[key].append(
                            measure(key, folder, tables, players, rate, args.seconds)
                        )
                    except (NoResult, RuntimeError, subprocess.SubprocessError) as failed:
                        failures[key].append(str(failed))
            print(f"  (load average after it: {os.getloadavg()[0]:.1f})")
            medians = {}
            for key in keys:
                if not results[key]:
                    print(f"  {ROWS[key]:<34} no result: {failures[key][0]}")
                    continue
                medians[key] = median(results[key])
                print(line(ROWS[key], medians[key]))
                notes = [f"{len(failures[key])} of {args.runs} run(s) gave no result"] * bool(
                    failures[key]
                )
                if medians[key]["carried"] < 1:
                    notes.append(
                        f"carried {medians[key]['carried']:.1%} of the deliveries"
                        f" ({medians[key]['lost']:.0f} lost)"
                    )
                if unsynced := max(r.get("unsynced", 0) for r in results[key]):
                    notes.append(f"{unsynced} client(s) never synced before the last move")
                if medians[key]["cpu_stack_ms"] - medians[key]["cpu_ms"] >= 0.01:
                    parts = zip(PARTS, ("nginx", "PostgreSQL", "Redis"), strict=True)
                    notes.append(
                        "the stack besides the servers, ms a move: "
                        + ", ".join(f"{n} {medians[key][f'cpu_{p}_ms']:.2f}" for p, n in parts)
                    )
                if medians[key]["cpu_elsewhere_ms"] >= 0.01:
                    notes.append(
                        f"PostgreSQL meanwhile spent {medians[key]['cpu_elsewhere_ms']:.2f} ms"
                        " a move on other databases or ended connections: not counted"
                    )
                if missing := results[key][0]["stack_missing"]:
                    notes.append(f"{' and '.join(missing)} not found: not in the stack's CPU")
                if notes:
                    print(f"  {'':<34} ^ {'; '.join(notes)}")
            for key, ref_key in [
                *((k, "bgio") for k in ("api", "browser", "nginx-api", "nginx-browser")),
                *((k, "bgio-pg") for k in ("nginx-api", "nginx-browser")),
            ]:
                if key in medians and ref_key in medians:
                    print(ratio(ROWS[key], medians[key], ROWS[ref_key], medians[ref_key]))
        if args.no_allegra:
            return
        allegra = run_ours(10, 4, 10.0, args.seconds, True, game="allegra")
        print(
            f"Allegra, 10 tables x 4 over the API stream, one process: "
            f"{allegra['accepted'] / allegra['seconds']:.0f} accepted moves/s, "
            f"p50 {allegra['p50']:.1f} ms, CPU {allegra['cpu_ms']:.2f} ms per move"
        )


if __name__ == "__main__":
    main()
