"""CPU while a load driver plays: the window between its `PLAY` and `DONE` lines.

Both load drivers (bench/bgio/load.js and bench/ours/load.js) write `PLAY` on stderr when every
client is connected and synced and the first move is about to go, and `DONE` once the last
move's deliveries have arrived. The CPU the servers spend in that window, per accepted move, is
what a move costs; what they spent before (connecting and signing in the clients, their first
views, the settling wait) is a fixed cost that a longer run would spread thinner, so it is
reported apart (`all`: the whole run, connections included).

The servers are not the whole stack a move goes through: `Stack` adds, in the same window,
nginx's master and workers (when there is a proxy), every process of the PostgreSQL cluster and
the Redis server (`stack`). Those two are counted whether a row uses them or not: a row that
does not (one process on SQLite, boardgame.io in memory) finds them idle, near zero.
"""

from __future__ import annotations

import os
import subprocess
import threading
import urllib.parse
from collections.abc import Callable
from contextlib import suppress
from pathlib import Path

TICK = os.sysconf("SC_CLK_TCK")


def _stat(pid: int) -> list[str]:
    """/proc/PID/stat's fields after the command name (fields[0] is the state)."""
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()


def cpu_seconds(pid: int, reaped: bool = False) -> float:
    """CPU time (user + system) a process has used so far (Linux); with `reaped`, also what
    its children that have ended and been waited for used."""
    fields = _stat(pid)
    ticks = int(fields[11]) + int(fields[12])
    if reaped:
        ticks += int(fields[13]) + int(fields[14])
    return ticks / TICK


def children(pid: int) -> list[int]:
    try:
        return [int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


def cluster_cpu(postmaster: int) -> float:
    """Every process of a PostgreSQL cluster: the postmaster, its live children (background
    workers and backends) and the ones that have ended (a backend per connection: the
    postmaster waits for each, and the kernel adds its time to the postmaster's children's)."""
    live = 0.0
    for child in children(postmaster):
        with suppress(OSError):  # ended since the list was read
            live += cpu_seconds(child)
    return cpu_seconds(postmaster, reaped=True) + live


def postmaster_of(database_url: str) -> int | None:
    """The pid of the PostgreSQL server `database_url` names (its postmaster: the parent of the
    backend that answers); None when it does not answer."""
    import psycopg

    admin = database_url.rsplit("/", 1)[0] + "/postgres"
    try:
        with psycopg.connect(admin, connect_timeout=5) as conn:
            backend = conn.execute("SELECT pg_backend_pid()").fetchone()[0]
            return int(_stat(backend)[1])
    except (psycopg.Error, OSError):
        return None


def redis_of(redis_url: str) -> int | None:
    """The pid of the Redis server `redis_url` names, if it is on this machine."""
    import redis

    host = urllib.parse.urlparse(redis_url).hostname
    try:
        pid = int(redis.Redis.from_url(redis_url, socket_timeout=5).info("server")["process_id"])
    except (redis.RedisError, OSError):
        return None
    local = host in ("127.0.0.1", "localhost", "::1")
    return pid if local and Path(f"/proc/{pid}").exists() else None


class Stack:
    """The processes a move goes through besides the servers: nginx's (`proxy`, given), the
    PostgreSQL cluster and the Redis server that the URLs name (found on this machine)."""

    def __init__(self, database_url: str, redis_url: str, proxy: list[int] | None = None) -> None:
        self.proxy = list(proxy or [])
        self.postmaster = postmaster_of(database_url)
        self.redis = redis_of(redis_url)

    def missing(self) -> list[str]:
        """What could not be found (and so is not counted)."""
        found = (("PostgreSQL", self.postmaster), ("Redis", self.redis))
        return [name for name, pid in found if pid is None]

    def cpu(self) -> float:
        total = 0.0
        for pid in self.proxy:
            with suppress(OSError):
                total += cpu_seconds(pid)
        if self.postmaster is not None:
            total += cluster_cpu(self.postmaster)
        if self.redis is not None:
            total += cpu_seconds(self.redis)
        return total


def run_load(
    cmd: list[str],
    pids: list[int],
    timeout: float,
    stack: Callable[[], float] | None = None,
    **popen,
) -> tuple[str, dict]:
    """Run a load driver; return its stdout and CPU seconds: the servers' (`pids`) over the whole
    run (`all`) and between its PLAY and DONE lines (`play`), and the servers' with the rest of
    the stack (`stack`, a function giving its CPU so far, e.g. `Stack.cpu`) in that window."""

    def total() -> tuple[float, float]:
        servers = sum(cpu_seconds(pid) for pid in pids)
        return servers, servers + (stack() if stack else 0.0)

    marks: dict[str, tuple[float, float]] = {"start": total()}
    errors: list[str] = []
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **popen)

    def read_stderr() -> None:
        for line in proc.stderr:
            word = line.strip()
            if word in ("PLAY", "DONE"):
                marks[word] = total()
            else:
                errors.append(line)

    reader = threading.Thread(target=read_stderr, daemon=True)
    reader.start()
    killer = threading.Timer(timeout, proc.kill)
    killer.start()
    try:
        out = proc.stdout.read()  # stderr is the reader's alone
        proc.wait()
    finally:
        killer.cancel()
    reader.join(5)
    marks["end"] = total()
    if proc.returncode != 0:
        raise SystemExit(f"{cmd[1]} failed: {''.join(errors)}")
    if "PLAY" not in marks or "DONE" not in marks:
        raise SystemExit(f"{cmd[1]} did not mark its play window: {''.join(errors)}")
    return out, {
        "all": marks["end"][0] - marks["start"][0],
        "play": marks["DONE"][0] - marks["PLAY"][0],
        "stack": marks["DONE"][1] - marks["PLAY"][1],
    }
