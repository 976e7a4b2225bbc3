"""The Board API: a round's move list, rated rooms, Play now and Practice, against the schema."""

from __future__ import annotations

from typing import Any

import pytest
from jsonschema import Draft202012Validator

from lobby import services
from lobby.models import Room
from tables import play
from tables.models import ActionLog, Match
from tests.api.helpers import Api, error_code
from tests.conftest import make_user
from tests.tables.helpers import started_room

pytestmark = pytest.mark.django_db


@pytest.fixture
def doc(db) -> dict[str, Any]:
    return Api().get("schema").json()


def _check(doc: dict[str, Any], method: str, path: str, response: Any) -> dict[str, Any]:
    answers = doc["paths"][path][method.lower()]["responses"]
    assert str(response.status_code) in answers, (path, response.status_code)
    schema = answers[str(response.status_code)]["content"]["application/json"]["schema"]
    body = response.json()
    Draft202012Validator({**schema, "components": doc["components"]}).validate(body)
    return body


def test_a_rooms_replay_lists_its_moves_in_the_servers_order(doc, alice, bob):
    room = started_room(alice, [bob], game="ligretto-mini", rounds=1)
    eve = Api(make_user("eve"))
    assert error_code(eve.get(f"rooms/{room.pk}/replay")) == "round_not_over"
    play.act(room.pk, 0, {"type": "flip"})
    match = Match.objects.get(room_id=room.pk)
    first = ActionLog.objects.get(match=match)
    ActionLog.objects.create(
        match=match,
        round=first.round,
        seat=1,
        action={"type": "play", "from": "stack"},
        version=first.version,
        refused="too_slow",
    )
    play.act(room.pk, 1, {"type": "flip"})
    play.close_match(room.pk, "")
    answer = _check(doc, "GET", "/api/v1/rooms/{id}/replay", eve.get(f"rooms/{room.pk}/replay"))
    assert answer["round"] == 1 and answer["rounds"] == [1]
    moves = answer["moves"]
    assert [(m["name"], m["action"]["type"], m["refused"]) for m in moves] == [
        ("alice", "flip", None),
        ("bob", "play", "too_slow"),
        ("bob", "flip", None),
    ]
    assert [m["step"] for m in moves] == [1, 2, 3]
    assert error_code(eve.get(f"rooms/{room.pk}/replay?round=5")) == "round_not_over"


def test_a_private_rooms_replay_is_for_who_may_see_it(alice, bob):
    room = services.create_room(alice, "ligretto-mini", 2, {"rounds": 1}, private=True)
    services.join_room(room.pk, bob, invited=True)
    services.start_room(room.pk, alice)
    play.close_match(room.pk, "")
    assert Api(bob).get(f"rooms/{room.pk}/replay").status_code == 200
    eve = Api(make_user("eve"))
    assert error_code(eve.get(f"rooms/{room.pk}/replay")) == "no_such_room"
    invite = Room.objects.get(pk=room.pk).invite_code
    assert eve.get(f"rooms/{room.pk}/replay?invite={invite}").status_code == 200


def test_a_room_may_be_opened_unrated(doc, alice):
    me = Api(alice)
    answer = _check(
        doc,
        "POST",
        "/api/v1/rooms",
        me.post("rooms", {"game": "ligretto", "seats": 3, "rated": False}),
    )
    assert answer["rated"] is False and not Room.objects.get(pk=answer["id"]).rated
    refused = me.post("rooms", {"game": "ligretto", "seats": 3, "rated": "no"})
    assert refused.status_code == 400 and error_code(refused) == "invalid_rated"
    assert me.post("rooms", {"game": "ligretto", "seats": 3}).json()["rated"] is True


def test_play_now_seats_two_callers_at_one_table(doc, alice, bob):
    first = _check(doc, "POST", "/api/v1/play", Api(alice).post("play", {"game": "ligretto-mini"}))
    assert first["status"] == "open" and first["rated"] is True
    second = _check(doc, "POST", "/api/v1/play", Api(bob).post("play", {"game": "ligretto-mini"}))
    assert second["id"] == first["id"] and second["status"] == "playing"
    assert [p["name"] for p in second["players"]] == ["alice", "bob"]
    assert error_code(Api(alice).post("play", {})) == "bad_request"
    assert error_code(Api(alice).post("play", {"game": "chess"})) == "invalid_game"


def test_practise_starts_an_unrated_table_against_bots(doc, alice):
    me = Api(alice)
    answer = _check(
        doc, "POST", "/api/v1/practise", me.post("practise", {"game": "allegra", "level": "easy"})
    )
    assert answer["status"] == "playing" and answer["rated"] is False
    assert [p["bot"] for p in answer["players"]] == [False, True, True, True]
    assert error_code(me.post("practise", {"game": "allegra", "level": "fast"})) == "invalid_level"
    assert me.get(f"rooms/{answer['id']}/view").json()["seat"] == 0


def test_play_now_and_practise_can_ask_for_a_paced_table(doc, alice, bob):
    paced = _check(
        doc, "POST", "/api/v1/play", Api(alice).post("play", {"game": "ligretto-mini", "pace": 2})
    )
    assert paced["pace"] == 2 and paced["bot_speed"] == 0.5  # quick play's bots at half speed
    # Bob asks for no pace: he is not seated at alice's paced table.
    plain = Api(bob).post("play", {"game": "ligretto-mini"}).json()
    assert plain["id"] != paced["id"] and plain["pace"] is None
    practice = _check(
        doc,
        "POST",
        "/api/v1/practise",
        Api(bob).post("practise", {"game": "allegra", "level": "easy", "pace": 0.5}),
    )
    assert practice["pace"] == 0.5 and practice["status"] == "playing"
    for pace in (9, "1", 0, None):
        refused = Api(bob).post("practise", {"game": "allegra", "pace": pace})
        assert refused.status_code == 400 and error_code(refused) == "invalid_pace"
        assert refused.json()["error"]["message"] == (
            "pace must be one of 0.5, 1, 1.5, 2, 2.5 or 3 seconds; leave it out for a table "
            "that is not paced."
        )
    assert error_code(Api(alice).post("play", {"game": "allegra", "pace": 0.7})) == "invalid_pace"
