"""Generated bodies on every Board API endpoint (issue 18): never a 5xx, always the API's JSON.

Through Django's whole stack (cardgames.apierrors first), with a real token, on a room that is
being played; one test per input class the issue names; and the answers that used to come from
elsewhere than the API's views (an unknown /api/ path, a multipart body without a boundary).
"""

from __future__ import annotations

import json
import logging
import os
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from api.models import ApiToken
from lobby import services
from tables.models import ActionLog
from tests.api.helpers import Api
from tests.conftest import make_user
from tests.tables.fuzz import values
from tests.tables.helpers import started_room

pytestmark = pytest.mark.django_db

# Reported in docs/reliability.md; FUZZ_SCALE=10 for a long run.
EXAMPLES = 200 * int(os.environ.get("FUZZ_SCALE", "1"))
FIELDS = ["username", "password", "game", "seats", "options", "private", "invite", "count"]
FIELDS += ["level", "seat", "reason", "action", "name"]
CALLS = ["signup", "token", "rooms", "join", "leave", "bots", "remove", "close", "start", "actions"]

bodies = st.one_of(
    values.map(lambda v: json.dumps(v, allow_nan=True)),
    st.fixed_dictionaries({}, optional=dict.fromkeys(FIELDS, values)).map(
        lambda v: json.dumps(v, allow_nan=True)
    ),
    st.fixed_dictionaries({"action": st.dictionaries(st.text(max_size=6), values)}).map(
        lambda v: json.dumps(v, allow_nan=True)
    ),
    st.text(max_size=80),
    st.integers(min_value=1, max_value=3000).map(lambda n: "[" * n + "]" * n),
)


@pytest.fixture
def table(settings) -> dict[str, Any]:  # noqa: ANN001 - pytest-django's settings
    # Once per test, not per example: each override wraps the settings once more.
    settings.API_ACTIONS_PER_USER = 10**6  # the fuzz is no flood: let every body be judged
    settings.ROOM_ACTIONS_PER_USER = 10**6
    alice, bob = make_user("alice"), make_user("bob")
    room = started_room(alice, [bob])
    return {"room": room.pk, "api": Api(alice)}


def _path(call: str, room_id: int) -> str:
    return call if call in ("signup", "token", "rooms") else f"rooms/{room_id}/{call}"


def _is_api_json(response: Any) -> bool:
    if response["Content-Type"] != "application/json":
        return False
    body = response.json()
    return response.status_code < 400 or set(body["error"]) == {"code", "message"}


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(call=st.sampled_from(CALLS), body=bodies)
def test_no_generated_body_gets_a_server_error(table, caplog, call, body):
    with caplog.at_level(logging.WARNING):
        response = table["api"].post(_path(call, table["room"]), raw=body)
    assert response.status_code < 500, response.content[:300]
    assert _is_api_json(response), response.content[:300]
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


CLASSES = {
    "deep nesting": '{"action": ' + "[" * 3000 + "]" * 3000 + "}",
    "NaN": '{"action": {"type": "flip", "index": NaN}}',
    "Infinity": '{"action": {"type": "flip"}, "x": -Infinity}',
    "NUL": '{"action": {"type": "fl\\u0000ip"}}',
    "not UTF-8": b'{"action": "\xff\xfe"}',
}


@pytest.mark.parametrize("name", CLASSES)
def test_each_input_class_is_a_clear_bad_json_and_writes_nothing(table, caplog, name):
    before = ActionLog.objects.count()
    with caplog.at_level(logging.WARNING):
        response = table["api"].post(_path("actions", table["room"]), raw=CLASSES[name])
    assert response.status_code == 400 and response.json()["error"]["code"] == "bad_json"
    assert ActionLog.objects.count() == before
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


@pytest.mark.parametrize("seat", ["١", "²", 1.5, True, [1], None])
def test_a_seat_that_is_no_ascii_integer_is_refused_not_crashed(seat):
    alice, bob = make_user("alice"), make_user("bob")
    room = services.create_room(alice, "ligretto", 3)
    services.join_room(room.pk, bob)
    response = Api(alice).post(f"rooms/{room.pk}/remove", {"seat": seat})
    assert response.status_code == 400 and response.json()["error"]["code"] == "invalid_seat"
    assert room.seat_set.filter(user=bob).exists()


@pytest.mark.parametrize("invite", ["été", "\u0000", "x" * 500, "€" * 16])
def test_a_non_ascii_invite_code_is_a_wrong_one(invite):
    alice, bob = make_user("alice"), make_user("bob")
    room = services.create_room(alice, "ligretto-mini", 2, None, private=True)
    api = Api(bob)
    joined = api.post(f"rooms/{room.pk}/join", {"invite": invite})
    # A NUL never gets past the strict body parse; any other text is a wrong code.
    assert joined.status_code == (400 if "\x00" in invite else 404)
    got = api.client.get(f"/api/v1/rooms/{room.pk}", {"invite": invite}, headers=api._headers())
    if "\x00" in invite:  # refused before any view, in the API's JSON
        assert got.status_code == 400 and got.json()["error"]["code"] == "bad_request"
    else:
        assert got.status_code == 404 and got.json()["error"]["code"] == "no_such_room"


@pytest.mark.parametrize("path", ["/api", "/api/", "/api/v2/rooms", "/api/v1", "/api/x/y?z=1"])
def test_every_path_under_api_answers_the_apis_json_404(client, path):
    response = client.get(path)
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"


def test_a_multipart_body_without_a_boundary_is_a_json_bad_json(client):
    token = ApiToken.objects.issue(make_user("alice"), "t")[1]
    response = client.post(
        "/api/v1/rooms",
        data=b"--x\r\n",
        content_type="multipart/form-data",
        headers={"Authorization": f"Bearer {token}"},
    )
    assert response.status_code == 400 and response.json()["error"]["code"] == "bad_json"


def test_a_django_error_page_under_api_becomes_the_apis_json(client, settings):
    # A Host Django refuses is answered by Django itself (400), before any view.
    settings.ALLOWED_HOSTS = ["example.org"]
    response = client.get("/api/v1/rooms", headers={"Host": "evil.test"})
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "bad_request"
