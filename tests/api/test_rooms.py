"""API rooms: open, list, read, join, leave, bots, start, with each refusal code (api.md)."""

from __future__ import annotations

import pytest

from lobby.models import Room
from tests.api.helpers import Api, error_code


@pytest.fixture
def room(alice):
    """An open 3-seat Allegra room hosted by alice (seat 0)."""
    return Api(alice).post("rooms", {"game": "allegra", "seats": 3}).json()


def test_it_opens_a_room_with_the_caller_in_seat_0(alice):
    response = Api(alice).post("rooms", {"game": "ligretto", "seats": 4, "options": {"target": 50}})
    assert response.status_code == 201
    room = response.json()
    assert room["game"] == "ligretto" and room["status"] == "open" and room["seats"] == 4
    assert room["options"]["target"] == 50 and room["options"]["row_variant"] is False
    assert room["host"] == "alice"
    assert room["players"] == [{"seat": 0, "name": "alice", "bot": False}]
    assert room["url"] == f"http://testserver/rooms/{room['id']}/"


def test_a_field_the_call_does_not_take_is_told_not_ignored(alice):
    # A typo ("privat") would otherwise open a public room without a word.
    typo = Api(alice).post("rooms", {"game": "ligretto", "seats": 4, "privat": True})
    assert typo.status_code == 400 and error_code(typo) == "bad_request"
    assert '"privat" is not a field of this call' in typo.json()["error"]["message"]
    option = Api(alice).post("rooms", {"game": "ligretto-mini", "seats": 2, "options": {"x": 1}})
    assert option.status_code == 400 and error_code(option) == "invalid_options"


def test_it_refuses_bad_rooms_with_400(alice):
    api = Api(alice)
    seats = api.post("rooms", {"game": "ligretto-mini", "seats": 3})
    assert seats.status_code == 400 and error_code(seats) == "invalid_seats"
    allegra = api.post("rooms", {"game": "allegra", "seats": 7})
    assert error_code(allegra) == "invalid_seats"
    options = api.post("rooms", {"game": "ligretto", "seats": 2, "options": {"target": "x"}})
    assert options.status_code == 400 and error_code(options) == "invalid_options"
    shape = api.post("rooms", {"game": "ligretto", "seats": 2, "options": [1]})
    assert error_code(shape) == "invalid_options"
    typed = api.post("rooms", {"game": "ligretto", "seats": "two"})
    assert typed.status_code == 400 and error_code(typed) == "invalid_seats"
    game = api.post("rooms", {"game": "chess", "seats": 2})
    assert game.status_code == 400 and error_code(game) == "invalid_game"
    missing = api.post("rooms", {"seats": 2})
    assert missing.status_code == 400
    assert not Room.objects.exists()


def test_it_lists_open_rooms_only(alice, bob, room):
    api = Api(bob)
    other = Api(alice).post("rooms", {"game": "ligretto-mini", "seats": 2}).json()
    api.post(f"rooms/{other['id']}/join")
    Api(alice).post(f"rooms/{other['id']}/start")
    listed = api.get("rooms")
    assert listed.status_code == 200
    assert [r["id"] for r in listed.json()["rooms"]] == [room["id"]]


def test_it_reads_a_room_or_says_404(alice, room):
    api = Api(alice)
    assert api.get(f"rooms/{room['id']}").json() == room
    missing = api.get("rooms/999999")
    assert missing.status_code == 404 and error_code(missing) == "no_such_room"
    for call in ("join", "leave", "bots", "start"):
        assert error_code(api.post(f"rooms/999999/{call}")) == "no_such_room"


def test_it_joins_until_full(alice, bob, carol, dave, room):
    joined = Api(bob).post(f"rooms/{room['id']}/join")
    assert joined.status_code == 200
    assert [p["name"] for p in joined.json()["players"]] == ["alice", "bob"]
    again = Api(bob).post(f"rooms/{room['id']}/join")
    assert again.status_code == 409 and error_code(again) == "already_seated"
    Api(carol).post(f"rooms/{room['id']}/join")
    full = Api(dave).post(f"rooms/{room['id']}/join")
    assert full.status_code == 409 and error_code(full) == "room_full"


def test_it_refuses_joining_a_started_room(alice, bob, carol, room):
    Api(bob).post(f"rooms/{room['id']}/join")
    Api(alice).post(f"rooms/{room['id']}/start")
    late = Api(carol).post(f"rooms/{room['id']}/join")
    assert late.status_code == 409 and error_code(late) == "already_started"


def test_leaving_before_the_start_frees_the_seat(alice, bob, room):
    Api(bob).post(f"rooms/{room['id']}/join")
    left = Api(bob).post(f"rooms/{room['id']}/leave")
    assert left.status_code == 200
    assert [p["name"] for p in left.json()["players"]] == ["alice"]
    twice = Api(bob).post(f"rooms/{room['id']}/leave")
    assert twice.status_code == 409 and error_code(twice) == "not_seated"


def test_the_host_fills_seats_with_bots(alice, bob, room):
    not_host = Api(bob).post(f"rooms/{room['id']}/bots", {"count": 1})
    assert not_host.status_code == 403 and error_code(not_host) == "not_host"
    # Allegra has no fast bots: a level of another game's, so not at this room (409); a level
    # no game has is bad input (400).
    level = Api(alice).post(f"rooms/{room['id']}/bots", {"level": "fast"})
    assert level.status_code == 409 and error_code(level) == "invalid_level"
    assert "easy, normal" in level.json()["error"]["message"]
    nonsense = Api(alice).post(f"rooms/{room['id']}/bots", {"level": "sleepy"})
    assert nonsense.status_code == 400 and error_code(nonsense) == "invalid_level"
    count = Api(alice).post(f"rooms/{room['id']}/bots", {"count": 0})
    assert count.status_code == 400 and error_code(count) == "invalid_count"
    filled = Api(alice).post(f"rooms/{room['id']}/bots", {"count": 5, "level": "easy"})
    assert filled.status_code == 200
    assert [(p["seat"], p["bot"]) for p in filled.json()["players"]] == [
        (0, False),
        (1, True),
        (2, True),
    ]
    full = Api(alice).post(f"rooms/{room['id']}/bots")
    assert full.status_code == 409 and error_code(full) == "room_full"


def test_only_the_host_starts_and_only_with_enough_players(alice, bob, room):
    alone = Api(alice).post(f"rooms/{room['id']}/start")
    assert alone.status_code == 409 and error_code(alone) == "not_enough_players"
    Api(bob).post(f"rooms/{room['id']}/join")
    not_host = Api(bob).post(f"rooms/{room['id']}/start")
    assert not_host.status_code == 403 and error_code(not_host) == "not_host"
    started = Api(alice).post(f"rooms/{room['id']}/start")
    assert started.status_code == 200
    assert started.json()["status"] == "playing" and started.json()["seats"] == 2
    again = Api(alice).post(f"rooms/{room['id']}/start")
    assert again.status_code == 409 and error_code(again) == "already_started"


def test_a_leaver_during_play_leaves_a_bot_in_his_seat(alice, bob, room):
    Api(bob).post(f"rooms/{room['id']}/join")
    Api(alice).post(f"rooms/{room['id']}/start")
    left = Api(bob).post(f"rooms/{room['id']}/leave")
    assert left.status_code == 200
    assert left.json()["players"][1]["bot"] is True


def test_unknown_calls_and_methods_answer_json(alice):
    api = Api(alice)
    unknown = api.get("nothing/here")
    assert unknown.status_code == 404 and error_code(unknown) == "not_found"
    slash = api.get("rooms/")
    assert slash.status_code == 404 and error_code(slash) == "not_found"
    method = api.client.delete("/api/v1/rooms", headers=api._headers())
    assert method.status_code == 405 and error_code(method) == "method_not_allowed"
    assert error_code(api.get("signup")) == "method_not_allowed"


def test_the_host_removes_a_player_and_closes_the_room(alice, bob):
    rid = Api(alice).post("rooms", {"game": "ligretto", "seats": 3}).json()["id"]
    bob_api = Api(bob)
    bob_api.post(f"rooms/{rid}/join")
    assert error_code(bob_api.post(f"rooms/{rid}/remove", {"seat": 0})) == "not_host"
    removed = Api(alice).post(f"rooms/{rid}/remove", {"seat": 1})
    assert removed.status_code == 200 and [p["name"] for p in removed.json()["players"]] == [
        "alice"
    ]
    refused = bob_api.post(f"rooms/{rid}/join")
    assert refused.status_code == 403 and error_code(refused) == "removed"
    assert error_code(bob_api.post(f"rooms/{rid}/close")) == "not_host"
    closed = Api(alice).post(f"rooms/{rid}/close", {"reason": "done"}).json()
    assert closed["closed"] is True and Room.objects.get(pk=rid).closed_reason == (
        "Closed by its host: done"
    )


def test_it_opens_a_paced_room_and_says_its_pace(alice, client):
    api = Api(alice)
    paced = {"pace": 1.5, "bot_speed": 0.5, "rounds": 2}
    response = api.post("rooms", {"game": "ligretto-mini", "seats": 2, "options": paced})
    assert response.status_code == 201, response.json()
    room = response.json()
    assert room["pace"] == 1.5 and room["bot_speed"] == 0.5
    assert room["options"]["pace"] == 1.5 and room["options"]["rounds"] == 2
    # The lobby's list and the room's own call say it too; an unpaced room says null.
    assert api.get(f"rooms/{room['id']}").json()["pace"] == 1.5
    plain = api.post("rooms", {"game": "allegra", "seats": 3}).json()
    assert plain["pace"] is None and plain["bot_speed"] is None
    assert "pace" not in plain["options"]
    # The same pace as the room form's: the room page says it as the browser opened it.
    assert "1.5" in client.get(f"/rooms/{room['id']}/").content.decode()


@pytest.mark.parametrize(
    "options",
    [
        {"pace": 0.2},
        {"pace": 4},
        {"pace": "1"},
        {"pace": True},
        {"pace": 1, "bot_speed": 2},
        {"pace": 0, "bot_speed": 0.5},
        {"bot_speed": 0.5},
        {"bot_speed": 1},
    ],
)
def test_it_refuses_a_pace_the_site_does_not_offer_with_one_clear_error(alice, options):
    refused = Api(alice).post("rooms", {"game": "ligretto", "seats": 2, "options": options})
    assert refused.status_code == 400 and error_code(refused) == "invalid_options"
    message = refused.json()["error"]["message"]
    assert message in (
        "pace must be one of 0.5, 1, 1.5, 2, 2.5 or 3 seconds; leave it out for a table that is "
        "not paced.",
        "bot_speed must be one of 0.25, 0.5, 0.75 or 1.",
        "Slower bots come with a paced table only.",
    ), message
    assert not Room.objects.exists()


def test_a_pace_refusal_is_in_the_callers_language(alice):
    api = Api(alice)
    api.client.defaults["HTTP_ACCEPT_LANGUAGE"] = "de"
    refused = api.post("rooms", {"game": "allegra", "seats": 3, "options": {"pace": 0}})
    assert refused.json()["error"]["message"] == (
        "pace muss 0,5, 1, 1,5, 2, 2,5 oder 3 Sekunden sein; ohne Takt: weglassen."
    )
