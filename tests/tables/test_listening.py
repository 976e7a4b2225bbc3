"""A change is published for the other processes only while one of them hears its room.

One process plays both sides here: the live server is told that other processes hear it, and
what another process's relay would say (`table.listening`) is sent to the `LISTENING` group by
the test. What this process publishes is read where the other processes would read it: a bare
channel in the room's group on the real channel layer (in memory here, Redis under
`make test-scale`). The two real processes are in test_scale_listening.py.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest
import pytest_asyncio
from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer

from tables.live import render, rooms
from tests.conftest import make_user
from tests.tables.helpers import TableSocket, started_room, table_socket

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]

ELSEWHERE = "elsewhere-0001"


@pytest.fixture(autouse=True)
def _others_hear(_fresh_live_server, settings):
    settings.BOT_DRIVER = False  # every version is the test's own
    _fresh_live_server.others = True


class Bare:
    """A channel in a group that nobody reads but the test: what reaches another process.

    One receive is always waiting on it (a pub/sub layer forgets a channel whose receive was
    cancelled, and what comes meanwhile with it)."""

    def __init__(self, channel: str) -> None:
        self.got: list[dict] = []
        self.reading = asyncio.create_task(self._read(channel))

    async def _read(self, channel: str) -> None:
        layer = get_channel_layer()
        while True:
            message = await layer.receive(channel)
            self.got.append(message)  # the list of now (`_heard` takes the one before)


@pytest_asyncio.fixture
async def bare():
    """`await bare(group)`: a `Bare` channel in `group`, read until the test ends."""
    made: list[Bare] = []

    async def make(group: str) -> Bare:
        layer = get_channel_layer()
        channel = await layer.new_channel()
        await layer.group_add(group, channel)
        made.append(Bare(channel))
        return made[-1]

    yield make
    for one in made:
        one.reading.cancel()


async def _heard(bare: Bare, quiet: float = 0.3) -> list[dict]:
    """Every message `bare` got since the last call, once none came for `quiet` seconds."""
    while True:
        count = len(bare.got)
        await asyncio.sleep(quiet)
        if len(bare.got) == count:
            got, bare.got = bare.got, []
            return got


def _changes(messages: list[dict]) -> list[int]:
    return [m["version"] for m in messages if m["type"] == "table.public"]


async def _say(kind: str, rooms_heard: list[int], whole: bool = False, ask: bool = False) -> None:
    """What another process's relay says of the rooms it hears."""
    message = {"type": kind, "origin": ELSEWHERE, "rooms": rooms_heard, "whole": whole, "ask": ask}
    await get_channel_layer().group_send(rooms.LISTENING, message)


async def _taken_in(holds: Callable[[frozenset[int]], bool], within: float = 5) -> None:
    """Wait until what this process knows the other one hears satisfies `holds` (what was said
    has come in over the channel layer: a loaded run may take longer than any fixed pause)."""
    relay = rooms.bind(asyncio.get_running_loop()).relay
    assert relay is not None
    deadline = asyncio.get_running_loop().time() + within
    while not holds(relay.heard.get(ELSEWHERE, (frozenset(), 0.0))[0]):
        assert asyncio.get_running_loop().time() < deadline, relay.heard
        await asyncio.sleep(0.01)


async def _flip(socket: TableSocket) -> int:
    """Alice flips; return the version her socket then shows."""
    before = socket.seen
    await socket.send_json_to({"type": "flip"})
    while socket.seen <= before:
        await socket.receive_from(timeout=5)
    return socket.seen


async def _table_with_alice():
    alice = await sync_to_async(make_user)("alice")
    bob = await sync_to_async(make_user)("bob")
    room = await sync_to_async(started_room)(alice, [bob])
    socket = await table_socket(room.pk, alice)
    now = await sync_to_async(lambda: rooms.read(room.pk).version)()
    while socket.seen < now:
        await socket.receive_from(timeout=5)
    return room, socket


async def test_a_room_no_other_process_hears_publishes_nothing(bare):
    room, alice = await _table_with_alice()
    published = await bare(render.table_group(room.pk))

    versions = [await _flip(alice) for _ in range(3)]

    assert versions == sorted(set(versions)) and alice.seen == versions[-1]  # played here
    assert _changes(await _heard(published)) == []
    await alice.disconnect()


async def test_a_room_another_process_hears_gets_its_last_change_again_then_every_change(bare):
    room, alice = await _table_with_alice()
    published = await bare(render.table_group(room.pk))
    skipped = await _flip(alice)  # nobody elsewhere hears the room yet: not published
    assert _changes(await _heard(published)) == []

    await _say("table.listening", [room.pk])
    # The change it may have missed while its relay said so, at once, and from here on each.
    assert _changes(await _heard(published)) == [skipped]
    then = [await _flip(alice) for _ in range(3)]
    messages = await _heard(published)
    assert _changes(messages) == then == list(range(skipped + 1, skipped + 4))
    assert {m["origin"] for m in messages} == {rooms.ORIGIN}

    await _say("table.unlistening", [room.pk])
    await _taken_in(lambda heard: room.pk not in heard)
    await _flip(alice)
    assert _changes(await _heard(published)) == []
    await alice.disconnect()


async def test_a_process_that_says_all_it_hears_replaces_what_it_said_before(bare):
    room, alice = await _table_with_alice()
    published = await bare(render.table_group(room.pk))
    await _say("table.listening", [room.pk])
    await _heard(published)

    await _say("table.listening", [room.pk + 1000], whole=True)  # no longer this room
    await _taken_in(lambda heard: heard == {room.pk + 1000})
    await _flip(alice)
    assert _changes(await _heard(published)) == []
    await alice.disconnect()


async def test_a_starting_process_is_told_every_room_heard_here_at_once(bare):
    room, alice = await _table_with_alice()
    said = await bare(rooms.LISTENING)
    # The relay's own opening word (it asks too) may reach `said` after it joined, over Redis
    # (a loaded run saw it come first): read away here, and never taken for the answer.
    await _heard(said)

    await _say("table.listening", [], whole=True, ask=True)

    answers = [m for m in await _heard(said) if m["origin"] == rooms.ORIGIN and not m["ask"]]
    assert answers and answers[0]["whole"] is True and answers[0]["rooms"] == [room.pk]
    await alice.disconnect()


async def test_a_room_heard_here_is_said_when_joined_and_when_left(bare):
    alice = await sync_to_async(make_user)("alice")
    bob = await sync_to_async(make_user)("bob")
    room = await sync_to_async(started_room)(alice, [bob])
    said = await bare(rooms.LISTENING)
    await rooms.bind(asyncio.get_running_loop()).relay._open()  # the relay hears and speaks
    # Its opening word (no rooms yet) reaches `said` for sure, and is read away here: heard
    # after it, from Redis, it reached a channel added just before (a loaded run saw it).
    await _heard(said)

    socket = await table_socket(room.pk, alice)
    await socket.receive_from(timeout=5)
    joined = [m for m in await _heard(said) if m["origin"] == rooms.ORIGIN]
    await socket.disconnect()
    left = [m for m in await _heard(said) if m["origin"] == rooms.ORIGIN]

    assert [(m["type"], m["rooms"]) for m in joined] == [("table.listening", [room.pk])]
    assert [(m["type"], m["rooms"]) for m in left] == [("table.unlistening", [room.pk])]


async def test_a_process_silent_for_longer_than_the_expiry_is_no_longer_published_for(
    bare, monkeypatch
):
    monkeypatch.setattr(rooms, "REFRESH", 0.05)
    monkeypatch.setattr(rooms, "EXPIRE", 0.3)
    room, alice = await _table_with_alice()
    published = await bare(render.table_group(room.pk))

    async def alive() -> None:
        # What a living process's relay does: say again, every REFRESH, what it hears (a move
        # on a loaded machine may take longer than the expiry: only silence may end it).
        while True:
            await _say("table.listening", [room.pk])
            await asyncio.sleep(rooms.REFRESH)

    refreshing = asyncio.create_task(alive())
    try:
        await _heard(published, quiet=0.1)
        published_while_heard = await _flip(alice)
        assert published_while_heard in _changes(await _heard(published))
    finally:
        refreshing.cancel()

    # It died without leaving: forgotten once EXPIRE has passed since the last word it said
    # that came in (one still in flight may come in after the cancel), then nothing more.
    await _taken_in(lambda heard: room.pk not in heard)
    await _flip(alice)
    assert _changes(await _heard(published)) == []
    await alice.disconnect()


async def test_a_change_of_a_room_not_held_here_is_published_anyway(bare):
    # Nothing here could publish it again once another process says it hears the room.
    alice = await sync_to_async(make_user)("alice")
    bob = await sync_to_async(make_user)("bob")
    room = await sync_to_async(started_room)(alice, [bob])
    live = rooms.bind(asyncio.get_running_loop())
    await live.relay._open()
    published = await bare(render.table_group(room.pk))
    table = await sync_to_async(rooms.read)(room.pk)
    assert live.get(room.pk) is None

    live.changed(table, [])

    assert _changes(await _heard(published)) == [table.version]
