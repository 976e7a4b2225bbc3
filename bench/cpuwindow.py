"""CPU while a load driver plays: the window between its `PLAY` and `DONE` lines.

Both load drivers (bench/bgio/load.js and bench/ours/load.js) write `PLAY` on stderr when every
client is connected and synced and the first move is about to go, and `DONE` once the last
move's deliveries have arrived. The CPU the servers spend in that window, per accepted move, is
what a move costs; what they spent before (connecting and signing in the clients, their first
views, the settling wait) is a fixed cost that a longer run would spread thinner, so it is
reported apart (`all`: the whole run, connections included).

The servers are not the whole stack a move goes through: `Stack` adds, in the same window,
nginx's master and workers (when there is a proxy), the PostgreSQL cluster and the Redis server
(`stack`). Those two are counted whether a row uses them or not: a row that does not (one
process on SQLite, boardgame.io in memory) finds them idle, near zero. Of the cluster, every
process is counted but the backends of databases the run does not use: on a machine others use
too, their tests' connections would be counted as the bench's. What those spent, with the
connections that ended within the window (the postmaster waited for them, and the kernel adds
their time to its children's, with no word of their database), is reported apart (`elsewhere`);
the run's own connections are persistent (the site's DB_CONN_MAX_AGE, the adapter's pool), so
on a quiet machine it is near zero.
"""

from __future__ import annotations

import os
import re
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


# A backend's title: "postgres: [CLUSTER: ]USER DATABASE HOST(PORT)|[local] STATE".
BACKEND = re.compile(r"^postgres: (?:\S+: )?\S+ (\S+) (?:\S+\(\d+\)|\[local\])")


def database_of(pid: int) -> str | None:
    """The database a PostgreSQL backend serves (None: a background process)."""
    found = BACKEND.match(Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode())
    return found[1] if found else None


def cluster_cpu(postmaster: int, databases: set[str]) -> tuple[float, float]:
    """A PostgreSQL cluster's CPU so far: its postmaster, background processes and the backends
    of `databases` (counted); and the rest (elsewhere): other databases' backends, and the
    children that have ended (the postmaster waits for each, the kernel adds its time to the
    postmaster's children's)."""
    counted = cpu_seconds(postmaster)
    elsewhere = cpu_seconds(postmaster, reaped=True) - counted
    for child in children(postmaster):
        with suppress(OSError):  # ended since the list was read
            spent = cpu_seconds(child)
            database = database_of(child)
            if database is None or database in databases:
                counted += spent
            else:
                elsewhere += spent
    return counted, elsewhere


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


# The parts of the stack besides the servers, each counted apart too (`Stack.cpu`).
PARTS = ("nginx", "postgres", "redis")


class Stack:
    """The processes a move goes through besides the servers: nginx's (`proxy`, given), the
    PostgreSQL cluster and the Redis server that the URLs name (found on this machine). The
    run's databases: `database_url`'s, and the server's `postgres` (the bench's own admin)."""

    def __init__(self, database_url: str, redis_url: str, proxy: list[int] | None = None) -> None:
        self.proxy = list(proxy or [])
        self.postmaster = postmaster_of(database_url)
        self.databases = {urllib.parse.urlparse(database_url).path.lstrip("/"), "postgres"}
        self.redis = redis_of(redis_url)

    def missing(self) -> list[str]:
        """What could not be found (and so is not counted)."""
        found = (("PostgreSQL", self.postmaster), ("Redis", self.redis))
        return [name for name, pid in found if pid is None]

    def cpu(self) -> dict[str, float]:
        """CPU seconds so far: counted (`stack`), each part of it (`nginx`, `postgres`,
        `redis`), and the cluster's work for others (`elsewhere`)."""
        parts = dict.fromkeys(PARTS, 0.0)
        elsewhere = 0.0
        for pid in self.proxy:
            with suppress(OSError):
                parts["nginx"] += cpu_seconds(pid)
        if self.postmaster is not None:
            parts["postgres"], elsewhere = cluster_cpu(self.postmaster, self.databases)
        if self.redis is not None:
            parts["redis"] = cpu_seconds(self.redis)
        return {"stack": sum(parts.values()), "elsewhere": elsewhere, **parts}


def run_load(
    cmd: list[str],
    pids: list[int],
    timeout: float,
    stack: Callable[[], dict[str, float]] | None = None,
    **popen,
) -> tuple[str, dict]:
    """Run a load driver; return its stdout and CPU seconds: the servers' (`pids`) over the whole
    run (`all`) and between its PLAY and DONE lines (`play`), and in that window the servers'
    with the rest of the stack (`stack`) and what PostgreSQL did for others (`elsewhere`);
    `stack` is a function giving those two so far (`Stack.cpu`), and the window's CPU of each
    of the stack's parts (PARTS: nginx, postgres, redis; 0 without `stack`)."""

    def total() -> dict[str, float]:
        servers = sum(cpu_seconds(pid) for pid in pids)
        rest = stack() if stack else {"stack": 0.0, "elsewhere": 0.0}
        return {"servers": servers, **rest, "stack": servers + rest["stack"]}

    def window(key: str) -> float:
        return marks["DONE"].get(key, 0.0) - marks["PLAY"].get(key, 0.0)

    marks: dict[str, dict[str, float]] = {"start": total()}
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
        "all": marks["end"]["servers"] - marks["start"]["servers"],
        "play": marks["DONE"]["servers"] - marks["PLAY"]["servers"],
        "stack": marks["DONE"]["stack"] - marks["PLAY"]["stack"],
        "elsewhere": marks["DONE"]["elsewhere"] - marks["PLAY"]["elsewhere"],
        **{part: window(part) for part in PARTS},
    }
