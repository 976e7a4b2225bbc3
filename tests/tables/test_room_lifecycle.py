"""A live room has one lifecycle: built on its first move or socket, dropped once its match is
over (after a short grace for late readers, once no socket here listens) or moved to another
process. Nothing of a finished or closed match stays in the process's rooms."""

from __future__ import annotations

import asyncio
import json

import pytest
from asgiref.sync import sync_to_async

from lobby import services
from tables.live import rooms
from tests.api.helpers import next_of, stream
from tests.api.test_play import _last_stack_card
from tests.tables.helpers import set_state, started_room, table_socket

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]


@pytest.fixture(autouse=True)
def _short_grace(settings):
    settings.LIVE_ROOM_GRACE = 0.05
    settings.TABLE_COUNTDOWN = 0


async def _play_to_the_end(room_id: int):
    """Seat 0 plays its last stack card (the one round ends, L13); both say ready: the end."""
    await rooms.act(room_id, 0, {"type": "play", "from": "stack"})
    await rooms.act(room_id, 0, {"type": "ready"})
    return await rooms.act(room_id, 1, {"type": "ready"})


async def _gone(room_id: int) -> bool:
    for _ in range(100):
        if rooms.get(room_id) is None:
            return True
        await asyncio.sleep(0.02)
    return False


async def test_a_finished_match_leaves_nothing_in_the_processs_rooms(alice, bob):
    room = await sync_to_async(started_room)(alice, [bob])
    await sync_to_async(set_state)(room.pk, _last_stack_card)
    here = await rooms.room_for(room.pk)
    assert here.table is not None and rooms.get(room.pk) is here
    outcome = await _play_to_the_end(room.pk)
    assert outcome.table is not None and outcome.table.match.status == "finished"
    assert here.durable is not None  # late readers still get it, for the grace
    assert await _gone(room.pk)
    assert here.table is None and here.durable is None and here.pushed is None
    # A late reader reads it from the database, and that builds nothing here.
    table = await sync_to_async(rooms.read)(room.pk)
    assert table is not None and table.match.status == "finished"
    assert rooms.get(room.pk) is None


async def test_a_finished_match_watched_here_goes_when_its_last_socket_does(alice, bob, eve):
    room = await sync_to_async(started_room)(alice, [bob])
    await sync_to_async(set_state)(room.pk, _last_stack_card)
    watcher = await table_socket(room.pk, eve)
    await watcher.receive_from()  # the whole table
    await _play_to_the_end(room.pk)
    await asyncio.sleep(0.2)  # the grace has passed: the socket still listens here
    kept = rooms.get(room.pk)
    assert kept is not None and kept.table is None and kept.listeners
    await watcher.disconnect()
    assert await _gone(room.pk)


async def test_a_closed_match_leaves_nothing_in_the_processs_rooms(alice, bob):
    room = await sync_to_async(started_room)(alice, [bob])
    _, token = await sync_to_async(_token)(alice)
    api = await stream(room.pk, token)
    await next_of(api, "view")
    await api.send_to(text_data=json.dumps({"type": "action", "action": {"type": "flip"}}))
    await next_of(api, "view")
    assert rooms.get(room.pk) is not None
    await sync_to_async(services.close_room)(room.pk, alice)
    closed = await next_of(api, "view")
    while closed["view"]["status"] != "closed":  # a presence change may come first
        closed = await next_of(api, "view")
    await api.disconnect()
    assert await _gone(room.pk)
    assert rooms.count() == 0


def _token(user):
    from api.models import ApiToken

    return ApiToken.objects.issue(user, "tests")


@pytest.mark.timeout(20)
async def test_a_room_asked_for_as_its_build_ends_waits_for_the_builder_instead_of_spinning(
    alice, bob
):
    # A second caller that finds the room's build already done, before its builder has resumed
    # to keep the table, must yield to it. It used to loop on the done build without ever
    # yielding: the server loop froze for good (seen in a rolling deploy under load).
    room = await sync_to_async(started_room)(alice, [bob])
    live = rooms.bind(asyncio.get_running_loop())
    table = await sync_to_async(rooms.read)(room.pk)
    live.rooms.pop(room.pk, None)
    done = asyncio.get_running_loop().create_future()
    done.set_result(table)
    live.building[room.pk] = done

    def builder_resumes() -> None:  # what the builder does once it runs again
        live.building.pop(room.pk, None)
        live.room(room.pk).loaded(table)

    asyncio.get_running_loop().call_soon(builder_resumes)
    _, loaded = await live.loaded(room.pk)
    assert loaded.version == table.version
