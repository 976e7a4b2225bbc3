"""The rematch: one new room with the same game, seats, options, privacy and bots."""

from __future__ import annotations

import pytest

from lobby import services
from lobby.models import Room
from tables.models import Match
from tests.conftest import client_for
from tests.history.factories import played_match

pytestmark = pytest.mark.django_db


def _finished(alice, bob, **kw):
    return played_match(
        "ligretto-mini",
        [alice, bob, "easy", "fast"],
        [[1, 2, 3, 4]],
        options={"rounds": 2, "row_variant": True},
        **kw,
    ).room


def test_a_rematch_copies_game_seats_options_privacy_and_the_bots(alice, bob):
    old = _finished(alice, bob, private=True)
    room = services.rematch(old.pk, bob)
    assert (room.game, room.seats, room.options, room.private) == (
        "ligretto-mini",
        4,
        {"rounds": 2, "row_variant": True},
        True,
    )
    assert room.rematch_of_id == old.pk and room.host_id == bob.pk and room.is_open
    seats = {s.index: (s.user_id, s.bot_level) for s in room.seat_set.all()}
    # The one who asked sits in seat 0; the same bots (same levels) take the last seats.
    assert seats == {0: (bob.pk, ""), 2: (None, "easy"), 3: (None, "fast")}
    assert room.invite_code != old.invite_code


def test_asking_twice_or_a_second_player_asking_opens_no_second_room(alice, bob):
    old = _finished(alice, bob)
    first = services.rematch(old.pk, alice)
    assert services.rematch(old.pk, alice).pk == first.pk
    second = services.rematch(old.pk, bob)
    assert second.pk == first.pk
    assert Room.objects.filter(rematch_of=old).count() == 1
    humans = dict(first.seat_set.filter(user__isnull=False).values_list("index", "user_id"))
    assert humans == {0: alice.pk, 1: bob.pk}
    assert first.seat_set.count() == 4  # full: ready to start


def test_only_the_old_rooms_players_may_ask_and_only_for_a_finished_match(alice, bob, eve):
    old = _finished(alice, bob)
    with pytest.raises(services.RoomError) as refusal:
        services.rematch(old.pk, eve)
    assert refusal.value.code == "not_a_player" and refusal.value.status == 403
    playing = played_match("ligretto", [alice, bob], [], status=Match.Status.PLAYING).room
    with pytest.raises(services.RoomError) as refusal:
        services.rematch(playing.pk, alice)
    assert refusal.value.code == "not_finished"
    with pytest.raises(services.RoomError) as refusal:
        services.rematch(999999, alice)
    assert refusal.value.code == "no_such_room"
    assert not Room.objects.filter(rematch_of__isnull=False).exists()


def test_a_rematch_that_started_without_him_says_so(alice, bob, carol):
    old = played_match("ligretto", [alice, bob, carol], [[1, 2, 3]]).room
    room = services.rematch(old.pk, alice)
    services.join_room(room.pk, bob)
    services.start_room(room.pk, alice)
    with pytest.raises(services.RoomError) as refusal:
        services.rematch(old.pk, carol)
    assert refusal.value.code == "already_started"
    assert services.rematch(old.pk, bob).pk == room.pk  # already in it: nothing to do


def test_was_player_lets_the_old_rooms_players_into_a_private_rematch(alice, bob, eve):
    old = _finished(alice, bob, private=True)
    room = services.rematch(old.pk, alice)
    assert services.was_player(room.rematch_of, bob)
    assert not services.was_player(room.rematch_of, eve)


def test_the_rematch_view_redirects_htmx_to_the_new_room_and_refuses_others(alice, bob, eve):
    old = _finished(alice, bob)
    answer = client_for(alice).post(f"/rooms/{old.pk}/rematch/", headers={"HX-Request": "true"})
    room = Room.objects.get(rematch_of=old)
    assert answer.status_code == 200 and answer["HX-Redirect"] == f"/rooms/{room.pk}/"
    plain = client_for(bob).post(f"/rooms/{old.pk}/rematch/")
    assert plain.status_code == 302 and plain["Location"] == f"/rooms/{room.pk}/"
    refused = client_for(eve).post(f"/rooms/{old.pk}/rematch/", headers={"HX-Request": "true"})
    assert refused.status_code == 403 and refused["HX-Retarget"] == "#site-error"
    assert b"Only the players of this match may ask for a rematch." in refused.content
    anonymous = client_for(eve)
    anonymous.logout()
    assert anonymous.post(f"/rooms/{old.pk}/rematch/").status_code == 302
    assert client_for(alice).get(f"/rooms/{old.pk}/rematch/").status_code == 405
    assert Room.objects.filter(rematch_of=old).count() == 1


def test_a_private_rematch_lets_the_old_players_in_without_the_link_and_no_one_else(
    alice, bob, eve
):
    old = _finished(alice, bob, private=True)
    room = services.rematch(old.pk, alice)
    assert client_for(bob).get(f"/rooms/{room.pk}/").status_code == 200
    assert client_for(eve).get(f"/rooms/{room.pk}/").status_code == 404
    with pytest.raises(services.RoomError) as refusal:
        services.join_room(room.pk, eve)
    assert refusal.value.code == "no_such_room"
    seat = services.join_room(room.pk, bob)  # no invite link needed: he played the old match
    assert seat.room_id == room.pk and seat.index == 1


def test_a_player_the_host_removed_from_the_rematch_cannot_rejoin_it_by_asking(alice, bob):
    old = _finished(alice, bob)
    room = services.rematch(old.pk, alice)
    services.rematch(old.pk, bob)
    services.remove_player(room.pk, alice, 1)
    with pytest.raises(services.RoomError) as refusal:
        services.rematch(old.pk, bob)
    assert refusal.value.code == "removed"
    assert not room.seat_set.filter(user=bob).exists()
