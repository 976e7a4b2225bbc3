"""The scale-out path against a real PostgreSQL and Redis (`make test-scale`).

`make test-scale` uses the servers DATABASE_URL / REDIS_URL name, or starts throwaway ones
(tests/scale_services.py); run directly without them, these tests fail (never skip).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.db import connection, connections

from cardgames.asgi import application
from lobby import services
from lobby.models import Room
from tables.live import rooms
from tests.conftest import make_user

ROOT = Path(__file__).resolve().parents[2]
pytestmark = [pytest.mark.scale, pytest.mark.django_db(transaction=True)]


def test_it_runs_on_postgresql_and_redis():
    assert connection.vendor == "postgresql", "set DATABASE_URL to a PostgreSQL database"
    backend = settings.CHANNEL_LAYERS["default"]["BACKEND"]
    assert backend == "channels_redis.pubsub.RedisPubSubChannelLayer", "set REDIS_URL"


@pytest.mark.asyncio
async def test_a_change_made_by_another_process_reaches_this_processs_sockets():
    alice = await sync_to_async(make_user)("alice")
    room = await sync_to_async(services.create_room)(alice, "ligretto", 3)
    lobby = WebsocketCommunicator(
        application,
        "/ws/lobby/",
        headers=[(b"origin", b"http://localhost"), (b"host", b"localhost")],
    )
    assert (await lobby.connect(timeout=10))[0]
    await lobby.receive_from()

    # Another Daphne process, as far as the channel layer knows: its own interpreter.
    db = settings.DATABASES["default"]
    url = f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}"
    script = (
        "from django.contrib.auth.models import User; from lobby import services;"
        f"bob = User.objects.create_user('bob', password='x-long-enough-1');"
        f"services.join_room({room.pk}, bob)"
    )
    result = await sync_to_async(subprocess.run)(
        [sys.executable, "manage.py", "shell", "--no-imports", "-c", script],
        cwd=ROOT,
        env={**os.environ, "DATABASE_URL": url},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    update = await lobby.receive_from(timeout=5)
    assert f'id="room-{room.pk}"' in update and "2 of 3 seats taken" in update
    await lobby.disconnect()
    seated = await sync_to_async(lambda: Room.objects.get(pk=room.pk).seat_set.count())()
    assert seated == 2
    # The ORM's worker thread keeps a connection that would block dropping the test database.
    await sync_to_async(connections.close_all)()


@pytest.mark.asyncio
async def test_moves_from_two_processes_on_one_table_are_all_seen_and_logged_in_order():
    # alice plays through this process's room actor, bob through another process: each write
    # checks the version it started from, so neither overwrites the other, and every change
    # reaches alice's socket (bob's through Redis).
    from tables.models import ActionLog
    from tests.tables.helpers import started_room, table_socket, version_of

    alice = await sync_to_async(make_user)("alice")
    bob = await sync_to_async(make_user)("bob", password="x-long-enough-1")
    room = await sync_to_async(started_room)(alice, [bob], game="ligretto-mini")
    sock = await table_socket(room.pk, alice)
    while not await sock.receive_nothing(timeout=0.3):
        await sock.receive_from()
    db = settings.DATABASES["default"]
    url = f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}"
    script = f"from tables import play; play.act({room.pk}, 1, {{'type': 'flip'}})"
    seen: set[int] = set()
    for _ in range(2):
        result = await sync_to_async(subprocess.run)(
            [sys.executable, "manage.py", "shell", "--no-imports", "-c", script],
            cwd=ROOT,
            env={**os.environ, "DATABASE_URL": url},
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert result.returncode == 0, result.stderr
        seen.add(version_of(await sock.receive_from(timeout=5)))
        await sock.send_json_to({"type": "flip"})  # alice's actor is behind: it reads again
        seen.add(version_of(await sock.receive_from(timeout=5)))
    versions = await sync_to_async(
        lambda: list(
            ActionLog.objects.filter(match__room_id=room.pk, refused="")
            .order_by("version")
            .values_list("seat", "version")
        )
    )()
    assert [seat for seat, _ in versions] == [1, 0, 1, 0]
    assert [v for _, v in versions] == sorted(seen)
    assert (await rooms.room_for(room.pk)).table.version == versions[-1][1]
    await sock.disconnect()
    await sync_to_async(connections.close_all)()
    await rooms.close_connections()
