"""The API on django-ninja: strict bodies, the API's own error shape, enums from the registry."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client

from api import urls as api_urls
from api import views
from games.registry import GAMES
from tests.api.helpers import Api, error_code

pytestmark = pytest.mark.any_store


@pytest.fixture
def room_id(alice) -> int:
    return Api(alice).post("rooms", {"game": "ligretto-mini", "seats": 2}).json()["id"]


@pytest.mark.parametrize(
    ("raw", "code", "status"),
    [
        ('{"username": "x", "password": NaN}', "bad_json", 400),
        ('{"username": "x", "password": Infinity}', "bad_json", 400),
        ('{"a": ' * 20 + "1" + "}" * 20, "bad_json", 400),
        ('{"username": "a\\u0000b", "password": "x"}', "bad_json", 400),
        ('{"username": "x", "password": "' + "y" * 20_000 + '"}', "too_large", 413),
        ("[1, 2]", "bad_json", 400),
        ("{not json", "bad_json", 400),
    ],
)
def test_bodies_go_through_the_strict_decoder(db, raw, code, status):
    response = Api().post("signup", raw=raw)
    assert response.status_code == status and error_code(response) == code
    assert response.json()["error"]["message"]


@pytest.mark.parametrize("call", ["join", "leave", "bots", "close", "start", "actions"])
def test_every_post_on_a_room_reads_its_body_strictly(alice, room_id, call):
    response = Api(alice).post(f"rooms/{room_id}/{call}", raw='{"x": NaN}')
    assert response.status_code == 400 and error_code(response) == "bad_json"


def test_a_body_that_is_not_utf8_is_bad_json(db):
    response = Client().post("/api/v1/signup", b"\xff\xfe", content_type="application/json")
    assert response.status_code == 400 and error_code(response) == "bad_json"


def test_a_form_content_type_is_read_as_json_as_curl_sends_it(db):
    response = Client().post(
        "/api/v1/signup",
        '{"username": "dave", "password": "a long pass phrase"}',
        content_type="application/x-www-form-urlencoded",
    )
    assert response.status_code == 201 and response.json()["username"] == "dave"


def test_an_empty_body_counts_as_an_empty_object(alice, bob, room_id):
    # As `curl -X POST` sends it: no body at all.
    headers = {"Authorization": f"Bearer {Api(bob).token}"}
    joined = Client().generic("POST", f"/api/v1/rooms/{room_id}/join", headers=headers)
    assert joined.status_code == 200 and joined.json()["players"][1]["name"] == "bob"
    signup = Client().generic("POST", "/api/v1/signup")
    assert signup.status_code == 400 and error_code(signup) == "bad_request"


@pytest.mark.parametrize(
    ("path", "body", "code"),
    [
        ("rooms", {"game": 5, "seats": 2}, "bad_request"),
        ("rooms", {"game": "ligretto", "seats": True}, "invalid_seats"),
        ("rooms", {"game": "ligretto", "seats": 2, "options": "x"}, "invalid_options"),
        ("rooms", {"game": "ligretto", "seats": 2, "private": "yes"}, "invalid_private"),
        ("rooms/{id}/bots", {"count": "two"}, "invalid_count"),
        ("rooms/{id}/bots", {"level": 3}, "invalid_level"),
        ("rooms/{id}/remove", {"seat": None}, "invalid_seat"),
        ("rooms/{id}/close", {"reason": ["x"]}, "bad_request"),
        ("rooms/{id}/join", {"invite": 7}, "bad_request"),
        ("rooms/{id}/actions", {"action": "flip"}, "bad_action"),
        ("rooms/{id}/actions", {"action": {"type": None}}, "bad_action"),
    ],
)
def test_a_wrong_field_answers_the_apis_code_never_a_422(alice, room_id, path, body, code):
    response = Api(alice).post(path.format(id=room_id), body)
    assert response.status_code == 400 and error_code(response) == code
    assert set(response.json()) == {"error"} and set(response.json()["error"]) == {
        "code",
        "message",
    }


def test_a_wrong_method_names_the_right_ones(alice):
    response = Api(alice).client.put("/api/v1/rooms", headers=Api(alice)._headers())
    assert response.status_code == 405
    assert response.json()["error"] == {
        "code": "method_not_allowed",
        "message": "Use GET or POST here.",
    }
    assert response["Allow"] == "GET, POST"


# A value for each path parameter: a room's id, a day.
SAMPLES = {"id": "1", "date": "2026-12-05"}


def _routed() -> list[tuple[str, set[str]]]:
    """Every routed call's path (a room's as room 1) and the methods the document gives it."""
    paths = Api().get("schema").json()["paths"]
    calls = [("/api/v1/schema", {"GET"})]
    for pattern in api_urls.urlpatterns:
        if pattern.name and pattern.name != "schema":
            route = str(pattern.pattern).replace("room_id", "id").replace("tournament_id", "id")
            path = "/api/v1/" + re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", route)
            called = re.sub(r"\{(\w+)\}", lambda m: SAMPLES[m.group(1)], path)
            calls.append((called, {m.upper() for m in paths[path]}))
    return calls


@pytest.mark.parametrize("method", ["PUT", "PATCH", "DELETE", "OPTIONS", "TRACE", "QUERY"])
def test_every_405_carries_an_allow_header_naming_what_the_path_takes(alice, method):
    headers = {"Authorization": f"Bearer {Api(alice).token}"}
    calls = _routed()
    assert len(calls) > 10
    for path, methods in calls:
        response = Client().generic(method, path, headers=headers)
        assert response.status_code == 405, (method, path)
        assert set(response["Allow"].split(", ")) == methods, (method, path)
        assert error_code(response) == "method_not_allowed"


@pytest.mark.parametrize("method", ["POST", "PUT", "PATCH", "DELETE", "GET"])
@pytest.mark.parametrize("path", ["/api/v1/nope", "/api/v1/rooms/x/join", "/api/v2/rooms", "/api"])
def test_an_unknown_path_is_a_404_to_every_method_never_a_csrf_403(db, method, path):
    # As a script sends it: no cookie, no CSRF token, a body; Django's CSRF check is on.
    response = Client(enforce_csrf_checks=True).generic(
        method, path, '{"game": "ligretto"}', content_type="application/json"
    )
    assert response.status_code == 404 and error_code(response) == "not_found"


def test_a_bug_of_ours_answers_json_500(alice, room_id, monkeypatch):
    def broken(*args, **kwargs):
        raise RuntimeError("a bug")

    monkeypatch.setattr(views.services, "start_room", broken)
    response = Api(alice).post(f"rooms/{room_id}/start")
    assert response.status_code == 500 and error_code(response) == "server_error"


def _branches(schemas: dict[str, Any], name: str) -> dict[str, dict[str, Any]]:
    """The one-per-game branches of body `name`, by the game each takes."""
    refs = [b["$ref"].rsplit("/", 1)[1] for b in schemas[name]["oneOf"]]
    return {schemas[r]["properties"]["game"]["const"]: schemas[r] for r in refs}


def test_the_schemas_enums_come_from_the_registry(db):
    document = Api().get("schema").json()
    schemas = document["components"]["schemas"]
    body = document["paths"]["/api/v1/rooms"]["post"]["requestBody"]["content"]
    schemas["NewRoom"] = body["application/json"]["schema"]
    rooms = _branches(schemas, "NewRoom")
    assert list(rooms) == list(GAMES)  # the test-only third game too: no shared file names it
    for slug, game in GAMES.items():
        seats = rooms[slug]["properties"]["seats"]
        assert (seats["minimum"], seats["maximum"]) == (game.min_seats, game.max_seats)
    assert schemas["Room"]["properties"]["game"]["enum"] == list(GAMES)
    levels = {level for game in GAMES.values() for level in game.bot_levels}
    assert set(schemas["Bots"]["properties"]["level"]["enum"]) == levels
    practise = document["paths"]["/api/v1/practise"]["post"]["requestBody"]["content"]
    schemas["Practice"] = practise["application/json"]["schema"]
    for slug, branch in _branches(schemas, "Practice").items():
        assert branch["properties"]["level"]["enum"] == list(GAMES[slug].bot_levels)
    # Every game's views are described by exactly one branch of the View's oneOf.
    branches = []
    for branch in schemas["View"]["oneOf"]:
        target = schemas[branch["$ref"].rsplit("/", 1)[1]] if "$ref" in branch else branch
        branches += target["properties"]["game"]["enum"]
    assert sorted(branches) == sorted(GAMES)
