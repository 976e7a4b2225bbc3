"""The API's live stream: the view at once and after every change, actions, refusals, close
codes, the room before its start, and views built from the process's table without queries."""

from __future__ import annotations

import json

import pytest
from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator

from api import consumers
from api.models import ApiToken
from cardgames.asgi import application
from lobby import services
from tables import play
from tables.live import render, rooms
from tables.models import Match
from tests.api.helpers import ORIGIN, Api, next_of, stream
from tests.conftest import make_user
from tests.tables.helpers import set_state, started_room

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]


def _token(user) -> str:
    return ApiToken.objects.issue(user, "stream")[1]


async def _cast(*names):
    users = [await sync_to_async(make_user)(n) for n in names]
    tokens = [await sync_to_async(_token)(u) for u in users]
    return users, tokens


async def _settle(room_id: int, *sockets) -> int:
    """Read every socket up to the table's current version (presence changes included)."""
    # A seat's socket counts its presence before its first view, so after that view the
    # database holds every change its connecting made.
    seen = [(await next_of(s, "view"))["view"]["version"] for s in sockets]
    version = await sync_to_async(lambda: Match.objects.get(room_id=room_id).version)()
    for s, last in zip(sockets, seen, strict=True):
        while last < version:
            last = (await next_of(s, "view"))["view"]["version"]
    return version


async def _closed_with(path: str) -> int:
    communicator = WebsocketCommunicator(application, path, headers=ORIGIN)
    connected, _ = await communicator.connect(timeout=10)
    assert connected
    output = await communicator.receive_output(timeout=3)
    assert output["type"] == "websocket.close"
    return output["code"]


async def test_it_sends_the_view_at_once_and_after_every_change():
    (alice, bob), (ta, tb) = await _cast("alice", "bob")
    room = await sync_to_async(started_room)(alice, [bob])
    a = await stream(room.pk, ta)
    first = await next_of(a, "view")
    assert first["view"]["seat"] == 0 and first["view"]["room"] == room.pk
    assert {"legal", "message", "center", "tableaus"} <= set(first["view"])
    b = await stream(room.pk, tb)
    await _settle(room.pk, b)
    while (await next_of(a, "view"))["view"]["players"][1]["connected"] is False:
        pass

    await b.send_to(text_data=json.dumps({"type": "action", "action": {"type": "flip"}}))
    mine, theirs = await next_of(b, "view"), await next_of(a, "view")
    assert mine["view"]["seat"] == 1 and theirs["view"]["seat"] == 0
    assert mine["view"]["version"] == theirs["view"]["version"]
    assert theirs["view"]["tableaus"][1]["waste_count"] == 3  # bob turned three cards (L11)
    assert await a.receive_nothing(timeout=0.2)  # one view per change
    await a.disconnect()
    await b.disconnect()


async def test_a_stream_counts_as_presence():
    (alice, bob), (ta, _) = await _cast("alice", "bob")
    room = await sync_to_async(started_room)(alice, [bob])
    a = await stream(room.pk, ta)
    view = await next_of(a, "view")
    while not view["view"]["players"][0]["connected"]:
        view = await next_of(a, "view")
    assert view["view"]["players"][1]["connected"] is False
    await a.disconnect()
    table = await sync_to_async(rooms.read)(room.pk)
    assert table.players[0].connections == 0 and table.players[0].away_since is not None


async def test_refusals_come_back_as_errors():
    (alice, bob, eve), (ta, _, te) = await _cast("alice", "bob", "eve")
    room = await sync_to_async(started_room)(alice, [bob])
    a, e = await stream(room.pk, ta), await stream(room.pk, te)
    await _settle(room.pk, a, e)
    await a.send_to(text_data="not json")
    assert (await next_of(a, "error"))["error"]["code"] == "bad_message"
    await a.send_to(text_data=json.dumps({"type": "action", "action": "flip"}))
    assert (await next_of(a, "error"))["error"]["code"] == "bad_action"
    await a.send_to(text_data=json.dumps({"type": "ready"}))  # the round is being played
    assert (await next_of(a, "error"))["error"]["code"] == "not_round_over"
    await e.send_to(text_data=json.dumps({"type": "action", "action": {"type": "flip"}}))
    assert (await next_of(e, "error"))["error"]["code"] == "not_seated"
    spectator = await sync_to_async(Api(eve, te).get)(f"rooms/{room.pk}/view")
    assert spectator.json()["seat"] is None
    await a.disconnect()
    await e.disconnect()


async def test_refusals_are_worded_in_the_readers_language_as_on_http():
    (alice, bob, eve), (ta, _, te) = await _cast("alice", "bob", "eve")
    room = await sync_to_async(started_room)(alice, [bob])
    german = [*ORIGIN, (b"accept-language", b"de-DE,de;q=0.9")]
    path = f"/ws/api/v1/rooms/{room.pk}/?token="
    a = WebsocketCommunicator(application, path + ta, headers=german)
    e = WebsocketCommunicator(application, path + te, headers=german)
    assert (await a.connect(timeout=10))[0] and (await e.connect(timeout=10))[0]
    await _settle(room.pk, a, e)
    await e.send_to(text_data=json.dumps({"type": "action", "action": {"type": "flip"}}))
    error = (await next_of(e, "error"))["error"]
    assert error["code"] == "not_seated"  # the code stays English, for machines
    assert error["message"] == "Du hast keinen Platz an diesem Tisch; Zuschauer sehen nur zu."
    await a.send_to(text_data=json.dumps({"type": "ready"}))  # a rules refusal, worded too
    error = (await next_of(a, "error"))["error"]
    assert error["code"] == "not_round_over"
    assert error["message"] == await _http_refusal(ta, room.pk, "de")
    assert error["message"] != await _http_refusal(ta, room.pk, "en")
    await a.disconnect()
    await e.disconnect()


async def _http_refusal(token: str, room_id: int, language: str) -> str:
    """The sentence HTTP gives for a ready while the round is played, in `language`."""
    answer = await sync_to_async(Api(token=token).client.post)(
        f"/api/v1/rooms/{room_id}/actions",
        json.dumps({"action": {"type": "ready"}}),
        content_type="application/json",
        headers={"Authorization": f"Bearer {token}", "Accept-Language": language},
    )
    return answer.json()["error"]["message"]


async def test_a_bad_token_closes_with_4401_and_no_room_with_4404():
    (alice,), (ta,) = await _cast("alice")
    room = await sync_to_async(started_room)(alice, [await sync_to_async(make_user)("bob")])
    assert await _closed_with(f"/ws/api/v1/rooms/{room.pk}/?token=cg_wrong") == 4401
    assert await _closed_with(f"/ws/api/v1/rooms/{room.pk}/") == 4401
    assert await _closed_with(f"/ws/api/v1/rooms/999999/?token={ta}") == 4404
    alice.is_active = False
    await sync_to_async(alice.save)()
    assert await _closed_with(f"/ws/api/v1/rooms/{room.pk}/?token={ta}") == 4401


async def test_a_session_cookie_does_not_open_the_stream():
    (alice, bob), _ = await _cast("alice", "bob")
    room = await sync_to_async(started_room)(alice, [bob])
    communicator = WebsocketCommunicator(
        application, f"/ws/api/v1/rooms/{room.pk}/", headers=ORIGIN
    )
    communicator.scope["user"] = alice  # as if signed in on the site
    await communicator.connect(timeout=10)
    assert (await communicator.receive_output(timeout=3))["code"] == 4401


async def test_it_streams_the_room_until_it_starts():
    (alice, bob), (ta, _) = await _cast("alice", "bob")
    room = await sync_to_async(services.create_room)(alice, "ligretto-mini", 2)
    a = await stream(room.pk, ta)
    waiting = await next_of(a, "room")
    assert waiting["room"]["status"] == "open" and len(waiting["room"]["players"]) == 1
    assert waiting["room"]["url"].endswith(f"/rooms/{room.pk}/")
    await sync_to_async(services.join_room)(room.pk, bob)
    joined = await next_of(a, "room")
    assert [p["name"] for p in joined["room"]["players"]] == ["alice", "bob"]
    await sync_to_async(services.start_room)(room.pk, alice)
    started = await next_of(a, "view")
    assert started["view"]["seat"] == 0 and started["view"]["status"] == "playing"
    await a.disconnect()


async def test_pushed_views_come_from_the_processs_table_without_loading():
    (alice, bob, carol, eve), tokens = await _cast("alice", "bob", "carol", "eve")
    room = await sync_to_async(started_room)(alice, [bob, carol], game="ligretto")
    sockets = [await stream(room.pk, t) for t in tokens]
    await _settle(room.pk, *sockets)
    loaded = consumers.stats["loaded"]
    for seat in (0, 1, 2, 0):
        await sync_to_async(play.act)(room.pk, seat, {"type": "flip"})
        views = [await next_of(s, "view") for s in sockets]
        assert {v["view"]["version"] for v in views} == {views[0]["view"]["version"]}
        assert [v["view"]["seat"] for v in views] == [0, 1, 2, None]
    # Four changes to four sockets: sixteen views, not one of them loaded from the database.
    assert consumers.stats["loaded"] == loaded
    for s in sockets:
        await s.disconnect()


async def test_a_change_from_elsewhere_is_loaded():
    (alice, bob), (ta, _) = await _cast("alice", "bob")
    room = await sync_to_async(started_room)(alice, [bob])
    a = await stream(room.pk, ta)
    await _settle(room.pk, a)
    loaded = consumers.stats["loaded"]
    # Written behind this process's back (as another process would): its cache is stale.
    await sync_to_async(set_state)(room.pk, lambda data: data)
    rooms.forget_all()
    await a.send_to(text_data=json.dumps({"type": "sync"}))
    view = await next_of(a, "view")
    assert view["view"]["version"] == (await sync_to_async(rooms.read)(room.pk)).version
    assert consumers.stats["loaded"] == loaded + 1
    await a.disconnect()


async def test_allegra_plays_over_the_stream_with_hidden_cards_hidden():
    (alice, bob), (ta, tb) = await _cast("alice", "bob")
    room = await sync_to_async(started_room)(alice, [bob], game="allegra", bots=1)
    a, b = await stream(room.pk, ta), await stream(room.pk, tb)
    version = await _settle(room.pk, a, b)
    view = (await sync_to_async(Api(alice, ta).get)(f"rooms/{room.pk}/view")).json()
    assert view["version"] == version
    assert view["phase"] == "opening" and len(view["grids"]) == 3
    cells = [c for g in view["grids"] for row in g["cells"] for c in row]
    assert all(c == {"hidden": True} for c in cells)  # A3: all face down, even to the owner
    reveal = view["legal"][0]
    assert reveal["type"] == "reveal"
    await a.send_to(text_data=json.dumps({"type": "action", "action": reveal}))
    mine, theirs = await next_of(a, "view"), await next_of(b, "view")
    place = reveal["place"]
    shown = mine["view"]["grids"][place["seat"]]["cells"][place["row"]][place["col"]]
    assert set(shown) == {"value"}
    assert theirs["view"]["grids"] == mine["view"]["grids"]
    await a.disconnect()
    await b.disconnect()


async def test_a_change_from_another_process_is_loaded_once_for_all_sockets():
    (alice, bob, eve), tokens = await _cast("alice", "bob", "eve")
    room = await sync_to_async(started_room)(alice, [bob])
    sockets = [await stream(room.pk, t) for t in tokens]
    await _settle(room.pk, *sockets)
    # Another process's write: the database moves on, this process's cache does not know it.
    await sync_to_async(set_state)(room.pk, lambda data: data)
    rooms.forget_all()
    version = await sync_to_async(lambda: Match.objects.get(room_id=room.pk).version)()
    loaded = consumers.stats["loaded"]
    layer = get_channel_layer()
    await layer.group_send(
        render.table_group(room.pk),
        {
            "type": "table.public",
            "room": room.pk,
            "version": version,
            "html": "",
            "full": True,
            "private": [],
        },
    )
    views = [await next_of(s, "view") for s in sockets]
    assert [v["view"]["version"] for v in views] == [version] * 3
    assert consumers.stats["loaded"] == loaded + 1  # the first socket's load serves the rest
    for s in sockets:
        await s.disconnect()


async def test_a_ban_closes_the_users_streams_with_4401():
    (alice, bob), (ta, _) = await _cast("alice", "bob")
    room = await sync_to_async(started_room)(alice, [bob])
    a = await stream(room.pk, ta)
    await _settle(room.pk, a)
    alice.is_active = False
    await sync_to_async(alice.save)()
    while (output := await a.receive_output(timeout=5))["type"] != "websocket.close":
        pass
    assert output["code"] == 4401


async def test_stream_moves_and_http_moves_count_against_one_limit(settings):
    # The stream counts a move in the server's loop, HTTP in a thread: one limit for both.
    settings.API_ACTIONS_PER_USER = 2
    (alice, bob), (ta, _) = await _cast("alice", "bob")
    room = await sync_to_async(started_room)(alice, [bob])
    flip = {"action": {"type": "flip"}}
    first = await sync_to_async(lambda: Api(alice).post(f"rooms/{room.pk}/actions", flip))()
    assert first.status_code == 200
    a = await stream(room.pk, ta)
    await next_of(a, "view")
    await a.send_to(text_data=json.dumps({"type": "action", **flip}))
    while (await next_of(a, "view"))["view"]["tableaus"][0]["waste_count"] < 6:
        pass  # the second flip: its own view (presence changes may come before it)
    await a.send_to(text_data=json.dumps({"type": "action", **flip}))
    refusal = await next_of(a, "error")
    assert refusal["error"]["code"] == "too_many_requests"
    third = await sync_to_async(lambda: Api(alice).post(f"rooms/{room.pk}/actions", flip))()
    assert third.status_code == 429
    await a.disconnect()
