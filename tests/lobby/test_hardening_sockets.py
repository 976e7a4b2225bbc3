"""Socket hardening (issue 11) through Channels' communicator and the real routing: lobby pushes
carry one room's entry, a user's sockets close on logout / password change / ban, the Host is
checked as HTTP does, the scheme comes from the proxy, unknown paths close with 4404.
"""

from __future__ import annotations

import re

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.contrib.auth import get_user_model
from django.test import Client

from cardgames.asgi import application
from lobby import live, services
from tests.conftest import PASSWORD, make_user

ORIGIN = [(b"origin", b"http://localhost"), (b"host", b"localhost")]
pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]


async def connect(path: str, user=None, headers=ORIGIN, scheme: str | None = None):
    communicator = WebsocketCommunicator(application, path, headers=headers)
    if user is not None:
        communicator.scope["user"] = user
    if scheme is not None:
        communicator.scope["scheme"] = scheme
    connected, _ = await communicator.connect(timeout=10)
    assert connected
    return communicator


def entry_ids(html: str) -> list[int]:
    return [int(pk) for pk in re.findall(r'<li id="room-(\d+)"', html)]


# Lobby pushes ----------------------------------------------------------------------------


async def test_a_lobby_push_carries_the_changed_room_not_the_whole_list(settings):
    settings.ROOMS_PER_USER = 100  # one host opens a long list (the cap is tested elsewhere)
    alice = await sync_to_async(make_user)("alice")
    bob = await sync_to_async(make_user)("bob")
    rooms = [await sync_to_async(services.create_room)(alice, "ligretto", 4) for _ in range(30)]
    lobby = await connect("/ws/lobby/")
    whole = await lobby.receive_from()
    assert len(entry_ids(whole)) == 30

    await sync_to_async(services.join_room)(rooms[10].pk, bob)
    update = await lobby.receive_from()
    assert entry_ids(update) == [rooms[10].pk]
    assert "2 of 4 seats taken" in update and 'id="room-list"' not in update
    assert len(update) * 5 < len(whole)
    # Put back where it was: before the next older room, after removing the old entry.
    assert f'hx-swap-oob="beforebegin:#room-{rooms[9].pk}"' in update
    assert f"hx-swap-oob=\"delete:[data-room='{rooms[10].pk}']\"" in update
    await lobby.disconnect()


async def test_a_room_leaves_the_open_list_when_it_starts_and_when_it_closes():
    alice = await sync_to_async(make_user)("alice")
    bob = await sync_to_async(make_user)("bob")
    first = await sync_to_async(services.create_room)(alice, "ligretto", 3)
    second = await sync_to_async(services.create_room)(bob, "ligretto", 3)
    lobby = await connect("/ws/lobby/")
    await lobby.receive_from()

    await sync_to_async(services.add_bots)(first.pk, alice, 1)
    await lobby.receive_from()
    await sync_to_async(services.start_room)(first.pk, alice)
    started = await lobby.receive_from()
    assert 'hx-swap-oob="beforebegin:#playing-rooms-empty"' in started
    assert "(watch)" in started
    assert '<li id="playing-rooms-empty" class="empty" hidden>' in started

    await sync_to_async(services.leave_room)(second.pk, bob)  # the last human leaves: closed
    closed = await lobby.receive_from()
    assert entry_ids(closed) == []
    assert f"hx-swap-oob=\"delete:[data-room='{second.pk}']\"" in closed
    assert '<li id="open-ligretto-empty" class="empty">' in closed  # the list is empty again
    await lobby.disconnect()


async def test_a_room_pushed_off_the_end_of_the_list_is_removed(monkeypatch):
    monkeypatch.setattr(live, "LIST_SIZE", 2)
    alice = await sync_to_async(make_user)("alice")
    oldest = await sync_to_async(services.create_room)(alice, "ligretto", 4)
    await sync_to_async(services.create_room)(alice, "ligretto", 4)
    lobby = await connect("/ws/lobby/")
    assert len(entry_ids(await lobby.receive_from())) == 2

    newest = await sync_to_async(services.create_room)(alice, "ligretto", 4)
    update = await lobby.receive_from()
    assert f"hx-swap-oob=\"delete:[data-room='{oldest.pk}']\"" in update
    assert oldest.pk not in entry_ids(update) and newest.pk in entry_ids(update)
    await lobby.disconnect()


# A user's sockets close when who they are changes --------------------------------------


async def open_room_socket(user):
    room = await sync_to_async(services.create_room)(user, "ligretto", 3)
    communicator = await connect(f"/ws/rooms/{room.pk}/", user)
    assert 'id="leave-button"' in await communicator.receive_from()
    return communicator


async def test_logging_out_closes_the_users_sockets():
    alice = await sync_to_async(make_user)("alice")
    bob = await sync_to_async(make_user)("bob")
    mine = await open_room_socket(alice)
    others = await open_room_socket(bob)
    client = Client()
    await sync_to_async(client.force_login)(alice)
    await sync_to_async(client.post)("/accounts/logout/")
    # 1012: the page reconnects, and its session now says nobody is signed in.
    assert await mine.receive_output() == {"type": "websocket.close", "code": 1012}
    assert await others.receive_nothing()
    await others.disconnect()


async def test_a_password_change_closes_the_users_sockets():
    alice = await sync_to_async(make_user)("alice")
    socket = await open_room_socket(alice)
    client = Client()
    await sync_to_async(client.force_login)(alice)
    new = "another horse battery staple"
    fields = {"old_password": PASSWORD, "new_password1": new, "new_password2": new}
    response = await sync_to_async(client.post)("/accounts/password/", fields)
    assert response.status_code == 302
    assert await socket.receive_output() == {"type": "websocket.close", "code": 1012}


async def test_a_ban_closes_the_users_sockets_and_a_login_does_not():
    alice = await sync_to_async(make_user)("alice")
    socket = await open_room_socket(alice)
    await sync_to_async(Client().login)(username="alice", password=PASSWORD)  # saves last_login
    assert await socket.receive_nothing()

    def ban() -> None:
        user = get_user_model().objects.get(pk=alice.pk)
        user.is_active = False
        user.save()

    await sync_to_async(ban)()
    assert await socket.receive_output() == {"type": "websocket.close", "code": 1012}


# Host and scheme --------------------------------------------------------------------------


async def test_a_socket_with_a_host_not_allowed_is_refused():
    alice = await sync_to_async(make_user)("alice")
    room = await sync_to_async(services.create_room)(alice, "ligretto", 3)
    headers = [(b"origin", b"http://localhost"), (b"host", b"attacker.example")]
    communicator = WebsocketCommunicator(application, f"/ws/rooms/{room.pk}/", headers=headers)
    communicator.scope["user"] = alice
    connected, _ = await communicator.connect(timeout=10)
    assert not connected


async def test_the_invite_link_keeps_https_behind_tls_or_a_proxy(settings):
    alice = await sync_to_async(make_user)("alice")
    room = await sync_to_async(services.create_room)(alice, "ligretto", 3)
    path = f"/ws/rooms/{room.pk}/"

    direct = await connect(path, alice, scheme="wss")
    assert f'value="https://localhost/invite/{room.invite_code}/"' in await direct.receive_from()
    await direct.disconnect()

    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    proxied = await connect(path, alice, headers=[*ORIGIN, (b"x-forwarded-proto", b"https")])
    html = await proxied.receive_from()
    assert f'value="https://localhost/invite/{room.invite_code}/"' in html
    # And on every push after the first, which used to fall back to http://.
    await sync_to_async(services.add_bots)(room.pk, alice, 1)
    assert f'value="https://localhost/invite/{room.invite_code}/"' in await proxied.receive_from()
    await proxied.disconnect()


# Unknown paths ----------------------------------------------------------------------------


async def test_an_unknown_websocket_path_is_closed_with_4404():
    communicator = await connect("/ws/nowhere/")
    assert await communicator.receive_output() == {"type": "websocket.close", "code": 4404}
