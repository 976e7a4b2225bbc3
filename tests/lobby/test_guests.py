"""Guests: a visitor without an account practises against bots and watches at once; he is
unrated, never on a leaderboard, reads the chat without writing, and keeps his finished
practice matches when he signs up. Guests are made per address no faster than sign-ups."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from chat import services as chat
from lobby import services
from lobby.models import Room
from tables import guests, history, ratings
from tables.driver import MatchBots
from tables.models import Match
from tests.conftest import PASSWORD, client_for
from tests.tables.helpers import started_room

pytestmark = pytest.mark.django_db


def _practise(client: Client, game: str = "ligretto-mini") -> Room:
    answer = client.post(f"/practise/{game}/", {"level": "normal"})
    assert answer.status_code == 302 and answer["Location"].startswith("/rooms/")
    return Room.objects.get(pk=int(answer["Location"].split("/")[2]))


def _play_out(room: Room, settings) -> None:
    # The guest never opens the table: his stand-in plays for him at once (LEAVER_GRACE 0).
    settings.LEAVER_GRACE = 0
    bots = MatchBots(room.pk)
    for _ in range(200_000):
        if bots.step() is None:
            break
    assert Match.objects.get(room=room).status == Match.Status.FINISHED


def test_a_visitor_practises_as_a_guest_at_once():
    visitor = Client()
    lobby = visitor.get("/").content.decode()
    assert 'id="practise-ligretto-mini"' in lobby  # offered without an account
    room = _practise(visitor)
    assert room.status == Room.Status.PLAYING and not room.rated
    guest = room.host
    assert guests.is_guest(guest) and guest.username.startswith("guest-")
    assert not guest.has_usable_password()
    assert [p.user for p in Match.objects.get(room=room).players.all()] == [guest, None]
    page = visitor.get(room.get_absolute_url())
    assert page.status_code == 200 and 'id="guest-signup"' in page.content.decode()
    # A second practice is the same guest, not a new one.
    assert _practise(visitor, "allegra").host == guest


def test_a_guest_watches_but_plays_no_people_opens_no_room_and_does_not_chat(alice, bob):
    visitor = Client()
    guest = _practise(visitor).host
    table = started_room(alice, [bob], game="ligretto-mini")
    assert visitor.get(table.get_absolute_url()).status_code == 200  # watching
    waiting = services.create_room(alice, "ligretto", 4)
    assert visitor.post(f"/rooms/{waiting.pk}/join/").status_code == 403
    assert not waiting.seat_set.filter(user=guest).exists()
    answer = visitor.post("/play/ligretto/")  # sign up first; his Play now is kept (item 9)
    assert answer.status_code == 302
    assert answer["Location"] == "/accounts/signup/?next=%2Fplay%2Fligretto%2F"
    assert visitor.get("/rooms/new/")["Location"] == "/accounts/signup/"
    assert visitor.get("/accounts/profile/")["Location"] == "/accounts/signup/"  # no tokens
    with pytest.raises(services.RoomError) as refusal:
        services.create_room(guest, "ligretto", 4)
    assert refusal.value.code == "guest"
    with pytest.raises(chat.ChatRefused):
        chat.post(table.pk, guest, "hello")
    assert chat.compose_context(guest)["signed_in"] is False  # the box says: read along


@pytest.mark.django_db(transaction=True)  # the bots' steps close old connections
def test_a_guest_is_never_on_a_leaderboard_and_keeps_his_match_when_he_signs_up(settings):
    visitor = Client()
    room = _practise(visitor)
    guest = room.host
    _play_out(room, settings)
    assert guest.pk not in [s.user_id for s in history.leaderboard("ligretto-mini")]
    assert guest not in [u for u, _ in ratings.leaderboard("ligretto-mini")]
    answer = visitor.post(
        "/accounts/signup/", {"username": "gina", "password1": PASSWORD, "password2": PASSWORD}
    )
    assert answer.status_code == 302
    gina = get_user_model().objects.get(pk=guest.pk)
    assert gina.username == "gina" and not guests.is_guest(gina) and gina.check_password(PASSWORD)
    page = visitor.get("/players/gina/").content.decode()
    assert f'href="/rooms/{room.pk}/sheet/"' in page
    assert visitor.get("/").wsgi_request.user.username == "gina"  # still signed in
    assert 'id="play-now-ligretto"' in visitor.get("/").content.decode()


def test_guests_are_made_per_address_no_faster_than_the_limit(settings):
    settings.GUESTS_PER_ADDRESS = 2
    for _ in range(2):
        _practise(Client())
    third = Client()
    answer = third.post("/practise/ligretto-mini/", {"level": "fast"}, follow=True)
    assert "Too many guests came from your address" in answer.content.decode()
    assert get_user_model().objects.filter(username__startswith="guest-").count() == 2


def test_a_bad_practice_request_makes_no_guest():
    answer = Client().post("/practise/ligretto-mini/", {"level": "godlike"})
    assert answer.status_code == 302
    assert not get_user_model().objects.filter(username__startswith="guest-").exists()


def test_nobody_may_sign_up_with_a_guests_name(alice):
    answer = Client().post(
        "/accounts/signup/",
        {"username": "guest-1234abcd", "password1": PASSWORD, "password2": PASSWORD},
    )
    assert answer.status_code == 400 and "kept for guests" in answer.content.decode()
    assert client_for(alice).get("/").status_code == 200


def test_a_guests_table_lists_no_made_up_rating_and_his_chat_says_to_sign_up():
    """Issue 45 item 12: his unrated table said "guest-… 1500?", and his chat box told him
    that spectators without an account cannot chat, though he is seated."""
    visitor = Client()
    room = _practise(visitor)
    page = visitor.get(room.get_absolute_url()).content.decode()
    assert 'id="table-ratings"' not in page and "1500" not in page
    assert "Guests read along;" in page and "Spectators without an account" not in page
    assert 'href="/accounts/signup/"' in page
