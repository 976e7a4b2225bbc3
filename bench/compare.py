"""`make bench`: our live tables beside boardgame.io 0.50.2, same machine, same run.

    .venv/bin/python bench/compare.py              # the three loads, 10 s each
    .venv/bin/python bench/compare.py --seconds 20 --runs 3

boardgame.io is installed from npm into a scratch folder (bench/bgio/ holds the race game:
everyone moves at once with ignoreStaleStateID, a per-player secret stripped by playerView, and
its load driver). Ours is measured by bench/table_push.py over the Board API stream and over the
browser's table sockets: one process on SQLite and the in-memory channel layer, and two
processes on PostgreSQL + Redis behind nginx with deploy/nginx.conf ("2 proc. + nginx": the
room hash sends each table's sockets to the process that owns it; nginx's CPU is counted with
the servers'). The two processes use this machine's PostgreSQL and Redis: the server that
SCALE_DATABASE_URL names (else 127.0.0.1:5432) with a database of the bench's own
(`cardgames_bench_nginx`, dropped and created again for every run), and SCALE_REDIS_URL (else
redis://127.0.0.1:6379/0) under a channel prefix of the run's own. Loads are tables x players
@ moves per second per player; a delivery is a socket's receipt of the version a move made.
Server CPU per accepted move is read from the first move to the last delivery
(bench/cpuwindow.py); "(all)" is the whole run, the clients' connections and first views
included. Prints the side-by-side table (medians of the runs) and
Allegra's throughput on one process.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
from cpuwindow import run_load  # noqa: E402

LOADS = [(10, 4, 10.0), (5, 12, 3.0), (40, 4, 10.0)]
FIELDS = ("accepted", "refused", "lost", "p50", "p95", "p99", "cpu_ms", "cpu_all_ms", "bytes")


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def install_bgio(folder: Path) -> None:
    """boardgame.io 0.50.2 from npm into `folder`, beside a copy of our race game."""
    (folder / "package.json").write_text('{"private": true}')
    subprocess.run(
        ["npm", "install", "--no-audit", "--no-fund", "--silent", "boardgame.io@0.50.2", "ws@8"],
        cwd=folder,
        check=True,
        timeout=300,
    )
    for name in ("game.js", "server.js", "load.js"):
        shutil.copy(ROOT / "bench" / "bgio" / name, folder / name)


def run_bgio(folder: Path, tables: int, players: int, rate: float, seconds: float, run: str):
    port = free_port()
    server = subprocess.Popen(
        ["node", "server.js"],
        cwd=folder,
        env={**os.environ, "PORT": str(port)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        time.sleep(1.5)
        out, cpu = run_load(
            ["node", "load.js", str(port), str(tables), str(players), str(rate), str(seconds), run],
            [server.pid],
            timeout=seconds + 120,
            cwd=folder,
        )
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(5)
        except subprocess.TimeoutExpired:
            server.kill()
    figures = json.loads(out.strip().splitlines()[-1])
    figures["cpu_ms"] = cpu["play"] / max(figures["accepted"], 1) * 1000
    figures["cpu_all_ms"] = cpu["all"] / max(figures["accepted"], 1) * 1000
    return figures


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
    return subprocess.run(
        cmd,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=seconds + 600,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )


def services() -> list[str]:
    """table_push.py's options for the two processes' PostgreSQL and Redis (module docstring)."""
    server = os.environ.get("SCALE_DATABASE_URL") or "postgres://postgres@127.0.0.1:5432/x"
    database = server.rsplit("/", 1)[0] + "/cardgames_bench_nginx"
    redis = os.environ.get("SCALE_REDIS_URL") or "redis://127.0.0.1:6379/0"
    return ["--nginx", "--database-url", database, "--redis-url", redis]


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
    options = ["--node", str(folder), *(["--api"] * api), *(services() if nginx else [])]
    out = table_push(tables, players, rate, seconds, *options)
    line = next((x for x in out.stdout.splitlines() if x.startswith("NODE ")), None)
    if line is None:
        raise SystemExit(f"bench/table_push.py --node failed:\n{out.stdout}\n{out.stderr}")
    figures = json.loads(line.removeprefix("NODE "))
    figures.update({k: figures[k] or 0.0 for k in ("p50", "p95", "p99")})
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


def line(name: str, f: dict) -> str:
    per_s = f["accepted"] / f["seconds"]
    return (
        f"  {name:<24} {f['offered'] / f['seconds']:>6.0f}/s {per_s:>6.0f}/s {f['refused']:>6.0f}"
        f" {f['lost']:>6.0f}  {f['p50']:>8.1f} {f['p95']:>8.1f} {f['p99']:>8.1f}"
        f"  {f['cpu_ms']:>6.2f} {f['cpu_all_ms']:>6.2f} {f['bytes']:>7.0f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--runs", type=int, default=1)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-bgio-") as scratch:
        folder = Path(scratch)
        install_bgio(folder)
        print(f"load average at start: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
        print(
            "  system                   offered accepted refused  lost      p50      p95      p99"
            "  cpu ms (all)   bytes"
        )
        for tables, players, rate in LOADS:
            print(f"{tables} x {players} @ {rate:g}/s per player ({args.runs} run(s), median)")
            results: dict[str, list[dict]] = {
                "boardgame.io": [],
                "ours, API": [],
                "ours, browser": [],
                "2 proc. + nginx, API": [],
                "2 proc. + nginx, browser": [],
            }
            for run in range(args.runs):
                tag = f"{tables}x{players}r{run}{time.time_ns()}"
                results["boardgame.io"].append(
                    run_bgio(folder, tables, players, rate, args.seconds, tag)
                )
                results["ours, API"].append(
                    run_node(folder, tables, players, rate, args.seconds, True)
                )
                results["ours, browser"].append(
                    run_node(folder, tables, players, rate, args.seconds, False)
                )
                results["2 proc. + nginx, API"].append(
                    run_node(folder, tables, players, rate, args.seconds, True, nginx=True)
                )
                results["2 proc. + nginx, browser"].append(
                    run_node(folder, tables, players, rate, args.seconds, False, nginx=True)
                )
            print(f"  (load average after it: {os.getloadavg()[0]:.1f})")
            medians = {name: median(runs) for name, runs in results.items()}
            for name, figures in medians.items():
                print(line(name, figures))
            ref = medians["boardgame.io"]
            for name in list(results)[1:]:
                ours = medians[name]
                carried = ours["accepted"] / max(ref["accepted"], 1)
                print(
                    f"  {name} / boardgame.io: accepted x{carried:.2f}"
                    f", p50 x{ours['p50'] / max(ref['p50'], 1e-9):.2f}"
                    f", p95 x{ours['p95'] / max(ref['p95'], 1e-9):.2f}"
                    f", CPU per move x{ours['cpu_ms'] / max(ref['cpu_ms'], 1e-9):.2f}"
                )
        allegra = run_ours(10, 4, 10.0, args.seconds, True, game="allegra")
        print(
            f"Allegra, 10 tables x 4 over the API stream, one process: "
            f"{allegra['accepted'] / allegra['seconds']:.0f} accepted moves/s, "
            f"p50 {allegra['p50']:.1f} ms, CPU {allegra['cpu_ms']:.2f} ms per move"
        )


if __name__ == "__main__":
    main()
