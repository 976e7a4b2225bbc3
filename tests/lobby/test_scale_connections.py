"""A burst of page loads holds a PostgreSQL connection per request in flight, not one per load.

Each HTTP request runs its sync code in a thread of its own (cardgames/asgi.py): before its
connections were closed with the request, a burst of page loads from one Daphne process
left one connection open per request until the garbage collector came by, and filled
PostgreSQL's connections (here: 96 of 100 and "too many clients" after 600 loads, eight at
a time). Run by `make test-scale` (fails, never skips, without the services).
"""

from __future__ import annotations

import os
import threading
import urllib.request
from concurrent.futures import ThreadPoolExecutor

import psycopg
import pytest
from django.conf import settings

from tests.devserver import free_port, start_daphne, stop

pytestmark = [pytest.mark.scale, pytest.mark.django_db(transaction=True)]

LOADS = 300
AT_ONCE = 8


def _backends(counting: psycopg.Connection) -> int:
    """The connections to this test's database, the counting one left out (autocommit: each
    count reads the statistics afresh)."""
    row = counting.execute(
        "SELECT count(*) FROM pg_stat_activity"
        " WHERE datname = current_database() AND pid <> pg_backend_pid()"
    ).fetchone()
    assert row is not None
    return int(row[0])


def _load(url: str) -> int:
    with urllib.request.urlopen(url, timeout=30) as answer:
        answer.read()
        return answer.status


def test_a_burst_of_page_loads_holds_a_connection_per_request_in_flight_at_most(tmp_path):
    from django.db import connection

    assert connection.vendor == "postgresql", "set DATABASE_URL to a PostgreSQL database"
    db = settings.DATABASES["default"]
    dsn = f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}"
    connection.close()  # the test's own: not counted in the process's
    port = free_port()
    with (
        open(tmp_path / "daphne.log", "w") as log,
        psycopg.connect(dsn, autocommit=True) as counting,
    ):
        process = start_daphne(port, {**os.environ, "DATABASE_URL": dsn}, log)
        try:
            url = f"http://127.0.0.1:{port}/"
            assert _load(url) == 200  # the process is up: its rooms, driver and scheduler
            idle = _backends(counting)
            most = idle
            done = threading.Event()

            def watch() -> None:
                nonlocal most
                while not done.wait(0.01):
                    most = max(most, _backends(counting))

            watcher = threading.Thread(target=watch)
            watcher.start()
            try:
                with ThreadPoolExecutor(AT_ONCE) as pool:
                    statuses = list(pool.map(_load, [url] * LOADS))
            finally:
                done.set()
                watcher.join()
        finally:
            stop(process)
    assert statuses == [200] * LOADS
    # A connection per request in flight beyond what the process holds idle, and as many
    # again for backends still leaving (a closed connection's backend is listed until its
    # process has exited): never one per request served (87 here before the fix).
    assert most <= idle + 2 * AT_ONCE, (idle, most)
