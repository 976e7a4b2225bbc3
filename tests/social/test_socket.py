"""The social socket: presence as friends see it, the bell pushed, visibility, refusals."""

from __future__ import annotations

import json

import pytest
from asgiref.sync import sync_to_async

from chat import services as chat
from social import services
from social.models import Connection
from tests.chat.test_sockets import say
from tests.conftest import make_user
from tests.social.helpers import frame_with, social_socket
from tests.tables.helpers import started_room, table_socket

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]


async def _friends():
    alice = await sync_to_async(make_user)("alice")
    bob = await sync_to_async(make_user)("bob")
    await sync_to_async(services.ask)(alice, bob)
    await sync_to_async(services.accept)(bob, alice)
    return alice, bob


async def test_a_friend_is_seen_coming_online_sitting_down_and_leaving():
    alice, bob = await _friends()
    watching = await social_socket(alice, "friends=1")
    first = await frame_with(watching, 'id="social-live"')
    assert 'id="friend-bob"' in first and 'data-state="offline"' in first

    bob_page = await social_socket(bob)
    online = await frame_with(watching, 'id="friend-bob"')
    assert 'data-state="online"' in online

    room = await sync_to_async(started_room)(bob, [], game="ligretto", bots=1)
    bob_table = await table_socket(room.pk, bob)  # his seat counts a connection
    bob_table_page = await social_socket(bob, f"room={room.pk}")
    at_table = await frame_with(watching, 'data-state="table"')
    assert f'href="/rooms/{room.pk}/"' in at_table  # a public room: a watch link

    for socket in (bob_table_page, bob_page, bob_table):
        await socket.disconnect()
    gone = await frame_with(watching, 'data-state="offline"')
    assert "last seen" in gone
    await watching.disconnect()


async def test_a_room_he_does_not_sit_at_is_not_his_table():
    alice, bob = await _friends()
    room = await sync_to_async(started_room)(alice, [], game="ligretto", bots=1)
    socket = await social_socket(bob, f"room={room.pk}")
    await frame_with(socket, 'id="social-live"')
    assert (await sync_to_async(Connection.objects.get)(user=bob)).room_id is None
    await socket.disconnect()


async def test_visitors_and_guests_get_no_social_socket():
    from channels.testing import WebsocketCommunicator

    from cardgames.asgi import application
    from tests.tables.helpers import ORIGIN

    socket = WebsocketCommunicator(application, "/ws/social/", headers=ORIGIN)
    await socket.connect(timeout=10)
    closed = await socket.receive_output(timeout=5)
    while closed["type"] != "websocket.close":
        closed = await socket.receive_output(timeout=5)
    assert closed["code"] == 4403


async def test_the_page_says_whether_it_is_visible_and_nothing_else():
    alice, _bob = await _friends()
    socket = await social_socket(alice)
    await frame_with(socket, 'id="social-live"')
    await socket.send_to(text_data=json.dumps({"visible": False}))
    await socket.send_to(text_data=json.dumps({"visible": "maybe"}))
    refused = await frame_with(socket, 'id="social-note"')
    assert 'data-code="bad_frame"' in refused
    row = await sync_to_async(Connection.objects.get)(user=alice)
    assert row.visible is False
    await socket.disconnect()


async def test_the_bell_count_is_pushed_when_a_request_comes():
    alice = await sync_to_async(make_user)("alice")
    bob = await sync_to_async(make_user)("bob")
    socket = await social_socket(bob)
    first = await frame_with(socket, 'id="social-live"')
    assert 'data-unread="0"' in first
    await sync_to_async(services.ask)(alice, bob)
    bell = await frame_with(socket, 'id="bell"')
    assert 'data-unread="1"' in bell
    await socket.disconnect()


async def test_a_blocked_players_new_lines_do_not_reach_the_blockers_table():
    alice = await sync_to_async(make_user)("alice")
    bob = await sync_to_async(make_user)("bob")
    carol = await sync_to_async(make_user)("carol")
    room = await sync_to_async(started_room)(alice, [bob, carol], game="ligretto")
    alice_table = await table_socket(room.pk, alice)
    carol_table = await table_socket(room.pk, carol)
    bob_table = await table_socket(room.pk, bob)
    await sync_to_async(services.block)(alice, bob)
    await sync_to_async(chat.post)(room.pk, carol, "marker one")
    await frame_with(alice_table, "marker one")  # also: the block reached alice's socket first
    await bob_table.send_to(text_data=say("from bob"))
    await frame_with(carol_table, "from bob")
    await sync_to_async(chat.post)(room.pk, carol, "marker two")
    seen = ""
    while "marker two" not in seen:
        frame = await alice_table.receive_from(timeout=5)
        assert "from bob" not in frame
        seen = frame
    for socket in (alice_table, carol_table, bob_table):
        await socket.disconnect()


async def test_a_page_left_behind_by_a_dead_process_stops_counting_after_a_day():
    from datetime import timedelta

    from django.utils import timezone

    alice, bob = await _friends()

    def leftover() -> None:
        row = Connection.objects.create(user=bob, channel="dead", process="gone")
        Connection.objects.filter(pk=row.pk).update(opened_at=timezone.now() - timedelta(days=2))

    await sync_to_async(leftover)()
    where = await sync_to_async(services.whereabouts)({bob.pk})
    assert where[bob.pk].state == "offline"
    page = await social_socket(bob)
    await frame_with(page, 'id="social-live"')
    channels = await sync_to_async(
        lambda: set(Connection.objects.values_list("channel", flat=True))
    )()
    assert "dead" not in channels and len(channels) == 1
    await page.disconnect()
