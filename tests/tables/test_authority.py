"""Authority on every action, not remembered from a connect (issue 18), on open sockets.

Leaving, revoking a token, a password change, a ban and a removal by the host each take effect on
the sockets the user has open at that moment; and the write path's own check refuses a seat that
is no longer the caller's even when no message reached his socket.
"""

from __future__ import annotations

import json

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator

from api.models import ApiToken
from cardgames.asgi import application
from lobby import services
from moderation import services as moderation
from tables import play
from tables.live import room as authority
from tables.models import ActionLog, Player
from tests.api.helpers import ORIGIN, next_of, stream
from tests.conftest import make_user
from tests.moderation.helpers import make_moderator
from tests.tables.helpers import started_room, table, table_socket

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]


async def closed_with(communicator: WebsocketCommunicator) -> int:
    """Read the socket until it closes (frames pushed before that are skipped); its code."""
    while True:
        message = await communicator.receive_output(timeout=5)
        if message["type"] == "websocket.close":
            return message["code"]


async def frame_with(communicator: WebsocketCommunicator, needle: str) -> str:
    """Read the socket until a frame contains `needle`; fail on a close."""
    while True:
        message = await communicator.receive_output(timeout=5)
        assert message["type"] == "websocket.send", message
        if needle in message["text"]:
            return message["text"]


def _connections(room_id: int, user) -> int:  # noqa: ANN001
    return Player.objects.get(match__room_id=room_id, user=user).connections


def _logged(room_id: int, seat: int) -> int:
    return ActionLog.objects.filter(match__room_id=room_id, seat=seat, by_bot=False).count()


async def _two_at_a_table():
    alice = await sync_to_async(make_user)("alice")
    bob = await sync_to_async(make_user)("bob")
    room = await sync_to_async(started_room)(alice, [bob])
    return alice, bob, room


async def test_a_player_who_left_cannot_play_on_through_his_open_table_socket():
    alice, bob, room = await _two_at_a_table()
    socket = await table_socket(room.pk, alice)
    await frame_with(socket, 'id="live-status"')
    await sync_to_async(services.leave_room)(room.pk, alice)
    # At once, not at the next connect: his socket redraws the table as a spectator's.
    await frame_with(socket, 'id="live-status"')
    await socket.send_json_to({"type": "flip"})
    assert 'data-code="spectator"' in await frame_with(socket, 'id="table-flash"')
    assert await sync_to_async(_logged)(room.pk, 0) == 0
    await socket.disconnect()


async def test_the_write_path_refuses_a_seat_its_holder_gave_up_even_if_no_message_came():
    # The socket's own idea of its seat is only a hint: the check runs on the locked table.
    alice, bob, room = await _two_at_a_table()
    seat = (await sync_to_async(table)(room.pk)).seat_of(alice)
    await sync_to_async(services.leave_room)(room.pk, alice)
    with pytest.raises(authority.NotYourSeat):
        await sync_to_async(play.act)(
            room.pk, seat, {"type": "flip"}, check=authority.holder(seat, alice)
        )
    assert await sync_to_async(_logged)(room.pk, seat) == 0


async def test_the_write_path_lets_the_holder_of_the_seat_play():
    alice, bob, room = await _two_at_a_table()
    seat = (await sync_to_async(table)(room.pk)).seat_of(alice)
    await sync_to_async(play.act)(
        room.pk, seat, {"type": "flip"}, check=authority.holder(seat, alice)
    )
    assert await sync_to_async(_logged)(room.pk, seat) == 1


async def test_revoking_a_token_closes_the_streams_opened_with_it_at_once():
    alice, bob, room = await _two_at_a_table()
    token, raw = await sync_to_async(ApiToken.objects.issue)(alice, "bot")
    other = (await sync_to_async(ApiToken.objects.issue)(alice, "other"))[1]
    revoked, kept = await stream(room.pk, raw), await stream(room.pk, other)
    await next_of(revoked, "view")
    await next_of(kept, "view")
    await sync_to_async(token.delete)()
    assert await closed_with(revoked) == 4401
    await revoked.disconnect()  # as the server tells the application after a close
    # That stream no longer counts as his presence; the other one still does.
    assert await sync_to_async(_connections)(room.pk, alice) == 1
    # His other token's stream goes on acting.
    await kept.send_to(text_data=json.dumps({"type": "action", "action": {"type": "flip"}}))
    assert (await next_of(kept, "view"))["view"]["version"] > 0
    await kept.disconnect()


async def test_a_password_change_ends_his_open_sockets():
    alice, bob, room = await _two_at_a_table()
    raw = (await sync_to_async(ApiToken.objects.issue)(alice, "bot"))[1]
    socket, api = await table_socket(room.pk, alice), await stream(room.pk, raw)
    await next_of(api, "view")  # the stream accepts first, then joins its groups

    def change_password() -> None:
        alice.set_password("another long pass phrase")
        alice.save()

    await sync_to_async(change_password)()
    # The page reconnects as whoever its session now says; the stream's token stays valid.
    assert await closed_with(socket) == 1012
    assert await closed_with(api) == 1012


async def test_a_ban_ends_his_sockets_and_his_seat():
    alice, bob, room = await _two_at_a_table()
    raw = (await sync_to_async(ApiToken.objects.issue)(alice, "bot"))[1]
    socket, api = await table_socket(room.pk, alice), await stream(room.pk, raw)
    await next_of(api, "view")  # the stream accepts first, then joins its groups
    moderator = await sync_to_async(make_moderator)("mod")
    await sync_to_async(moderation.ban)(alice, moderator, "cheating")
    assert await closed_with(socket) == 1012
    assert await closed_with(api) == 4401
    assert (await sync_to_async(table)(room.pk)).seat_of(alice) is None


async def test_a_removal_by_the_host_closes_the_private_room_for_the_removed_player():
    alice = await sync_to_async(make_user)("alice")
    bob = await sync_to_async(make_user)("bob")
    room = await sync_to_async(services.create_room)(alice, "ligretto", 3, None, True)
    await sync_to_async(services.join_room)(room.pk, bob, True)
    raw = (await sync_to_async(ApiToken.objects.issue)(bob, "bot"))[1]
    page = WebsocketCommunicator(application, f"/ws/rooms/{room.pk}/", headers=ORIGIN)
    page.scope["user"] = bob
    assert (await page.connect(timeout=10))[0]
    await frame_with(page, 'id="live-status"')
    api = await stream(room.pk, raw)
    await next_of(api, "room")
    seat = await sync_to_async(lambda: room.seat_set.get(user=bob).index)()
    await sync_to_async(services.remove_player)(room.pk, alice, seat)
    # A private room is its people's only: his page and his stream close as for no room.
    assert await closed_with(page) == 4404
    assert await closed_with(api) == 4404


async def test_a_removal_from_a_public_room_redraws_his_page_without_his_seat():
    alice = await sync_to_async(make_user)("alice")
    bob = await sync_to_async(make_user)("bob")
    room = await sync_to_async(services.create_room)(alice, "ligretto", 3)
    await sync_to_async(services.join_room)(room.pk, bob)
    page = WebsocketCommunicator(application, f"/ws/rooms/{room.pk}/", headers=ORIGIN)
    page.scope["user"] = bob
    assert (await page.connect(timeout=10))[0]
    await frame_with(page, 'id="live-status"')
    seat = await sync_to_async(lambda: room.seat_set.get(user=bob).index)()
    await sync_to_async(services.remove_player)(room.pk, alice, seat)
    # Already by the room's own push; the removal's message to his sockets redraws it too.
    assert "you can only watch" in await frame_with(page, 'id="room-removed"')
    await page.disconnect()
