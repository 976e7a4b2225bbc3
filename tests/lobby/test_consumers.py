"""The lobby and room sockets, through Channels' communicator and the real routing."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator

from cardgames.asgi import application
from lobby import services
from tests.conftest import make_user

ORIGIN = [(b"origin", b"http://localhost"), (b"host", b"localhost")]
pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]


async def connect(path: str, user=None) -> WebsocketCommunicator:
    communicator = WebsocketCommunicator(application, path, headers=ORIGIN)
    if user is not None:
        communicator.scope["user"] = user
    connected, _ = await communicator.connect(timeout=10)
    assert connected
    return communicator


async def test_the_lobby_sends_the_list_on_connect_and_new_rooms_live():
    alice = await sync_to_async(make_user)("alice")
    lobby = await connect("/ws/lobby/")
    first = await lobby.receive_from()
    assert 'id="room-list"' in first and 'data-connected="true"' in first
    assert "No open Ligretto rooms yet" in first

    room = await sync_to_async(services.create_room)(alice, "ligretto", 4)
    update = await lobby.receive_from()
    assert f'id="room-{room.pk}"' in update and "1 of 4 seats taken" in update
    assert room.invite_code not in update  # the broadcast goes to everyone: no invite in it
    await lobby.disconnect()


async def test_a_socket_without_origin_is_refused():
    communicator = WebsocketCommunicator(application, "/ws/lobby/")
    connected, _ = await communicator.connect(timeout=10)
    assert not connected


async def test_the_room_pushes_seat_changes_to_everyone_watching():
    alice = await sync_to_async(make_user)("alice")
    bob = await sync_to_async(make_user)("bob")
    room = await sync_to_async(services.create_room)(alice, "ligretto", 3)
    host = await connect(f"/ws/rooms/{room.pk}/", alice)
    watcher = await connect(f"/ws/rooms/{room.pk}/")  # anonymous spectator
    host_first = await host.receive_from()
    assert 'id="seat-1"' in host_first and "free" in host_first
    assert room.invite_code in host_first
    watcher_first = await watcher.receive_from()
    assert room.invite_code not in watcher_first  # the invite is for seated players only

    await sync_to_async(services.join_room)(room.pk, bob)
    for communicator in (host, watcher):
        html = await communicator.receive_from()
        assert '<span class="name">bob</span>' in html
    assert await host.receive_nothing(timeout=0.05)

    await sync_to_async(services.start_room)(room.pk, alice)
    assert 'data-status="playing"' in await host.receive_from()
    assert "You are watching" in await watcher.receive_from()
    await host.disconnect()
    await watcher.disconnect()


async def test_an_unknown_room_socket_is_closed():
    communicator = WebsocketCommunicator(application, "/ws/rooms/999/", headers=ORIGIN)
    # Accepted, then closed with 4404: a refused handshake reaches a browser as 1006, which
    # the ws extension retries forever.
    connected, _ = await communicator.connect(timeout=10)
    assert connected
    assert await communicator.receive_output() == {"type": "websocket.close", "code": 4404}
