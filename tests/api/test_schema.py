"""The OpenAPI description at /api/v1/schema: a valid document, and real answers match it."""

from __future__ import annotations

import re
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from openapi_spec_validator import validate

from api import urls as api_urls
from tests.api.helpers import Api
from tests.conftest import PASSWORD
from tests.tables.helpers import set_state

pytestmark = pytest.mark.any_store


@pytest.fixture
def doc(db) -> dict[str, Any]:
    response = Api().get("schema")  # public: no token needed to read it
    assert response.status_code == 200
    return response.json()


def test_it_is_a_valid_openapi_document(doc):
    validate(doc)
    assert doc["openapi"].startswith("3.1") and doc["servers"] == [{"url": "http://testserver"}]
    # Every call the site routes (but the schema itself) is described, and nothing else.
    routed = {
        "/api/v1/"
        + re.sub(
            r"<(?:\w+:)?(\w+)>",
            r"{\1}",
            str(p.pattern).replace("room_id", "id").replace("tournament_id", "id"),
        )
        for p in api_urls.urlpatterns
        if p.name and p.name != "schema"
    }
    assert set(doc["paths"]) == routed


def _check(doc: dict[str, Any], method: str, path: str, response: Any) -> dict[str, Any]:
    """Validate `response` against what `doc` says `method path` answers with its status."""
    answers = doc["paths"][path][method.lower()]["responses"]
    assert str(response.status_code) in answers, (path, response.status_code)
    schema = answers[str(response.status_code)]["content"]["application/json"]["schema"]
    body = response.json()
    Draft202012Validator({**schema, "components": doc["components"]}).validate(body)
    return body


def test_real_answers_match_it(doc, alice, bob, carol):
    anon = Api()
    signed = _check(
        doc,
        "POST",
        "/api/v1/signup",
        anon.post("signup", {"username": "dave", "password": PASSWORD}),
    )
    _check(doc, "POST", "/api/v1/signup", anon.post("signup", {"username": "x y", "password": ""}))
    _check(doc, "POST", "/api/v1/token", anon.post("token", {"username": "dave", "password": "?"}))
    _check(
        doc,
        "POST",
        "/api/v1/token",
        anon.post("token", {"username": "dave", "password": PASSWORD}),
    )
    dave = Api(token=signed["token"])
    a, b, c = Api(alice), Api(bob), Api(carol)
    _check(doc, "GET", "/api/v1/rooms", dave.get("rooms"))
    _check(doc, "GET", "/api/v1/rooms", Api(token="nope").get("rooms"))

    # Ligretto Mini: alice and bob.
    mini = _check(
        doc, "POST", "/api/v1/rooms", a.post("rooms", {"game": "ligretto-mini", "seats": 2})
    )
    rid = mini["id"]
    _check(doc, "POST", "/api/v1/rooms", a.post("rooms", {"game": "ligretto", "seats": 13}))
    _check(doc, "GET", "/api/v1/rooms/{id}", a.get(f"rooms/{rid}"))
    _check(doc, "GET", "/api/v1/rooms/{id}", a.get("rooms/999999"))
    _check(doc, "POST", "/api/v1/rooms/{id}/join", b.post(f"rooms/{rid}/join"))
    _check(doc, "POST", "/api/v1/rooms/{id}/join", c.post(f"rooms/{rid}/join"))
    _check(doc, "POST", "/api/v1/rooms/{id}/bots", b.post(f"rooms/{rid}/bots"))
    _check(doc, "POST", "/api/v1/rooms/{id}/start", b.post(f"rooms/{rid}/start"))
    _check(doc, "GET", "/api/v1/rooms/{id}/view", a.get(f"rooms/{rid}/view"))
    _check(doc, "POST", "/api/v1/rooms/{id}/start", a.post(f"rooms/{rid}/start"))
    _check(doc, "GET", "/api/v1/rooms/{id}/view", a.get(f"rooms/{rid}/view"))
    _check(doc, "GET", "/api/v1/rooms/{id}/view", c.get(f"rooms/{rid}/view"))
    flip = {"action": {"type": "flip"}}
    _check(doc, "POST", "/api/v1/rooms/{id}/actions", a.post(f"rooms/{rid}/actions", flip))
    _check(doc, "POST", "/api/v1/rooms/{id}/actions", c.post(f"rooms/{rid}/actions", flip))
    _check(doc, "POST", "/api/v1/rooms/{id}/actions", a.post(f"rooms/{rid}/actions", {}))
    ready = {"action": {"type": "ready"}}
    _check(doc, "POST", "/api/v1/rooms/{id}/actions", a.post(f"rooms/{rid}/actions", ready))
    _check(doc, "GET", "/api/v1/rooms/{id}/scores", a.get(f"rooms/{rid}/scores"))

    # A finished round on the sheet: seat 0's stack down to its last card, played.
    def last_card(data):
        data["players"][0]["stack"] = [["yellow", 1, 0]]
        return data

    set_state(rid, last_card)
    a.post(f"rooms/{rid}/actions", {"action": {"type": "play", "from": "stack"}})
    over = _check(doc, "GET", "/api/v1/rooms/{id}/view", b.get(f"rooms/{rid}/view"))
    assert over["status"] == "round_over" and over["message"]
    sheet = _check(doc, "GET", "/api/v1/rooms/{id}/scores", a.get(f"rooms/{rid}/scores"))
    assert len(sheet["rounds"]) == 1

    # Allegra: carol, bob and a bot; and leaving.
    allegra = _check(doc, "POST", "/api/v1/rooms", c.post("rooms", {"game": "allegra", "seats": 3}))
    aid = allegra["id"]
    _check(doc, "POST", "/api/v1/rooms/{id}/start", c.post(f"rooms/{aid}/start"))
    _check(doc, "POST", "/api/v1/rooms/{id}/bots", c.post(f"rooms/{aid}/bots", {"count": 1}))
    _check(doc, "POST", "/api/v1/rooms/{id}/join", b.post(f"rooms/{aid}/join"))
    _check(doc, "POST", "/api/v1/rooms/{id}/start", c.post(f"rooms/{aid}/start"))
    view = _check(doc, "GET", "/api/v1/rooms/{id}/view", c.get(f"rooms/{aid}/view"))
    reveal = {"action": view["legal"][0]}
    _check(doc, "POST", "/api/v1/rooms/{id}/actions", c.post(f"rooms/{aid}/actions", reveal))
    _check(doc, "POST", "/api/v1/rooms/{id}/actions", c.post(f"rooms/{aid}/actions", reveal))
    _check(doc, "GET", "/api/v1/rooms/{id}/view", a.get(f"rooms/{aid}/view"))
    _check(doc, "POST", "/api/v1/rooms/{id}/leave", b.post(f"rooms/{aid}/leave"))
    _check(doc, "POST", "/api/v1/rooms/{id}/leave", b.post(f"rooms/{aid}/leave"))

    # Private rooms, removing a player and closing: carol hosts, bob comes with the code.
    hidden = _check(
        doc,
        "POST",
        "/api/v1/rooms",
        c.post("rooms", {"game": "ligretto", "seats": 3, "private": True}),
    )
    hid = hidden["id"]
    _check(doc, "GET", "/api/v1/rooms/{id}", b.get(f"rooms/{hid}"))  # 404 without the code
    _check(doc, "GET", "/api/v1/rooms/{id}", b.get(f"rooms/{hid}?invite={hidden['invite']}"))
    invite = {"invite": hidden["invite"]}
    _check(doc, "POST", "/api/v1/rooms/{id}/join", b.post(f"rooms/{hid}/join", invite))
    _check(doc, "POST", "/api/v1/rooms/{id}/remove", b.post(f"rooms/{hid}/remove", {"seat": 0}))
    _check(doc, "POST", "/api/v1/rooms/{id}/remove", c.post(f"rooms/{hid}/remove", {"seat": "x"}))
    _check(doc, "POST", "/api/v1/rooms/{id}/remove", c.post(f"rooms/{hid}/remove", {"seat": 1}))
    _check(doc, "POST", "/api/v1/rooms/{id}/join", b.post(f"rooms/{hid}/join", invite))  # 403
    _check(doc, "POST", "/api/v1/rooms/{id}/close", a.post(f"rooms/{hid}/close"))  # 404: not his
    closed = _check(
        doc, "POST", "/api/v1/rooms/{id}/close", c.post(f"rooms/{hid}/close", {"reason": "x"})
    )
    assert closed["closed"] is True
    _check(doc, "POST", "/api/v1/rooms/{id}/close", c.post(f"rooms/{hid}/close"))  # 409: over


def test_the_daily_challenges_answers_match_it(doc, alice, settings):
    settings.DAILY_NOW = "2026-12-05T12:00:00+00:00"
    a = Api(alice)
    _check(doc, "GET", "/api/v1/daily", a.get("daily"))
    _check(doc, "GET", "/api/v1/daily", a.get("daily?date=2026-12-06"))  # 404: to come
    _check(doc, "GET", "/api/v1/daily", Api().get("daily"))  # 401
    _check(doc, "POST", "/api/v1/daily/play", a.post("daily/play"))
    second = _check(doc, "POST", "/api/v1/daily/play", a.post("daily/play"))  # 409
    assert second["error"]["code"] == "already_played"
    path = "/api/v1/daily/{date}/leaderboard"
    _check(doc, "GET", path, a.get("daily/2026-12-05/leaderboard"))
    _check(doc, "GET", path, a.get("daily/2026-02-30/leaderboard"))  # 404
    settings.DAILY_NOW = "2026-12-06T12:00:00+00:00"
    _check(doc, "GET", "/api/v1/daily", a.get("daily?date=2026-12-05"))
    _check(doc, "GET", path, a.get("daily/2026-12-05/leaderboard"))


def test_the_document_is_made_once_and_each_reader_gets_his_own_copy(db, monkeypatch):
    # Made from the routes and the registry, fixed once the process runs: ninja's build (most
    # of a second of CPU) runs once; every call gets the same document, the asking site's
    # server named in it, and what one caller does to his copy reaches no other.
    from ninja import NinjaAPI

    from api.http import api

    built = []
    build = NinjaAPI.get_openapi_schema

    def counted(self, **kwargs):
        built.append(kwargs)
        return build(self, **kwargs)

    api._documents.clear()
    monkeypatch.setattr(NinjaAPI, "get_openapi_schema", counted)
    first = Api().get("schema").json()
    first["paths"].clear()
    again = Api().client.get("/api/v1/schema", secure=True).json()
    assert len(built) == 1
    assert again["paths"] and again["servers"] == [{"url": "https://testserver"}]
    assert {**again, "servers": None} == {**Api().get("schema").json(), "servers": None}
    assert len(built) == 1
