"""What two reads cost that every Board API client (and the in-process tests) makes often:
the OpenAPI document at /api/v1/schema, and a room's match row.

    .venv/bin/python bench/reads.py

On a fresh SQLite database in a temporary folder (migrated here, as a site's is), with
DEBUG off as in production. Times in CPU time of this thread, median of the runs:

- the schema: one GET through Django's test client, the first one (the document built) and
  the ones after it (the document the API made once, copied for the call); and the build
  itself as before 7 December (ninja's document and our finish, made for every call);
- the match row: `tables.live.store.match_row` (one statement through `raw`) against the ORM
  query it replaced (`Match.objects.filter(room_id=...).first()`), for a started room.
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
folder = tempfile.mkdtemp(prefix="cardgames-reads-")
os.environ["DATABASE_URL"] = f"sqlite:///{folder}/bench.sqlite3"
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cardgames.settings")
os.environ["DEBUG"] = "False"
os.environ.setdefault("SECRET_KEY", "bench-only")
os.environ["ALLOWED_HOSTS"] = "testserver"
os.environ["SECURE_SSL_REDIRECT"] = "False"

# No static files are collected here; none is served.
warnings.filterwarnings("ignore", message="No directory at")

import django  # noqa: E402

django.setup()

from django.contrib.auth import get_user_model  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.test import Client  # noqa: E402
from ninja import NinjaAPI  # noqa: E402

from api import schemas  # noqa: E402
from api.http import api  # noqa: E402
from lobby import services  # noqa: E402
from tables.live import store  # noqa: E402
from tables.models import Match  # noqa: E402

RUNS = 2000


def cpu(call, runs: int) -> float:
    """The median CPU time of `call`, in microseconds."""
    times = []
    for _ in range(runs):
        start = time.thread_time_ns()
        call()
        times.append(time.thread_time_ns() - start)
    return statistics.median(times) / 1000


def main() -> None:
    call_command("migrate", verbosity=0)
    users = get_user_model()
    host = users.objects.create_user("bench_host", password="x")
    other = users.objects.create_user("bench_other", password="x")
    room = services.create_room(host, "ligretto", 2)
    services.join_room(room.pk, other)
    services.start_room(room.pk, host)

    client = Client()

    def schema() -> None:
        client.get("/api/v1/schema")

    print("schema: GET /api/v1/schema, CPU ms")
    print(f"  first call (builds the document) {cpu(schema, 1) / 1000:8.1f}")
    print(f"  every call after it              {cpu(schema, 50) / 1000:8.1f}")
    before = cpu(
        lambda: schemas.finish_document(NinjaAPI.get_openapi_schema(api, path_prefix="/api/v1/")),
        5,
    )
    print(f"  the build alone (every call before) {before / 1000:5.1f}")

    print("match row: CPU µs a read")
    orm = cpu(lambda: Match.objects.filter(room_id=room.pk).first(), RUNS)
    raw = cpu(lambda: store.match_row(room.pk), RUNS)
    print(f"  the ORM query       {orm:7.1f}")
    print(f"  match_row (raw)     {raw:7.1f}")


if __name__ == "__main__":
    main()
