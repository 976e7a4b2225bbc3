"""A table page that reconnects says the version it shows (`?v=`, static/js/site.js): it gets
what it missed, not the whole table again, when the room here pushed every change since; the
whole table otherwise (too old, or not here). Either way it ends at the current version."""

from __future__ import annotations

import json

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator

from cardgames.asgi import application
from tables.live import rooms
from tables.live.room import RECENT
from tests.conftest import make_user
from tests.tables.helpers import ORIGIN, started_room, table_socket, version_of

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]


@pytest.fixture(autouse=True)
def _no_driver(settings):
    settings.BOT_DRIVER = False  # every version is the test's own


async def _settle(*sockets) -> str:
    """Read each socket until it is quiet; return the last frame read (of the last socket)."""
    last = ""
    for s in sockets:
        while not await s.receive_nothing(timeout=0.3):
            last = await s.receive_from()
    return last


async def _reconnect(
    room_id: int, user, shown: int, seat: str
) -> tuple[WebsocketCommunicator, list[str]]:
    """Reconnect as a page that shows version `shown`, drawn for `seat` ("" a spectator)."""
    socket = WebsocketCommunicator(
        application, f"/ws/rooms/{room_id}/table/?v={shown}&s={seat}", headers=ORIGIN
    )
    socket.scope["user"] = user
    connected, _ = await socket.connect(timeout=10)
    assert connected
    frames = [await socket.receive_from()]
    while not await socket.receive_nothing(timeout=0.3):
        frames.append(await socket.receive_from())
    return socket, frames


async def _now(room_id: int) -> int:
    return await sync_to_async(lambda: rooms.read(room_id).version)()


async def _room():
    alice = await sync_to_async(make_user)("alice")
    bob = await sync_to_async(make_user)("bob")
    room = await sync_to_async(started_room)(alice, [bob])
    return alice, bob, room


async def test_a_page_that_reconnects_gets_only_what_it_missed():
    alice, bob, room = await _room()
    a, b = await table_socket(room.pk, alice), await table_socket(room.pk, bob)
    await _settle(a, b)
    await a.disconnect()
    shown = await _now(room.pk)  # what alice's page shows: she saw every change until now
    await _settle(b)
    for _ in range(2):  # bob plays on while alice is away
        await b.send_to(text_data=json.dumps({"type": "flip"}))
        await b.receive_from()
    assert await _now(room.pk) > shown

    a, frames = await _reconnect(room.pk, alice, shown, "0")
    # The live mark first, then the changes one by one: never the whole table.
    assert 'data-connected="true"' in frames[0] and 'id="lg-center"' not in frames[0]
    assert len(frames) >= 3  # bob's two flips and alice's coming back, at least
    assert not any('id="lg-center"' in f for f in frames)
    assert version_of(frames[-1]) == await _now(room.pk)
    for s in (a, b):
        await s.disconnect()


async def test_a_page_too_far_behind_gets_the_whole_table(settings):
    settings.TABLE_ACTION_RATE = 1000  # bob's flips all count
    alice, bob, room = await _room()
    a, b = await table_socket(room.pk, alice), await table_socket(room.pk, bob)
    await _settle(a, b)
    await a.disconnect()
    await _settle(b)
    for _ in range(RECENT + 4):  # more changes than the room keeps
        await b.send_to(text_data=json.dumps({"type": "flip"}))
        await b.receive_from()
    assert await _now(room.pk) > RECENT + 2
    a, frames = await _reconnect(room.pk, alice, 1, "0")
    assert 'id="lg-center"' in frames[0] and 'data-connected="true"' in frames[0]
    assert max(version_of(f) for f in frames if "data-version" in f) == await _now(room.pk)
    for s in (a, b):
        await s.disconnect()


async def test_a_page_that_missed_nothing_gets_the_live_mark():
    alice, bob, room = await _room()
    a = await table_socket(room.pk, alice)
    b = await table_socket(room.pk, bob)
    await _settle(a, b)
    # A spectator's page (no presence of its own to count): nothing changes by its coming.
    eve = await sync_to_async(make_user)("eve")
    e = await table_socket(room.pk, eve)
    await _settle(e)
    await e.disconnect()
    e, frames = await _reconnect(room.pk, eve, await _now(room.pk), "")
    assert frames == [frames[0]] and 'id="lg-center"' not in frames[0]
    assert 'data-connected="true"' in frames[0]
    for s in (a, b, e):
        await s.disconnect()


async def test_a_page_drawn_for_another_seat_gets_the_whole_table():
    # Bob's page, drawn for his seat, reconnects as eve (he signed out, she signed in): she
    # must not keep his cards, whatever the version says.
    alice, bob, room = await _room()
    eve = await sync_to_async(make_user)("eve")
    a, b = await table_socket(room.pk, alice), await table_socket(room.pk, bob)
    await _settle(a, b)
    e, frames = await _reconnect(room.pk, eve, await _now(room.pk), "1")
    assert 'id="lg-center"' in frames[0] and 'id="lg-me" class="me' not in frames[0]
    assert 'data-seat=""' in frames[0]
    for s in (a, b, e):
        await s.disconnect()
