"""A ban mid-match, over the real routing: his table socket closes, a bot plays his seat on,
his API token is refused, and the other player's table stays open and shows the bot."""

from __future__ import annotations

import json

import pytest
from asgiref.sync import sync_to_async

from moderation import services
from tables.driver import MatchBots
from tables.models import ActionLog
from tests.api.helpers import Api, stream
from tests.conftest import make_user
from tests.moderation.helpers import make_moderator
from tests.tables.helpers import started_room, table, table_socket

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]


async def closed_with(communicator) -> int:
    """Read the socket until it closes (frames pushed before that are skipped); its code."""
    while True:
        message = await communicator.receive_output(timeout=5)
        if message["type"] == "websocket.close":
            return message["code"]


def bot_played_seat(room_id: int, seat: int, steps: int = 200) -> bool:
    bots = MatchBots(room_id)
    for _ in range(steps):
        bots.step()
        if ActionLog.objects.filter(match__room_id=room_id, seat=seat, by_bot=True).exists():
            return True
    return False


async def test_a_ban_mid_match_closes_his_table_and_a_bot_plays_his_seat():
    alice = await sync_to_async(make_user)("alice")
    bob = await sync_to_async(make_user)("bob")
    mod = await sync_to_async(make_moderator)("mod")
    room = await sync_to_async(started_room)(alice, [bob])
    bobs_api = await sync_to_async(Api)(bob)
    assert (await sync_to_async(bobs_api.get)(f"rooms/{room.pk}/view")).status_code == 200
    bobs_stream = await stream(room.pk, bobs_api.token)
    assert json.loads(await bobs_stream.receive_from())["type"] == "view"

    alices = await table_socket(room.pk, alice)
    bobs = await table_socket(room.pk, bob)
    await alices.receive_from()
    assert 'id="lg-me" class="me' in await bobs.receive_from()

    await sync_to_async(services.ban)(bob, mod, "cheating")

    # 1012: the page reconnects as whoever its session now says (nobody: he is banned).
    assert await closed_with(bobs) == 1012
    await closed_with(bobs_stream)  # his API stream too (skipping the views pushed before)
    # The other player's table goes on, and shows a bot in bob's seat.
    frame = await alices.receive_from()
    assert "table-version" in frame
    now = await sync_to_async(table)(room.pk)
    assert now.players[1].left and now.view(0)["players"][1]["bot"]
    assert now.seat_of(bob) is None
    assert await sync_to_async(bot_played_seat)(room.pk, 1)
    # His token is refused from now on.
    refused = await sync_to_async(bobs_api.get)(f"rooms/{room.pk}/view")
    assert refused.status_code == 401 and refused.json()["error"]["code"] == "bad_token"
    await alices.disconnect()


async def test_a_banned_players_new_table_socket_only_watches():
    alice = await sync_to_async(make_user)("alice")
    bob = await sync_to_async(make_user)("bob")
    mod = await sync_to_async(make_moderator)("mod")
    room = await sync_to_async(started_room)(alice, [bob])
    await sync_to_async(services.ban)(bob, mod, "cheating")
    # Even a socket whose scope still names him (a session read before the ban) gets no seat.
    again = await table_socket(room.pk, bob)
    assert 'id="lg-me" class="me' not in await again.receive_from()
    await again.disconnect()


async def test_a_banned_players_open_table_is_told_why_before_it_closes():
    alice = await sync_to_async(make_user)("alice")
    bob = await sync_to_async(make_user)("bob")
    mod = await sync_to_async(make_moderator)("mod")
    room = await sync_to_async(started_room)(alice, [bob])
    bobs = await table_socket(room.pk, bob)
    await bobs.receive_from()

    await sync_to_async(services.ban)(bob, mod, "cheating")

    frames = []
    while True:
        message = await bobs.receive_output(timeout=5)
        if message["type"] == "websocket.close":
            break
        frames.append(message.get("text", ""))
    notice = next(f for f in frames if 'id="site-error"' in f)
    assert "banned your account" in notice and "cheating" in notice
