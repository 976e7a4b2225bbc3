"""Tables on the scale-out path: two Daphne processes on the real PostgreSQL and Redis.

A 12-seat Ligretto match of bots plays to its end with exactly one bot driver per room while
a spectator on the other process sees every change; when the driving process dies, the other
takes the room over. Run by `make test-scale` (fails, never skips, without the services).
"""

from __future__ import annotations

import asyncio
import os
import signal
import time

import pytest
import websockets

from tables.models import ActionLog, Match
from tests.conftest import make_user
from tests.tables import helpers
from tests.tables.helpers import started_room

pytestmark = [pytest.mark.scale, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def two_daphnes(tmp_path):
    """Two Daphne processes on this test's PostgreSQL database and the Redis layer."""
    with helpers.two_daphnes(tmp_path, os.environ.get("SCALE_BOT_PACE", "0")) as servers:
        yield servers


async def _watch(port: int, room_id: int, until: float) -> list[str]:
    frames: list[str] = []
    uri = f"ws://127.0.0.1:{port}/ws/rooms/{room_id}/table/"
    async with websockets.connect(uri, origin="http://localhost", max_size=None) as ws:
        while time.monotonic() < until:
            try:
                frames.append(await asyncio.wait_for(ws.recv(), timeout=1))
            except TimeoutError:
                continue
            if 'data-status="finished"' in frames[-1]:
                break
    return frames


def _drivers(room_id: int) -> list[str]:
    rows = ActionLog.objects.filter(match__room_id=room_id, by_bot=True).order_by("version")
    out: list[str] = []
    for driver in rows.values_list("driver", flat=True):
        if not out or out[-1] != driver:
            out.append(driver)
    return out


def test_a_twelve_seat_match_of_bots_ends_with_one_driver_and_live_pushes(two_daphnes):
    alice = make_user("alice")
    room = started_room(alice, game="ligretto", bots=11, rounds=2)
    for port, _, _ in two_daphnes:
        helpers.wake(port)
    spectator_port = two_daphnes[1][0]
    frames = asyncio.run(_watch(spectator_port, room.pk, time.monotonic() + 400))
    match = Match.objects.get(room_id=room.pk)
    assert match.status == Match.Status.FINISHED
    assert len(_drivers(room.pk)) == 1  # one bot driver for the whole match
    assert ActionLog.objects.filter(match=match).count() > 24
    # The spectator's process saw the match to its end, whichever process drove it.
    assert any('data-status="finished"' in f for f in frames)


def test_when_the_driving_process_dies_the_other_takes_the_room_over(two_daphnes, settings):
    alice = make_user("alice")
    room = started_room(alice, game="ligretto", bots=11, rounds=3)
    for port, _, _ in two_daphnes:
        helpers.wake(port)
    deadline = time.monotonic() + 60
    while not ActionLog.objects.filter(match__room_id=room.pk).exists():
        assert time.monotonic() < deadline, "no bot moved within a minute"
        time.sleep(0.2)
    holder = Match.objects.get(room_id=room.pk).driver
    pid = int(holder.split(":")[1])
    victim = next(p for _, p, _ in two_daphnes if p.pid == pid)
    os.kill(victim.pid, signal.SIGKILL)
    victim.wait()
    killed_at = ActionLog.objects.filter(match__room_id=room.pk).count()

    deadline = time.monotonic() + 60
    while ActionLog.objects.filter(match__room_id=room.pk).count() <= killed_at + 5:
        assert time.monotonic() < deadline, "nobody took the room over"
        time.sleep(0.2)
    drivers = _drivers(room.pk)
    assert drivers[0] == holder and drivers[-1] != holder
    assert Match.objects.get(room_id=room.pk).driver == drivers[-1]
