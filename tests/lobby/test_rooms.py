from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from lobby import services
from lobby.models import Room, Seat
from tests.conftest import client_for, make_user

HTMX = {"HTTP_HX_REQUEST": "true"}


def seat_names(room: Room) -> list[tuple[int, str]]:
    return [(s.index, s.name) for s in room.seat_set.select_related("user").order_by("index")]


# Creating rooms


def test_it_creates_a_room_with_the_host_in_seat_0(alice):
    response = client_for(alice).post(
        reverse("lobby:create"), {"game": "ligretto", "seats": 4, "target": 50}
    )
    room = Room.objects.get()
    assert response.status_code == 302 and response["Location"] == room.get_absolute_url()
    assert (room.game, room.seats, room.status, room.host) == ("ligretto", 4, "open", alice)
    assert room.options == {"target": 50, "rounds": 10, "row_variant": False}
    assert seat_names(room) == [(0, "alice")]


@pytest.mark.parametrize(
    ("game", "seats", "extra", "expected"),
    [
        ("ligretto-mini", 2, {}, {"rounds": 1, "row_variant": False}),
        (
            "ligretto",
            12,
            {"rounds": 5, "row_variant": "on"},
            {"target": 99, "rounds": 5, "row_variant": True},
        ),
        ("allegra", 6, {}, {"rounds": 3, "clock": 30}),
    ],
)
def test_it_fills_in_each_games_default_options(alice, game, seats, extra, expected):
    client_for(alice).post(reverse("lobby:create"), {"game": game, "seats": seats, **extra})
    assert Room.objects.get().options == expected


@pytest.mark.parametrize(
    ("form", "message"),
    [
        ({"game": "ligretto-mini", "seats": 3}, b"needs 2 players"),
        ({"game": "ligretto", "seats": 13}, b"2 to 12"),
        ({"game": "ligretto", "seats": 1}, b"2 to 12"),
        ({"game": "allegra", "seats": 7}, b"2 to 6"),
        ({"game": "ligretto", "seats": 2, "rounds": 51, "target": 40}, b"from 1 to 50"),
        ({"game": "allegra", "seats": 3, "row_variant": "on"}, b""),
        ({"game": "allegra", "seats": 3, "target": 50}, b""),
        ({"game": "poker", "seats": 2}, b"not one of the available choices"),
        ({"game": "ligretto", "seats": "many"}, b"whole number"),
    ],
)
def test_it_refuses_seats_or_options_outside_the_rules(alice, form, message):
    response = client_for(alice).post(reverse("lobby:create"), form)
    assert response.status_code == 400
    assert b'class="errorlist' in response.content
    assert message in response.content
    assert not Room.objects.exists()


def test_service_refuses_bad_input_with_codes(alice):
    cases = [
        (("ligretto", 13, None), "invalid_seats"),
        (("ligretto", True, None), "invalid_seats"),
        (("ligretto", 2, {"rounds": 0}), "invalid_options"),
        (("ligretto", 2, {"rounds": 2, "target": "9"}), "invalid_options"),
        (("ligretto-mini", 2, {"best_of": 2}), "invalid_options"),
        (("ligretto", 2, {"bogus": 1}), "invalid_options"),
        (("ligretto", 2, ["rounds"]), "invalid_options"),
        (("allegra", 2, {"rounds": "3"}), "invalid_options"),
        (("chess", 2, None), "invalid_game"),
    ]
    for args, code in cases:
        with pytest.raises(services.RoomError) as refused:
            services.create_room(alice, *args)
        assert (refused.value.code, refused.value.status) == (code, 400), args
    assert not Room.objects.exists()


def test_a_logged_out_visitor_cannot_create_join_leave_or_start(alice):
    room = services.create_room(alice, "ligretto", 3)
    visitor = Client()
    response = visitor.post(reverse("lobby:create"), {"game": "ligretto", "seats": 2})
    assert response.status_code == 302 and response["Location"].startswith(reverse("login"))
    for name in ("lobby:join", "lobby:leave", "lobby:start", "lobby:bots"):
        response = visitor.post(reverse(name, args=[room.pk]))
        assert response.status_code == 302, name
        assert response["Location"].startswith(reverse("login"))
        response = visitor.post(reverse(name, args=[room.pk]), **HTMX)
        assert response.status_code == 401
        assert response["HX-Redirect"].startswith(reverse("login") + "?next=")
    assert Room.objects.count() == 1
    assert seat_names(room) == [(0, "alice")]
    room.refresh_from_db()
    assert room.status == "open"


# Joining and leaving


def test_it_joins_the_lowest_free_seat(alice, bob, carol):
    room = services.create_room(alice, "ligretto", 4)
    client_for(bob).post(reverse("lobby:join", args=[room.pk]))
    client_for(carol).post(reverse("lobby:join", args=[room.pk]))
    services.leave_room(room.pk, bob)
    services.join_room(room.pk, make_user("dave"))
    assert seat_names(room) == [(0, "alice"), (1, "dave"), (2, "carol")]


def test_it_refuses_joining_twice(alice, bob):
    room = services.create_room(alice, "ligretto", 4)
    client = client_for(bob)
    client.post(reverse("lobby:join", args=[room.pk]))
    response = client.post(reverse("lobby:join", args=[room.pk]))
    assert response.status_code == 409
    assert b"You already have a seat" in response.content
    assert room.seat_set.count() == 2


def test_it_refuses_a_full_room(alice, bob, carol):
    room = services.create_room(alice, "ligretto-mini", 2)
    services.join_room(room.pk, bob)
    response = client_for(carol).post(reverse("lobby:join", args=[room.pk]), **HTMX)
    assert response.status_code == 409
    assert b"Every seat in this room is taken" in response.content
    assert b'id="room-live"' in response.content  # the htmx fragment, not a whole page
    assert b"<html" not in response.content
    assert seat_names(room) == [(0, "alice"), (1, "bob")]


def test_it_refuses_joining_a_started_room(alice, bob, carol):
    room = services.create_room(alice, "ligretto", 3)
    services.join_room(room.pk, bob)
    services.start_room(room.pk, alice)
    with pytest.raises(services.RoomError) as refused:
        services.join_room(room.pk, carol)
    assert refused.value.code == "already_started"


def test_an_unknown_room_is_404(alice):
    client = client_for(alice)
    assert client.get(reverse("lobby:room", args=[999])).status_code == 404
    assert client.post(reverse("lobby:join", args=[999])).status_code == 404


def test_a_leaving_host_hands_the_room_to_the_next_player(alice, bob):
    room = services.create_room(alice, "ligretto", 3)
    services.join_room(room.pk, bob)
    services.leave_room(room.pk, alice)
    room.refresh_from_db()
    assert room.host == bob and room.status == "open"
    assert seat_names(room) == [(1, "bob")]


def test_a_room_left_empty_is_closed_and_unlisted(alice):
    room = services.create_room(alice, "allegra", 3)
    response = client_for(alice).post(reverse("lobby:leave", args=[room.pk]))
    assert response.status_code == 302
    room.refresh_from_db()
    assert room.status == "closed" and room.ended_at is not None
    assert f'id="room-{room.pk}"'.encode() not in Client().get(reverse("lobby:index")).content


def test_a_room_with_only_bots_left_is_closed(alice):
    room = services.create_room(alice, "ligretto", 3)
    services.add_bots(room.pk, alice, count=2)
    services.leave_room(room.pk, alice)
    room.refresh_from_db()
    assert room.status == "closed"


def test_leaving_a_game_in_progress_hands_the_seat_to_a_bot(alice, bob):
    room = services.create_room(alice, "ligretto", 2)
    services.join_room(room.pk, bob)
    services.start_room(room.pk, alice)
    services.leave_room(room.pk, bob)
    room.refresh_from_db()
    assert room.status == "playing"
    assert seat_names(room) == [(0, "alice"), (1, "Normal bot 2")]


def test_it_refuses_leaving_without_a_seat(alice, bob):
    room = services.create_room(alice, "ligretto", 3)
    response = client_for(bob).post(reverse("lobby:leave", args=[room.pk]))
    assert response.status_code == 409
    assert b"You have no seat in this room" in response.content


# Bots and starting


def test_the_host_fills_free_seats_with_bots(alice, bob):
    room = services.create_room(alice, "ligretto", 4)
    services.join_room(room.pk, bob)
    response = client_for(alice).post(
        reverse("lobby:bots", args=[room.pk]), {"count": 5, "level": "fast"}
    )
    assert response.status_code == 302
    assert seat_names(room) == [(0, "alice"), (1, "bob"), (2, "Fast bot 3"), (3, "Fast bot 4")]


def test_it_refuses_bots_from_a_non_host_or_of_a_bad_level(alice, bob):
    room = services.create_room(alice, "allegra", 4)
    services.join_room(room.pk, bob)
    assert client_for(bob).post(reverse("lobby:bots", args=[room.pk])).status_code == 403
    response = client_for(alice).post(reverse("lobby:bots", args=[room.pk]), {"level": "fast"})
    assert response.status_code == 400  # Allegra bots are easy or normal
    assert b"easy, normal" in response.content
    response = client_for(alice).post(reverse("lobby:bots", args=[room.pk]), {"count": "x"})
    assert response.status_code == 400
    assert room.seat_set.count() == 2


def test_the_host_starts_when_enough_seats_are_filled(alice, bob):
    room = services.create_room(alice, "ligretto", 4)
    client = client_for(alice)
    response = client.post(reverse("lobby:start", args=[room.pk]))
    assert response.status_code == 409
    assert b"needs at least 2 players" in response.content
    room.refresh_from_db()
    assert room.status == "open"

    Seat.objects.create(room=room, index=3, user=bob)
    response = client.post(reverse("lobby:start", args=[room.pk]))
    assert response.status_code == 302
    room.refresh_from_db()
    assert room.status == "playing" and room.started_at is not None
    # Empty seats are dropped and the rest close up, in order.
    assert room.seats == 2
    assert seat_names(room) == [(0, "alice"), (1, "bob")]


def test_a_non_host_cannot_start_a_room_with_free_seats(alice, bob):
    room = services.create_room(alice, "ligretto", 3)
    services.join_room(room.pk, bob)
    response = client_for(bob).post(reverse("lobby:start", args=[room.pk]))
    assert response.status_code == 403
    assert b"Only the host" in response.content
    room.refresh_from_db()
    assert room.status == "open"
    assert 'id="start-button"' not in client_for(bob).get(room.get_absolute_url()).content.decode()


def test_a_full_room_may_be_started_by_anyone_seated_when_its_host_is_gone(alice, bob, carol, eve):
    # Alice opened it and went away without leaving; bob and carol filled it.
    room = services.create_room(alice, "ligretto", 3)
    services.join_room(room.pk, bob)
    services.join_room(room.pk, carol)
    page = client_for(carol).get(room.get_absolute_url()).content.decode()
    assert "Every seat is taken: anyone seated may start the game." in page
    assert "Waiting for players" not in page
    assert 'id="start-button"' in page and "disabled" not in page.split('id="start-button"')[1][:80]
    # A spectator may not.
    assert client_for(eve).post(reverse("lobby:start", args=[room.pk])).status_code == 403
    response = client_for(carol).post(reverse("lobby:start", args=[room.pk]))
    assert response.status_code == 302
    room.refresh_from_db()
    assert room.status == "playing" and room.host_id == alice.pk


def test_it_refuses_starting_twice(alice, bob):
    room = services.create_room(alice, "ligretto-mini", 2)
    services.join_room(room.pk, bob)
    services.start_room(room.pk, alice)
    with pytest.raises(services.RoomError) as refused:
        services.start_room(room.pk, alice)
    assert refused.value.code == "already_started"


# Invites and spectators


def test_the_invite_link_shows_a_logged_in_visitor_the_room_to_join(alice, bob):
    room = services.create_room(alice, "ligretto", 3)
    response = client_for(bob).get(room.get_invite_url())
    assert response.status_code == 302 and response["Location"] == room.get_absolute_url()
    # Opening a link takes no seat (tests/lobby/test_hardening_pages.py): the Join button does.
    assert seat_names(room) == [(0, "alice")]


def test_the_invite_link_takes_a_new_visitor_through_signup_into_the_room(alice):
    from tests.conftest import PASSWORD

    room = services.create_room(alice, "ligretto", 3)
    visitor = Client()
    response = visitor.get(room.get_invite_url())
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("signup") + "?next=")
    response = visitor.post(
        response["Location"],
        {
            "username": "bob",
            "password1": PASSWORD,
            "password2": PASSWORD,
            "next": room.get_invite_url(),
        },
        follow=True,
    )
    assert response.redirect_chain[-1][0] == room.get_absolute_url()
    assert b'id="join-button"' in response.content
    visitor.post(reverse("lobby:join", args=[room.pk]))
    assert seat_names(room) == [(0, "alice"), (1, "bob")]


def test_an_invite_to_a_full_room_shows_it_to_watch(alice, bob, carol):
    room = services.create_room(alice, "ligretto-mini", 2)
    services.join_room(room.pk, bob)
    response = client_for(carol).get(room.get_invite_url(), follow=True)
    assert b"Every seat in this room is taken" in response.content
    assert room.seat_set.count() == 2


def test_an_unknown_invite_is_404(alice):
    assert client_for(alice).get(reverse("lobby:invite", args=["nope"])).status_code == 404


def test_spectators_can_open_a_started_room(alice, bob, eve):
    room = services.create_room(alice, "ligretto", 2)
    services.join_room(room.pk, bob)
    services.start_room(room.pk, alice)
    for client in (client_for(eve), Client()):
        page = client.get(room.get_absolute_url())
        assert page.status_code == 200
        assert b"You are watching" in page.content
        assert b'id="join-button"' not in page.content
        assert room.invite_code.encode() not in page.content


def test_the_room_page_shows_controls_by_role(alice, bob):
    room = services.create_room(alice, "ligretto", 3)
    host_page = client_for(alice).get(room.get_absolute_url()).content
    assert b'id="start-button"' in host_page and b"disabled" in host_page
    assert b'id="bots-form"' in host_page
    assert room.invite_code.encode() in host_page
    guest_page = client_for(bob).get(room.get_absolute_url()).content
    assert b'id="join-button"' in guest_page and b'id="start-button"' not in guest_page
    assert room.invite_code.encode() not in guest_page
    assert client_for(bob).get(room.get_absolute_url())["Vary"].count("HX-Request") == 1


def test_the_lobby_lists_open_and_playing_rooms(alice, bob):
    open_room = services.create_room(alice, "allegra", 3)
    played = services.create_room(bob, "ligretto-mini", 2)
    services.add_bots(played.pk, bob)
    services.start_room(played.pk, bob)
    page = Client().get(reverse("lobby:index")).content.decode()
    open_part, playing_part = page.split('id="playing-rooms-heading"')
    assert f'id="room-{open_room.pk}"' in open_part
    assert f'id="room-{played.pk}"' in playing_part


def test_the_room_form_offers_each_game_only_its_own_options(alice):
    client = client_for(alice)
    page = client.get(reverse("lobby:create") + "?game=allegra", **HTMX).content.decode()
    assert page.strip().startswith('<fieldset id="game-fields">') and "<html" not in page
    assert 'name="rounds"' in page
    assert 'name="target"' not in page and 'name="row_variant"' not in page
    assert 'min="2" max="6"' in page
    page = client.get(reverse("lobby:create") + "?game=ligretto-mini", **HTMX).content.decode()
    assert 'name="row_variant"' in page and 'name="no_target"' not in page
    # L6 (issue 45): Mini's match may go to a target, or be best of N.
    assert 'name="target"' in page and 'name="best_of"' in page
    assert "Exactly 2 players" in page
    page = client.get(reverse("lobby:create")).content.decode()
    assert 'name="target"' in page and 'min="2" max="12"' in page  # Ligretto by default
