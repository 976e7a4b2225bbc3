"""Publishes on real Daphne processes, the real PostgreSQL and Redis: a change goes to Redis only
while another process listens to its room (tables.live.rooms.Relay).

A match of bots is played by the process holding its lease (the owner). What the owner
publishes is counted where Redis carries it: a plain Redis subscriber on the room's group
channel. With the room's only listener on the owner nothing is published; a spectator on the
other process gets every change in order, and once it leaves the publishes stop again.
Spectators that open the table on either process at any moment of a match all end at its last
version. (A change that falls between a spectator's join and the owner hearing of it is rare
here, a fraction of a millisecond: test_listening.py makes that moment happen on purpose.)
Run by `make test-scale` (fails, never skips, without the services).
"""

from __future__ import annotations

import asyncio
import time

import pytest
import redis.asyncio
import websockets
from django.conf import settings

from tables.live import render
from tables.models import ActionLog, Match
from tests.conftest import make_user
from tests.tables import helpers
from tests.tables.helpers import started_room, version_of

pytestmark = [pytest.mark.scale, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def two_daphnes(tmp_path):
    """Two Daphne processes on this test's PostgreSQL database and the Redis layer: port -> pid.
    A few changes a second: long enough to watch, fast enough to race."""
    with helpers.two_daphnes(tmp_path, "0.2") as servers:
        for port, _, _ in servers:
            helpers.wake(port)
        yield {port: process.pid for port, process, _ in servers}


def _owner_port(ports: dict[int, int], room_id: int) -> int:
    """The port of the process that drives the room, once a bot has moved."""
    deadline = time.monotonic() + 60
    while not ActionLog.objects.filter(match__room_id=room_id, by_bot=True).exists():
        assert time.monotonic() < deadline, "no bot moved within a minute"
        time.sleep(0.2)
    pid = int(Match.objects.get(room_id=room_id).driver.split(":")[1])
    return next(port for port, p in ports.items() if p == pid)


def _moves(room_id: int) -> int:
    return ActionLog.objects.filter(match__room_id=room_id).count()


class Published:
    """What Redis carries on a room's group channel, counted by a plain subscriber."""

    def __init__(self, room_id: int) -> None:
        prefix = settings.CHANNEL_LAYERS["default"]["CONFIG"]["prefix"]
        self.channel = f"{prefix}__group__{render.table_group(room_id)}"
        self.count = 0

    async def run(self, ready: asyncio.Event) -> None:
        client = redis.asyncio.Redis.from_url(settings.REDIS_URL)
        pubsub = client.pubsub()
        await pubsub.subscribe(self.channel)
        try:
            while True:
                message = await pubsub.get_message(ignore_subscribe_messages=True, timeout=0.1)
                if message is None and not ready.is_set():
                    ready.set()  # subscribed (its confirmation was read)
                if message is not None and message["type"] == "message":
                    self.count += 1
        finally:
            await pubsub.aclose()
            await client.aclose()


class Spectator:
    """A table socket without a seat; the versions of its frames, in order."""

    def __init__(self, port: int, room_id: int) -> None:
        self.uri = f"ws://127.0.0.1:{port}/ws/rooms/{room_id}/table/"
        self.versions: list[tuple[float, int]] = []
        self.finished = False

    async def run(self, until: float) -> None:
        async with websockets.connect(self.uri, origin="http://localhost", max_size=None) as ws:
            while time.monotonic() < until:
                try:
                    frame = await asyncio.wait_for(ws.recv(), timeout=0.5)
                except TimeoutError:
                    continue
                if isinstance(frame, str) and 'data-version="' in frame:
                    self.versions.append((time.monotonic(), version_of(frame)))
                if isinstance(frame, str) and 'data-status="finished"' in frame:
                    self.finished = True


async def _window(room_id: int, published: Published, seconds: float) -> tuple[int, int]:
    """How many moves were logged and how many changes published over `seconds`."""
    moves, count = await asyncio.to_thread(_moves, room_id), published.count
    await asyncio.sleep(seconds)
    return await asyncio.to_thread(_moves, room_id) - moves, published.count - count


def test_changes_are_published_only_while_another_process_listens(two_daphnes):
    alice = make_user("alice")
    room = started_room(alice, game="ligretto", bots=3, rounds=9)
    owner = _owner_port(two_daphnes, room.pk)
    other = next(port for port in two_daphnes if port != owner)

    async def scenario():
        published = Published(room.pk)
        ready = asyncio.Event()
        counting = asyncio.create_task(published.run(ready))
        await ready.wait()
        here = Spectator(owner, room.pk)
        watching_here = asyncio.create_task(here.run(time.monotonic() + 600))
        await asyncio.sleep(1)
        alone = await _window(room.pk, published, 3)

        there = Spectator(other, room.pk)
        until = time.monotonic() + 4
        watching_there = asyncio.create_task(there.run(until))
        await asyncio.sleep(1)
        heard = await _window(room.pk, published, 3)
        await watching_there  # its socket closes: the other process leaves the room's group
        await asyncio.sleep(1)
        left = await _window(room.pk, published, 3)
        watching_here.cancel()
        counting.cancel()
        return alone, heard, left, here, there

    alone, heard, left, here, there = asyncio.run(scenario())

    moves, publishes = alone
    assert moves > 5 and publishes == 0  # only the owner's own socket listened
    moves, publishes = heard
    # Published now: a move logged in the window's last moments is published just after it (a
    # clean-clone run on two loaded cores saw 44 publishes for 48 moves, the publish a quarter of
    # a second behind). That every change reached the other process, each once and in order, is
    # what the spectator there shows below.
    assert moves > 5 and publishes >= moves * 3 // 4
    moves, publishes = left
    assert moves > 5 and publishes == 0
    # The spectator on the other process saw every change from its first frame, in order; so
    # did the one on the owner.
    for spectator in (there, here):
        versions = [v for _, v in spectator.versions]
        assert len(versions) > 5
        assert versions == list(range(versions[0], versions[0] + len(versions)))


def test_spectators_opening_the_table_anywhere_during_play_end_at_its_last_version(two_daphnes):
    alice = make_user("alice")
    room = started_room(alice, game="ligretto-mini", bots=1, rounds=1)
    ports = list(two_daphnes)

    async def scenario():
        spectators = []
        tasks = []
        for i in range(12):  # one every quarter of a second, on either process
            spectator = Spectator(ports[i % 2], room.pk)
            spectators.append(spectator)
            tasks.append(asyncio.create_task(spectator.run(time.monotonic() + 300)))
            await asyncio.sleep(0.25)
        deadline = time.monotonic() + 300
        while not all(s.finished for s in spectators):
            assert time.monotonic() < deadline, "the match did not end within 5 minutes"
            await asyncio.sleep(0.2)
        await asyncio.sleep(2)  # what came after the end (the seats' last changes)
        for task in tasks:
            task.cancel()
        return spectators

    spectators = asyncio.run(scenario())

    last = Match.objects.get(room_id=room.pk).version
    for spectator in spectators:
        versions = [v for _, v in spectator.versions]
        assert versions == sorted(versions) and versions[-1] == last
