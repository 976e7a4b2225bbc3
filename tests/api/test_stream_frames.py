"""A real server hands the stream's frames straight to it (cardgames.server's receive_now,
tables.live.stream.ReceiveNow): frames sent at once after connecting wait for the first view, and
every frame, small or large, text or binary, is answered once and in the order it was sent."""

from __future__ import annotations

import json

import pytest
from websockets.sync.client import connect

from tests.api.client import Client

pytestmark = pytest.mark.any_store

FLIP = json.dumps({"type": "action", "action": {"type": "flip"}})


def _stream(client: Client, room_id: int):
    url = client.base.replace("http", "ws", 1) + f"/ws/api/v1/rooms/{room_id}/?token="
    return connect(url + client.token, origin=client.base, open_timeout=10)


def _room_of_two(name: str, base: str) -> tuple[Client, int]:
    # Two people and no bot: no one else plays (the room itself still makes versions of its
    # own: the countdown's end, a seat marked away).
    host, guest = Client(base, f"{name}-a"), Client(base, f"{name}-b")
    room = host.call("POST", "rooms", {"game": "ligretto-mini", "seats": 2})
    guest.call("POST", f"rooms/{room['id']}/join")
    assert host.call("POST", f"rooms/{room['id']}/start")["status"] == "playing"
    return host, room["id"]


def _next(ws) -> dict:
    return json.loads(ws.recv(timeout=10))


def test_frames_sent_before_the_first_view_are_answered_after_it_in_order(live_api):
    host, room_id = _room_of_two("early", live_api)
    with _stream(host, room_id) as ws:
        ws.send('{"type": "nope"}')  # a kind the stream does not know
        ws.send("[not json")
        ws.send(json.dumps({"type": "action", "action": "flip"}))  # not an object
        ws.send("x" * 70_000)  # past the small frames the server reads itself: autobahn's way
        ws.send(b'{"type": "nope"}')  # binary: through Daphne's queue, still in its place
        assert _next(ws)["type"] == "view"  # the connect's view comes before any answer
        answers = [_next(ws) for _ in range(5)]
    assert [a["type"] for a in answers] == ["error"] * 5
    assert [a["error"]["code"] for a in answers] == [
        "bad_message",
        "bad_message",
        "bad_action",
        "bad_message",
        "bad_message",
    ]
    assert "larger than" in answers[3]["error"]["message"]  # the big one, in its place


def test_a_burst_of_moves_is_applied_one_by_one_in_the_order_sent(live_api):
    host, room_id = _room_of_two("burst", live_api)
    with _stream(host, room_id) as ws:
        start = _next(ws)["view"]
        while start["status"] != "playing":  # the countdown (TABLE_COUNTDOWN) ends first
            start = _next(ws)["view"]
        # Two flips, a frame the stream refuses, three flips: all at once, none awaited.
        for frame in (FLIP, FLIP, "[not json", FLIP, FLIP, FLIP):
            ws.send(frame)
        seen: list[object] = []
        mine, versions = _own_cards(start), [start["version"]]
        while len(seen) < 6:
            message = _next(ws)
            if message["type"] == "error":
                seen.append(message["error"]["code"])
                continue
            versions.append(message["view"]["version"])
            if _own_cards(message["view"]) != mine:  # a flip of ours (not the room's version)
                mine = _own_cards(message["view"])
                seen.append(len([s for s in seen if isinstance(s, int)]) + 1)
    # Each move's view once, in order, and the refusal exactly where its frame was sent.
    assert seen == [1, 2, "bad_message", 3, 4, 5]
    assert versions == sorted(set(versions)), versions  # no view twice, none out of order


def _own_cards(view: dict) -> tuple:
    """What a flip of the viewer's changes: his hand and waste (a version may also be the
    room's own, as when the countdown's end is told)."""
    own = view["tableaus"][view["seat"]]
    return own["hand_count"], own["waste_count"], own["waste_top"]
