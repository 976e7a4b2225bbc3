"""Start a real Daphne on a free local port in a subprocess: for browser tests and benchmarks.

pytest-django's live_server is WSGI only (no WebSockets), so the flows that need sockets run
against this instead.
"""

from __future__ import annotations

import fcntl
import socket
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import closing, contextmanager
from pathlib import Path
from typing import IO

ROOT = Path(__file__).resolve().parent.parent

# What every site the tests serve sets beside its own settings: a cheap password hasher, as the
# in-process tests use (tests/conftest.py). Django's PBKDF2 spends about 0.4 s of a core on each
# sign-up, login and user made in a shell, which proves nothing about the site and is what a
# loaded 2-core machine runs short of (docs/performance.md, "The suite").
TEST_SITE = {"PASSWORD_HASHERS": "django.contrib.auth.hashers.MD5PasswordHasher"}


# Where this test run keeps one SQLite file migrated to the project's schema (tests/conftest.py
# sets it for the run: its workers share it); None: every site migrates its own file.
MIGRATED_DIR: Path | None = None


def migrate(env: dict[str, str]) -> None:
    """Give the SQLite file `env` names the project's migrated schema.

    `manage.py migrate` on a fresh file costs about 5 CPU-s on this machine (docs/performance.md,
    "The suite"), and every site a test run serves gets the same schema: the migrations read no
    setting but the user model. So the run migrates one file once (under a lock, for its other
    workers) and each site starts from a copy of it (sqlite3's backup: a few milliseconds).
    """
    url = env["DATABASE_URL"]
    if MIGRATED_DIR is None or not url.startswith("sqlite:///"):
        _migrate(env)
        return
    template = MIGRATED_DIR / "migrated.sqlite3"
    with open(MIGRATED_DIR / "migrated.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not template.exists():
            building = template.with_suffix(".building")
            building.unlink(missing_ok=True)
            _migrate({**env, "DATABASE_URL": f"sqlite:///{building}"})
            building.replace(template)
    with (
        closing(sqlite3.connect(template)) as source,
        closing(sqlite3.connect(url.removeprefix("sqlite:///"))) as target,
    ):
        source.backup(target)


def _migrate(env: dict[str, str]) -> None:
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"],
        cwd=ROOT,
        env=env,
        check=True,
    )


def free_port() -> int:
    """Return a TCP port that was free on 127.0.0.1 a moment ago."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_daphne(
    port: int,
    env: dict[str, str],
    log: IO | int = subprocess.DEVNULL,
    timeout: float = 30,
    options: tuple[str, ...] = (),
    server: str = "cardgames.server",
    cwd: Path = ROOT,
) -> subprocess.Popen:
    """Start Daphne serving the site on 127.0.0.1:`port` and wait until it listens.

    `server` is the module run with `python -m`: cardgames.server (Daphne with the site's
    limits), or "daphne" for Daphne alone (benchmarks compare the two). `options` are more of
    daphne's command-line options, e.g. ("--ping-interval", "600"); `cwd` is the checkout served.
    """
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            server,
            "-b",
            "127.0.0.1",
            "-p",
            str(port),
            *options,
            "cardgames.asgi:application",
        ],
        cwd=cwd,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"Daphne exited with {process.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return process
        except OSError:
            time.sleep(0.1)
    stop(process)
    raise RuntimeError(f"Daphne did not listen on {port} within {timeout}s")


def stop(process: subprocess.Popen) -> None:
    """Stop a Daphne started here, forcefully if it does not stop within 10 s."""
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def stop_within(process: subprocess.Popen, seconds: float) -> float:
    """SIGTERM a Daphne started here; return the seconds it took to exit. One that has not
    exited within `seconds` is killed and fails the caller (a graceful stop is bounded)."""
    sent = time.monotonic()
    process.terminate()
    try:
        process.wait(timeout=seconds)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
        raise AssertionError(f"the server did not exit {seconds} s after SIGTERM") from None
    # 1: it exited without threads that waited for the stopped loop (cardgames.server.exit_within)
    assert process.returncode == 0, f"the server exited with {process.returncode} after SIGTERM"
    return time.monotonic() - sent


@contextmanager
def serve_site(env: dict[str, str]) -> Iterator[str]:
    """Migrate the SQLite database `env` names, serve the site on it, yield its base URL.

    For the tests that need a real server (WebSockets, the bot driver): the browser flows and
    the API's end-to-end matches. The server's log lies beside the database file.
    """
    db = Path(env["DATABASE_URL"].removeprefix("sqlite:///"))
    migrate(env)
    with open(db.with_suffix(".log"), "w") as log:
        port = free_port()
        process = start_daphne(port, env, log)
        try:
            yield f"http://127.0.0.1:{port}"
        finally:
            stop(process)
