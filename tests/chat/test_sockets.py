"""Chat over the room page's and the table's sockets, through Channels' communicator."""

from __future__ import annotations

import datetime
import json

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.utils import timezone

from cardgames.asgi import application
from chat import services
from chat.models import ChatMessage
from lobby import services as rooms
from moderation.models import AuditEntry, Mute
from tests.conftest import client_for, make_user
from tests.moderation.helpers import make_moderator
from tests.tables.helpers import ORIGIN, started_room, table_socket

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]


async def room_socket(room_id: int, user=None) -> WebsocketCommunicator:
    communicator = WebsocketCommunicator(application, f"/ws/rooms/{room_id}/", headers=ORIGIN)
    if user is not None:
        communicator.scope["user"] = user
    connected, _ = await communicator.connect(timeout=10)
    assert connected
    return communicator


async def frame_with(socket: WebsocketCommunicator, text: str) -> str:
    """Read frames (table pushes, presence changes) until one holds `text`."""
    while True:
        frame = await socket.receive_from(timeout=5)
        if text in frame:
            return frame


async def settle(*sockets: WebsocketCommunicator) -> None:
    for socket in sockets:
        while not await socket.receive_nothing(timeout=0.1):
            await socket.receive_from()


def say(text: str) -> str:
    # What htmx's ws-send sends for the chat form.
    return json.dumps({"chat": text, "HEADERS": {"HX-Request": "true", "HX-Trigger": "chat-form"}})


async def _cast():
    alice = await sync_to_async(make_user)("alice")
    bob = await sync_to_async(make_user)("bob")
    eve = await sync_to_async(make_user)("eve")
    room = await sync_to_async(started_room)(alice, [bob])
    return alice, bob, eve, room


async def test_a_line_reaches_players_and_spectators_on_both_sockets():
    alice, bob, eve, room = await _cast()
    alice_table = await table_socket(room.pk, alice)
    listeners = {
        "bob at the table": await table_socket(room.pk, bob),
        "bob on the room page": await room_socket(room.pk, bob),
        "eve watching the table": await table_socket(room.pk, eve),
        "eve on the room page": await room_socket(room.pk, eve),
        "a guest on the room page": await room_socket(room.pk),
    }
    await settle(alice_table, *listeners.values())

    await alice_table.send_to(text_data=say("  good   luck <all> "))
    frames = {name: await frame_with(s, "chat-line-") for name, s in listeners.items()}
    message = await sync_to_async(ChatMessage.objects.get)()
    first = next(iter(frames.values()))
    assert all(frame == first for frame in frames.values())  # rendered once, same bytes
    assert f'id="chat-line-{message.pk}"' in first and 'hx-swap-oob="beforeend"' in first
    assert "good luck &lt;all&gt;" in first and '<b class="who">alice</b>' in first
    # The sender sees his own line too, and an empty note (no refusal).
    own = await frame_with(alice_table, "chat-line-")
    assert own == first

    # The room page's socket posts the same way.
    alice_room = await room_socket(room.pk, alice)
    await settle(alice_room)
    await alice_room.send_to(text_data=say("gg"))
    for socket in listeners.values():
        assert ">gg</span>" in await frame_with(socket, "chat-line-")
    for socket in (alice_table, alice_room, *listeners.values()):
        await socket.disconnect()


async def test_an_anonymous_spectator_reads_but_cannot_write():
    alice, _bob, _eve, room = await _cast()
    await sync_to_async(services.post)(room.pk, alice, "hello watchers")
    guest = await room_socket(room.pk)
    first = await guest.receive_from()
    assert "hello watchers" in first
    assert 'id="chat-closed"' in first and 'id="chat-form"' not in first
    alice_room = await room_socket(room.pk, alice)
    await settle(alice_room)

    await guest.send_to(text_data=say("let me in"))
    note = await frame_with(guest, 'id="chat-note"')
    assert "Log in to chat" in note
    assert await sync_to_async(ChatMessage.objects.count)() == 1
    assert await alice_room.receive_nothing(timeout=0.2)
    await guest.disconnect()
    await alice_room.disconnect()


async def test_a_reconnecting_socket_gets_the_visible_backlog():
    alice, bob, eve, room = await _cast()
    moderator = await sync_to_async(make_moderator)("mia")
    await sync_to_async(services.post)(room.pk, alice, "first")
    rude = await sync_to_async(services.post)(room.pk, bob, "rude words")
    await sync_to_async(services.post)(room.pk, alice, "last")
    await sync_to_async(services.hide)(rude.pk, moderator, "rude")
    socket = await table_socket(room.pk, eve)
    first = await socket.receive_from()
    assert 'id="chat-log"' in first and "first" in first and "last" in first
    assert "rude words" not in first
    assert first.index('id="chat-log"') < first.index('data-connected="true"')
    await socket.disconnect()


async def test_a_moderator_hides_a_line_and_it_disappears_live():
    alice, bob, eve, room = await _cast()
    moderator = await sync_to_async(make_moderator)("mia")
    rude = await sync_to_async(services.post)(room.pk, bob, "rude words")
    mia = await room_socket(room.pk, moderator)
    others = [await table_socket(room.pk, alice), await room_socket(room.pk, eve)]
    await settle(mia, *others)

    await mia.send_to(text_data=json.dumps({"chat_hide": str(rude.pk), "reason": "rude"}))
    for socket in others:
        frame = await frame_with(socket, f'id="chat-line-{rude.pk}"')
        assert 'hx-swap-oob="delete"' in frame and "rude words" not in frame
    entry = await sync_to_async(AuditEntry.objects.get)()
    assert entry.action == AuditEntry.Action.HIDE_MESSAGE and entry.moderator_id == moderator.pk

    # The page's hide button posts over HTTP; the line goes the same way.
    other = await sync_to_async(services.post)(room.pk, alice, "also rude")
    for socket in others:
        await frame_with(socket, f'id="chat-line-{other.pk}"')
    response = await sync_to_async(
        lambda: client_for(moderator).post(
            f"/chat/messages/{other.pk}/hide/", headers={"HX-Prompt": "rude too"}
        )
    )()
    assert response.status_code == 204
    for socket in others:
        frame = await frame_with(socket, f'id="chat-line-{other.pk}"')
        assert 'hx-swap-oob="delete"' in frame
    assert await sync_to_async(AuditEntry.objects.count)() == 2
    for socket in (mia, *others):
        await socket.disconnect()


async def test_a_player_who_is_not_staff_cannot_hide_a_line():
    alice, bob, _eve, room = await _cast()
    line = await sync_to_async(services.post)(room.pk, alice, "hello")
    bob_table = await table_socket(room.pk, bob)
    alice_room = await room_socket(room.pk, alice)
    await settle(bob_table, alice_room)

    await bob_table.send_to(text_data=json.dumps({"chat_hide": line.pk, "reason": "mine now"}))
    note = await frame_with(bob_table, 'id="chat-note"')
    assert "Only moderators may hide chat messages." in note
    await line.arefresh_from_db()
    assert not line.hidden
    assert not await sync_to_async(AuditEntry.objects.exists)()
    assert await alice_room.receive_nothing(timeout=0.2)
    response = await sync_to_async(
        lambda: client_for(bob).post(
            f"/chat/messages/{line.pk}/hide/", headers={"HX-Prompt": "mine"}
        )
    )()
    assert response.status_code == 403
    await line.arefresh_from_db()
    assert not line.hidden
    await bob_table.disconnect()
    await alice_room.disconnect()


async def test_a_muted_player_is_refused_and_his_box_says_until_when():
    alice, bob, _eve, room = await _cast()
    moderator = await sync_to_async(make_moderator)("mia")
    bob_table = await table_socket(room.pk, bob)
    alice_table = await table_socket(room.pk, alice)
    await settle(bob_table, alice_table)
    mute = await sync_to_async(Mute.objects.create)(
        user=bob, until=timezone.now() + datetime.timedelta(minutes=30), reason="x", by=moderator
    )
    hm = f"{timezone.localtime(mute.until):%H:%M}"
    sentence = f"You are muted until {hm}"  # the refusal's note
    # The box says it once, its time in a <time> the page rewrites in the reader's own zone.
    box = f'data-local="when">{hm}</time>.'
    # His open box says so at once; nobody else's changes.
    frame = await frame_with(bob_table, 'id="chat-compose"')
    assert "You are muted until <time" in frame and box in frame
    assert 'id="chat-form"' not in frame
    assert await alice_table.receive_nothing(timeout=0.2)

    # A page still showing the form (or a hand-made message) is refused all the same.
    await bob_table.send_to(text_data=say("hello?"))
    frame = await frame_with(bob_table, 'id="chat-note"')
    assert sentence in frame
    assert 'id="chat-muted"' in frame and 'id="chat-form"' not in frame
    assert not await sync_to_async(ChatMessage.objects.exists)()
    assert await alice_table.receive_nothing(timeout=0.2)
    # On reconnect the box says so at once.
    again = await room_socket(room.pk, bob)
    assert box in await again.receive_from()

    # Lifting the mute gives both of his pages the form back.
    await sync_to_async(mute.delete)()
    for socket in (bob_table, again):
        frame = await frame_with(socket, 'id="chat-compose"')
        assert 'id="chat-form"' in frame and "muted" not in frame
    await bob_table.send_to(text_data=say("thanks"))
    assert ">thanks</span>" in await frame_with(alice_table, "chat-line-")
    for socket in (bob_table, alice_table, again):
        await socket.disconnect()


async def test_the_table_still_takes_moves_and_refuses_spectators_moves():
    alice, _bob, eve, room = await _cast()
    watcher = await table_socket(room.pk, eve)
    await settle(watcher)
    await watcher.send_to(text_data=json.dumps({"type": "flip"}))
    assert "only players act" in await frame_with(watcher, 'id="table-flash"')
    await watcher.disconnect()


async def test_a_private_room_s_chat_reaches_its_people_only():
    alice = await sync_to_async(make_user)("alice")
    bob = await sync_to_async(make_user)("bob")
    mallory = await sync_to_async(make_user)("mallory")
    room = await sync_to_async(rooms.create_room)(alice, "ligretto", 3, private=True)
    await sync_to_async(rooms.join_room)(room.pk, bob, invited=True)
    bob_room = await room_socket(room.pk, bob)
    await settle(bob_room)
    # Without the link, the room's socket is closed before it joins the chat.
    outsider = WebsocketCommunicator(application, f"/ws/rooms/{room.pk}/", headers=ORIGIN)
    outsider.scope["user"] = mallory
    connected, _ = await outsider.connect(timeout=10)
    assert connected
    assert await outsider.receive_output() == {"type": "websocket.close", "code": 4404}

    await sync_to_async(services.post)(room.pk, alice, "just us")
    assert "just us" in await frame_with(bob_room, "chat-line-")
    await bob_room.disconnect()
