"""Rooms people can trust: private rooms, the host removing a player, closing a room, the lobby."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.urls import reverse

from cardgames.asgi import application
from lobby import live, services
from lobby.models import Room
from tables import play
from tables.driver import Driver
from tables.live import rooms
from tables.models import ActionLog, Match
from tests.api.helpers import Api, error_code
from tests.conftest import client_for, make_user
from tests.tables.helpers import ORIGIN, started_room, table_socket

HTMX = {"HTTP_HX_REQUEST": "true"}


def private_room(host, game: str = "ligretto", seats: int = 3) -> Room:
    return services.create_room(host, game, seats, None, private=True)


# Private rooms


def test_a_private_room_is_made_from_the_form_and_listed_nowhere(alice, bob):
    response = client_for(alice).post(
        reverse("lobby:create"), {"game": "ligretto", "seats": 3, "private": "on"}
    )
    room = Room.objects.get()
    assert response.status_code == 302 and room.private
    public = services.create_room(alice, "ligretto", 3)
    page = client_for(bob).get(reverse("lobby:index")).content.decode()
    assert f'id="room-{public.pk}"' in page and f'id="room-{room.pk}"' not in page
    assert f'id="room-{room.pk}"' not in live.render_room_change(room.pk)
    listed = Api(bob).get("rooms").json()["rooms"]
    assert [r["id"] for r in listed] == [public.pk]


def test_a_private_room_refuses_a_seat_and_a_look_without_the_link(alice, bob):
    room = private_room(alice)
    bob_client = client_for(bob)
    assert bob_client.get(room.get_absolute_url()).status_code == 404
    assert bob_client.post(reverse("lobby:join", args=[room.pk]), **HTMX).status_code == 404
    with pytest.raises(services.RoomError) as refused:
        services.join_room(room.pk, bob)
    assert refused.value.code == "no_such_room"
    assert list(room.seat_set.values_list("user__username", flat=True)) == ["alice"]


def test_the_invite_link_opens_a_private_room_for_seat_and_watching(alice, bob, carol):
    room = private_room(alice)
    bob_client = client_for(bob)
    assert bob_client.get(room.get_invite_url()).status_code == 302
    assert bob_client.get(room.get_absolute_url()).status_code == 200
    bob_client.post(reverse("lobby:join", args=[room.pk]), **HTMX)
    assert room.seat_set.filter(user=bob).exists()
    # carol only looked through the link: she may watch, and staff may always look.
    carol_client = client_for(carol)
    carol_client.get(room.get_invite_url())
    assert carol_client.get(room.get_absolute_url()).status_code == 200
    staff = make_user("mod", is_staff=True)
    assert client_for(staff).get(room.get_absolute_url()).status_code == 200


def test_a_private_table_stays_open_to_its_players_after_they_leave(alice, bob):
    room = services.create_room(alice, "ligretto-mini", 2, None, private=True)
    services.join_room(room.pk, bob, invited=True)
    services.start_room(room.pk, alice)
    services.leave_room(room.pk, bob)
    page = client_for(bob).get(room.get_absolute_url())
    assert page.status_code == 200 and 'id="table"' in page.content.decode()


async def room_socket(path: str, user=None) -> tuple[bool, int | None]:
    communicator = WebsocketCommunicator(application, path, headers=ORIGIN)
    if user is not None:
        communicator.scope["user"] = user
    connected, _ = await communicator.connect(timeout=10)
    assert connected  # accepted, then closed with a code the page does not retry
    output = await communicator.receive_output()
    await communicator.disconnect()
    return output["type"] == "websocket.close", output.get("code")


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_a_private_room_s_sockets_refuse_outsiders():
    alice = await sync_to_async(make_user)("alice")
    bob = await sync_to_async(make_user)("bob")

    def make() -> Room:
        room = services.create_room(alice, "ligretto-mini", 2, None, private=True)
        services.add_bots(room.pk, alice, 1)
        return room

    room = await sync_to_async(make)()
    assert await room_socket(f"/ws/rooms/{room.pk}/", bob) == (True, 4404)
    assert await room_socket(f"/ws/rooms/{room.pk}/", None) == (True, 4404)
    closed, _ = await room_socket(f"/ws/rooms/{room.pk}/", alice)
    assert not closed  # the host gets the room's view
    await sync_to_async(services.start_room)(room.pk, alice)
    assert await room_socket(f"/ws/rooms/{room.pk}/table/", bob) == (True, 4404)
    closed, _ = await room_socket(f"/ws/rooms/{room.pk}/table/", alice)
    assert not closed


def test_the_api_needs_the_invite_code_for_a_private_room(alice, bob):
    created = Api(alice).post("rooms", {"game": "ligretto", "seats": 3, "private": True}).json()
    assert created["private"] is True and created["invite"]
    rid = created["id"]
    bob_api = Api(bob)
    assert error_code(bob_api.get(f"rooms/{rid}")) == "no_such_room"
    assert error_code(bob_api.post(f"rooms/{rid}/join")) == "no_such_room"
    assert error_code(bob_api.post(f"rooms/{rid}/join", {"invite": "wrong"})) == "no_such_room"
    joined = bob_api.post(f"rooms/{rid}/join", {"invite": created["invite"]})
    assert joined.status_code == 200 and [p["name"] for p in joined.json()["players"]] == [
        "alice",
        "bob",
    ]
    assert bob_api.get(f"rooms/{rid}").status_code == 200
    assert error_code(Api(alice).post("rooms", {"game": "ligretto", "seats": 3, "private": 1})) == (
        "invalid_private"
    )


# The host removes a player before the start


def test_the_host_removes_a_player_who_cannot_sit_there_again(alice, bob):
    room = services.create_room(alice, "ligretto", 4)
    services.join_room(room.pk, bob)
    services.add_bots(room.pk, alice, 1)
    response = client_for(alice).post(reverse("lobby:remove", args=[room.pk]), {"seat": 1}, **HTMX)
    assert response.status_code == 200
    assert list(room.seat_set.values_list("index", flat=True)) == [0, 2]
    with pytest.raises(services.RoomError) as refused:
        services.join_room(room.pk, bob)
    assert refused.value.code == "removed"
    page = client_for(bob).get(room.get_absolute_url()).content.decode()
    assert 'id="room-removed"' in page
    services.remove_player(room.pk, alice, 2)  # a bot goes too
    assert list(room.seat_set.values_list("index", flat=True)) == [0]


@pytest.mark.parametrize(
    ("who", "index", "code"),
    [("bob", 0, "not_host"), ("alice", 0, "invalid_seat"), ("alice", 3, "invalid_seat")],
)
def test_removing_is_the_host_s_alone_and_only_of_a_taken_seat(alice, bob, who, index, code):
    room = services.create_room(alice, "ligretto", 4)
    services.join_room(room.pk, bob)
    user = {"alice": alice, "bob": bob}[who]
    with pytest.raises(services.RoomError) as refused:
        services.remove_player(room.pk, user, index)
    assert refused.value.code == code
    assert room.seat_set.count() == 2


def test_nobody_is_removed_once_the_game_runs(alice, bob):
    room = started_room(alice, [bob], game="ligretto-mini")
    with pytest.raises(services.RoomError) as refused:
        services.remove_player(room.pk, alice, 1)
    assert refused.value.code == "already_started"


# Closing a room


def test_the_host_closes_an_open_room_and_everyone_sees_why(alice, bob):
    room = services.create_room(alice, "ligretto", 4)
    services.join_room(room.pk, bob)
    with pytest.raises(services.RoomError):
        services.close_room(room.pk, bob, "not mine")
    client_for(alice).post(reverse("lobby:close", args=[room.pk]), {"reason": " wrong  game "})
    room.refresh_from_db()
    assert room.status == "closed" and room.closed_reason == "Closed by its host: wrong game"
    page = client_for(bob).get(room.get_absolute_url()).content.decode()
    assert "Closed by its host: wrong game" in page
    assert f'id="room-{room.pk}"' not in client_for(bob).get("/").content.decode()


@pytest.mark.django_db(transaction=True)  # the driver's claim closes old connections
def test_closing_a_playing_room_stops_its_match_with_no_winner(alice, bob):
    room = started_room(alice, [bob], game="ligretto-mini")
    services.close_room(room.pk, alice, "")
    match = Match.objects.get(room=room)
    assert match.status == "closed" and match.closed_reason == "Closed by its host."
    view = rooms.read(room.pk).view(1)
    assert view["status"] == "closed" and view["legal"] == []
    assert view["message"] == "Closed by its host."
    with pytest.raises(play.PlayError) as refused:
        play.act(room.pk, 1, {"type": "flip"})
    assert refused.value.code == "room_closed"
    assert not ActionLog.objects.filter(match=match).exists()
    assert room.pk not in Driver().claim()  # no bot driver picks it up again
    page = client_for(bob).get(room.get_absolute_url()).content.decode()
    assert "This room was closed" in page and "Closed by its host." in page
    with pytest.raises(services.RoomError) as again:
        services.close_room(room.pk, alice, "")
    assert again.value.code == "room_over"


def test_a_moderator_closes_any_room(alice, bob):
    room = started_room(alice, [bob], game="ligretto-mini")
    mod = make_user("mod", is_staff=True)
    services.close_room(room.pk, mod, "spam", moderator=True)
    room.refresh_from_db()
    assert room.closed_reason == "Closed by a moderator: spam"


# The lobby: public rooms by game, free seats first


def test_the_lobby_lists_open_rooms_by_game_with_free_seats_first(alice, bob, carol):
    full = services.create_room(alice, "ligretto", 2)
    services.join_room(full.pk, bob)
    older = services.create_room(carol, "ligretto", 3)
    newer = services.create_room(bob, "ligretto", 3)
    allegra = services.create_room(alice, "allegra", 3)
    lists = live.listed_rooms()
    by_id = {entry["id"]: [r.pk for r in entry["rooms"]] for entry in lists["open_lists"]}
    assert by_id["open-ligretto"] == [newer.pk, older.pk, full.pk]
    assert by_id["open-allegra"] == [allegra.pk] and by_id["open-ligretto-mini"] == []
    page = client_for(alice).get("/").content.decode()
    assert page.index("Ligretto Mini: open rooms") < page.index("Ligretto: open rooms")
    assert page.index(f'id="room-{newer.pk}"') < page.index(f'id="room-{full.pk}"')


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_players_at_the_table_are_told_at_once_why_the_room_closed():
    alice = await sync_to_async(make_user)("alice")
    bob = await sync_to_async(make_user)("bob")
    room = await sync_to_async(started_room)(alice, [bob], game="ligretto")
    bob_table = await table_socket(room.pk, bob)
    first = await bob_table.receive_from()
    assert 'data-status="playing"' in first
    await sync_to_async(services.close_room)(room.pk, alice, "I must go")
    pushed = ""
    while "Closed by its host: I must go" not in pushed:
        pushed += await bob_table.receive_from()
    assert 'data-status="closed"' in pushed and "This room was closed" in pushed
    await bob_table.disconnect()


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_the_lobby_socket_never_hears_of_a_private_room():
    alice = await sync_to_async(make_user)("alice")
    bob = await sync_to_async(make_user)("bob")
    lobby = WebsocketCommunicator(application, "/ws/lobby/", headers=ORIGIN)
    assert (await lobby.connect(timeout=10))[0]
    await lobby.receive_from()  # the whole list
    hidden = await sync_to_async(private_room)(alice)
    await sync_to_async(services.join_room)(hidden.pk, bob, invited=True)
    public = await sync_to_async(services.create_room)(alice, "ligretto", 3)
    first = await lobby.receive_from()  # the public room's entry is the first word it hears
    assert f'id="room-{public.pk}"' in first and f"'{hidden.pk}'" not in first
    assert await lobby.receive_nothing()
    await lobby.disconnect()
