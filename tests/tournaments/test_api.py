"""The tournaments' Board API: create, list, read, join, withdraw, bots; authority and bad input
answer one clear error each, never a 500."""

from __future__ import annotations

import pytest

from tests.api.helpers import Api
from tournaments import scheduler
from tournaments.models import Tournament

pytestmark = pytest.mark.django_db


def _code(response) -> str:
    return response.json()["error"]["code"]


def _swiss(api: Api, **extra) -> dict:
    body = {"game": "ligretto", "seats": 4, "format": "swiss", "rounds": 3, **extra}
    response = api.post("tournaments", body)
    assert response.status_code == 201, response.content
    return response.json()


def test_a_member_creates_a_tournament_others_join_and_it_is_listed(alice, bob):
    made = _swiss(Api(alice), duplicate=True, starts_in=600)
    assert made["status"] == "scheduled" and made["match_rounds"] == 1 and made["duplicate"]
    assert Api(bob).post(f"tournaments/{made['id']}/join").json()["status"] == "active"
    listed = Api(bob).get("tournaments").json()["tournaments"]
    assert [t["id"] for t in listed] == [made["id"]] and listed[0]["players"] == 1
    read = Api(bob).get(f"tournaments/{made['id']}").json()
    assert [e["name"] for e in read["entrants"]] == ["bob"] and read["rounds"] == []


def test_join_twice_withdraw_after_start_and_bots_by_a_stranger_are_refused(alice, bob, carol):
    tid = _swiss(Api(alice), starts_in=0)["id"]
    bob_api = Api(bob)
    assert bob_api.post(f"tournaments/{tid}/join").status_code == 200
    twice = bob_api.post(f"tournaments/{tid}/join")
    assert (twice.status_code, _code(twice)) == (409, "already_joined")
    stranger = Api(carol).post(f"tournaments/{tid}/bots", {"count": 3, "level": "easy"})
    assert (stranger.status_code, _code(stranger)) == (403, "not_creator")
    assert (
        Api(alice).post(f"tournaments/{tid}/bots", {"count": 3, "level": "easy"}).status_code == 201
    )
    scheduler.run_due()  # the start: round 1 is seated
    assert Tournament.objects.get(pk=tid).status == "running"
    late = bob_api.post(f"tournaments/{tid}/withdraw")
    assert (late.status_code, _code(late)) == (409, "already_started")
    joined_late = Api(carol).post(f"tournaments/{tid}/join")
    assert (joined_late.status_code, _code(joined_late)) == (409, "already_started")
    rounds = Api(bob).get(f"tournaments/{tid}").json()["rounds"]
    assert len(rounds) == 1 and len(rounds[0]["tables"]) == 1
    assert len(rounds[0]["tables"][0]["seats"]) == 4  # bob and 3 bots: no filler needed


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ({"game": "chess", "seats": 4, "format": "swiss", "rounds": 3}, 400, "invalid_game"),
        ({"game": "ligretto", "seats": 40, "format": "swiss", "rounds": 3}, 400, "bad_request"),
        ({"game": "ligretto", "seats": 4, "format": "knockout", "rounds": 3}, 400, "bad_request"),
        ({"game": "ligretto", "seats": 4, "format": "swiss"}, 400, "invalid_rounds"),
        ({"game": "ligretto", "seats": 4, "format": "arena"}, 400, "invalid_minutes"),
        (
            {"game": "ligretto", "seats": 4, "format": "swiss", "rounds": 3, "x": 1},
            400,
            "bad_request",
        ),
        ({"game": "ligretto", "seats": 4, "format": "swiss", "rounds": "3"}, 400, "bad_request"),
    ],
)
def test_bad_fields_are_one_clear_error(alice, body, status, code):
    response = Api(alice).post("tournaments", body)
    assert (response.status_code, _code(response)) == (status, code)


def test_bots_with_bad_fields_and_private_events(alice, bob):
    api = Api(alice)
    tid = _swiss(api, private=True)["id"]
    bad = api.post(f"tournaments/{tid}/bots", {"count": 0, "level": "easy"})
    assert (bad.status_code, _code(bad)) == (400, "bad_request")
    # A private event is none to a stranger without its invite; with it, he may join.
    hidden = Api(bob).get(f"tournaments/{tid}")
    assert (hidden.status_code, _code(hidden)) == (404, "no_such_tournament")
    assert Api(bob).get("tournaments").json()["tournaments"] == []
    invite = api.get(f"tournaments/{tid}").json()["invite"]
    assert Api(bob).post(f"tournaments/{tid}/join?invite={invite}").status_code == 200
    missing = Api(bob).get("tournaments/999999")
    assert (missing.status_code, _code(missing)) == (404, "no_such_tournament")
    anonymous = Api().post(
        "tournaments", {"game": "ligretto", "seats": 4, "format": "swiss", "rounds": 1}
    )
    assert anonymous.status_code == 401


def test_real_answers_match_the_schema(alice, bob):
    from tests.api.test_schema import _check

    doc = Api().get("schema").json()
    a, b = Api(alice), Api(bob)
    body = {"game": "ligretto", "seats": 4, "format": "swiss", "rounds": 1, "duplicate": True}
    made = _check(doc, "POST", "/api/v1/tournaments", a.post("tournaments", body))
    _check(doc, "POST", "/api/v1/tournaments", a.post("tournaments", {**body, "rounds": 0}))
    tid = made["id"]
    _check(doc, "GET", "/api/v1/tournaments", b.get("tournaments"))
    _check(doc, "POST", "/api/v1/tournaments/{id}/join", b.post(f"tournaments/{tid}/join"))
    _check(doc, "POST", "/api/v1/tournaments/{id}/join", b.post(f"tournaments/{tid}/join"))
    _check(
        doc,
        "POST",
        "/api/v1/tournaments/{id}/bots",
        b.post(f"tournaments/{tid}/bots", {"count": 1}),
    )
    _check(
        doc,
        "POST",
        "/api/v1/tournaments/{id}/bots",
        a.post(f"tournaments/{tid}/bots", {"count": 11}),
    )
    Tournament.objects.filter(pk=tid).update(next_action_at=None)
    t = Tournament.objects.get(pk=tid)
    Tournament.objects.filter(pk=tid).update(starts_at=t.created_at, next_action_at=t.created_at)
    scheduler.run_due()  # 12 entrants: three tables of 4, seated
    read = _check(doc, "GET", "/api/v1/tournaments/{id}", b.get(f"tournaments/{tid}"))
    assert len(read["rounds"][0]["tables"]) == 3 and read["round_count"] == 1
    _check(doc, "GET", "/api/v1/tournaments/{id}", b.get("tournaments/424242"))
    _check(doc, "POST", "/api/v1/tournaments/{id}/withdraw", b.post(f"tournaments/{tid}/withdraw"))
