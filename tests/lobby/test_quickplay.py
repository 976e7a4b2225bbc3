"""Quick play: Play now seats people at one waiting room of their level, or opens one that bots
fill after the wait; Practise starts an unrated table against bots at once."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from lobby import quickplay, services
from lobby.models import Room
from tables.models import Match, Rating
from tests.conftest import client_for, make_user

pytestmark = pytest.mark.django_db


def test_two_people_land_at_one_room_which_starts_when_full(alice, bob):
    first = quickplay.play_now(alice, "ligretto-mini")
    assert first.status == Room.Status.OPEN and first.rated and first.quick_fill_at
    assert quickplay.play_now(alice, "ligretto-mini").pk == first.pk  # a second click
    second = quickplay.play_now(bob, "ligretto-mini")
    assert second.pk == first.pk
    room = Room.objects.get(pk=first.pk)
    assert room.status == Room.Status.PLAYING  # Mini seats two: full, so it starts
    assert [p.user for p in Match.objects.get(room=room).players.all()] == [alice, bob]


def test_a_lone_player_gets_bots_after_the_wait(alice, settings):
    settings.QUICK_PLAY_WAIT = 20
    room = quickplay.play_now(alice, "ligretto")
    assert quickplay.fill_due() == []  # not yet
    Room.objects.filter(pk=room.pk).update(quick_fill_at=timezone.now() - timedelta(seconds=1))
    assert quickplay.fill_due() == [room.pk]
    room.refresh_from_db()
    assert room.status == Room.Status.PLAYING and room.quick_fill_at is None
    players = list(Match.objects.get(room=room).players.all())
    assert len(players) == quickplay.seats_for("ligretto") == 4
    assert [p.user for p in players if p.user] == [alice]
    assert quickplay.fill_room(room.pk) is False  # once only


def test_the_room_page_fills_a_room_whose_timer_was_lost(alice):
    room = quickplay.play_now(alice, "allegra")
    Room.objects.filter(pk=room.pk).update(quick_fill_at=timezone.now() - timedelta(seconds=1))
    page = client_for(alice).get(f"/rooms/{room.pk}/")
    assert page.status_code == 200
    assert Room.objects.get(pk=room.pk).status == Room.Status.PLAYING


def test_play_now_skips_rooms_out_of_his_band_private_and_unrated_ones(alice, bob, settings):
    settings.QUICK_PLAY_BAND = 100
    Rating.objects.create(user=bob, game="ligretto", mu=40.0, sigma=3.0, matches=20)  # 2400
    strong = quickplay.play_now(bob, "ligretto")
    services.create_room(make_user("carol"), "ligretto", 4, None, private=True)
    services.create_room(make_user("dave"), "ligretto", 4, None, rated=False)
    mine = quickplay.play_now(alice, "ligretto")  # a newcomer: 1500
    assert mine.pk != strong.pk and mine.host == alice
    # A newcomer near 1500 finds alice's room rather than opening another.
    assert quickplay.play_now(make_user("erin"), "ligretto").pk == mine.pk


def test_practise_starts_an_unrated_table_against_bots_at_once(alice):
    room = quickplay.practise(alice, "allegra", "easy")
    assert room.status == Room.Status.PLAYING and not room.rated
    players = list(Match.objects.get(room=room).players.all())
    assert players[0].user == alice and {p.bot_level for p in players[1:]} == {"easy"}
    with pytest.raises(services.RoomError) as refusal:
        quickplay.practise(alice, "allegra", "godlike")
    assert refusal.value.code == "invalid_level"
    with pytest.raises(services.RoomError):
        quickplay.play_now(alice, "chess")


def test_the_lobby_buttons_take_him_to_his_room(alice):
    me = client_for(alice)
    assert 'id="play-now-ligretto"' in me.get("/").content.decode()
    answer = me.post("/play/ligretto/")
    room = Room.objects.get(host=alice)
    assert answer.status_code == 302 and answer["Location"] == f"/rooms/{room.pk}/"
    assert "Bots take the empty seats" in me.get(answer["Location"]).content.decode()
    answer = me.post("/practise/ligretto-mini/", {"level": "fast"})
    assert answer.status_code == 302
    assert me.post("/practise/ligretto-mini/", {"level": "nope"}).status_code == 302


def test_nobody_hosts_a_quick_play_room_so_nobody_removes_or_closes_there(alice, bob):
    """Issue 45 item 4: the first presser has no power over the strangers paired with him."""
    room = quickplay.play_now(alice, "ligretto")
    assert quickplay.play_now(bob, "ligretto").pk == room.pk
    for user, act in (
        (alice, lambda: services.remove_player(room.pk, alice, 1)),
        (alice, lambda: services.add_bots(room.pk, alice, 1)),
        (alice, lambda: services.close_room(room.pk, alice)),
        (alice, lambda: services.start_room(room.pk, alice)),
        (bob, lambda: services.close_room(room.pk, bob)),
    ):
        with pytest.raises(services.RoomError) as refusal:
            act()
        assert refusal.value.code == "no_host" and refusal.value.status == 403, user
    room.refresh_from_db()
    assert room.status == Room.Status.OPEN and room.seat_set.count() == 2
    page = client_for(alice).get(f"/rooms/{room.pk}/").content.decode()
    assert "Remove" not in page and "Close the room" not in page
    assert ">host<" not in page
    lobby = client_for(bob).get("/").content.decode()
    assert "quick play · 2 of 4 seats taken" in lobby and "hosted by alice" not in lobby
    # A room a person opens keeps its host's powers.
    own = services.create_room(alice, "ligretto", 4)
    services.add_bots(own.pk, alice, 1)
    assert services.close_room(own.pk, alice).status == Room.Status.CLOSED


def test_a_visitors_play_now_survives_sign_up_and_log_in(client, alice):
    """Issue 45 item 9: Play now, sign up, and he is at a table, without pressing again."""
    password = "a long pass phrase 7"
    answer = client.get("/play/ligretto/")
    assert answer.status_code == 302
    assert answer["Location"] == "/accounts/signup/?next=%2Fplay%2Fligretto%2F"
    form = {"username": "newcomer", "password1": password, "password2": password}
    answer = client.post(answer["Location"], {**form, "next": "/play/ligretto/"})
    assert answer.status_code == 302 and answer["Location"] == "/play/ligretto/"
    answer = client.get(answer["Location"])
    room = Room.objects.get(seat_set__user__username="newcomer")
    assert answer.status_code == 302 and answer["Location"] == f"/rooms/{room.pk}/"
    assert room.game == "ligretto" and room.hostless and room.quick_fill_at
    # Once only: the kept Play now is spent; a GET alone opens nothing.
    assert client.get("/play/ligretto/")["Location"] == "/"
    assert client.get("/play/allegra/")["Location"] == "/"
    assert Room.objects.filter(seat_set__user__username="newcomer").count() == 1
    # The same through log-in, for someone with an account who was signed out.
    alice.set_password(password)
    alice.save()
    other = type(client)()
    assert other.get("/play/allegra/").status_code == 302
    answer = other.post(
        "/accounts/login/", {"username": "alice", "password": password, "next": "/play/allegra/"}
    )
    assert answer["Location"] == "/play/allegra/"
    assert other.get("/play/allegra/")["Location"].startswith("/rooms/")
    assert Room.objects.get(seat_set__user=alice).game == "allegra"
