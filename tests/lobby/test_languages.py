"""The site in four languages: the browser's by default, a choice kept in the session and the
profile, and the same words everywhere (pages, forms, refusals, the Board API's sentences)."""

from __future__ import annotations

import json

import pytest
from django.test import Client

from lobby import services
from lobby.models import Profile
from tests.api.helpers import Api
from tests.conftest import PASSWORD

pytestmark = [pytest.mark.django_db, pytest.mark.any_store]


def test_the_browser_language_is_the_default():
    client = Client()
    page = client.get("/", headers={"Accept-Language": "de-CH,de;q=0.9,en;q=0.5"})
    assert page["Content-Language"] == "de"
    assert '<html lang="de">' in page.content.decode()
    assert "Bestenliste" in page.content.decode()
    assert "Accept-Language" in page["Vary"]


def test_an_unknown_language_falls_back_to_english():
    page = Client().get("/", headers={"Accept-Language": "fr"})
    assert page["Content-Language"] == "en" and "Leaderboard" in page.content.decode()


def test_the_switcher_is_on_every_page_and_each_language_names_itself():
    html = Client().get("/accounts/login/").content.decode()
    assert 'id="language-switcher"' in html
    for code, name in (("en", "English"), ("de", "Deutsch"), ("ru", "Русский"), ("ko", "한국어")):
        assert f'value="{code}" lang="{code}"' in html and name in html


def test_a_choice_outranks_the_browser_and_is_kept_in_the_session():
    client = Client()
    answer = client.post("/language/", {"language": "ko", "next": "/leaderboard/"})
    assert answer.status_code == 302 and answer["Location"] == "/leaderboard/"
    page = client.get("/", headers={"Accept-Language": "ru"})
    assert page["Content-Language"] == "ko" and "순위표" in page.content.decode()


def test_the_switcher_refuses_to_send_you_off_site_or_to_an_unknown_language():
    client = Client()
    answer = client.post("/language/", {"language": "xx", "next": "https://evil.example/"})
    assert answer["Location"] == "/"
    assert client.get("/")["Content-Language"] == "en"


def test_a_signed_in_choice_is_kept_in_the_profile_and_comes_back_at_login(alice):
    client = Client()
    client.force_login(alice)
    client.post("/language/", {"language": "ru", "next": "/"})
    assert Profile.objects.get(user=alice).language == "ru"
    client.post("/accounts/logout/")

    later = Client()  # another browser, which asks for German
    later.post("/accounts/login/", {"username": "alice", "password": PASSWORD})
    page = later.get("/", headers={"Accept-Language": "de"})
    assert page["Content-Language"] == "ru" and "Лобби" in page.content.decode()


def test_a_choice_made_before_signing_in_is_kept_for_later(bob):
    client = Client()
    client.post("/language/", {"language": "de", "next": "/"})
    client.post("/accounts/login/", {"username": "bob", "password": PASSWORD})
    assert Profile.objects.get(user=bob).language == "de"


def test_form_labels_help_and_errors_are_translated(alice):
    client = Client()
    client.force_login(alice)
    client.post("/language/", {"language": "de", "next": "/"})
    form = client.get("/rooms/new/?game=ligretto").content.decode()
    assert "Raum eröffnen" in form and "Punkteziel" in form
    assert "Wer zuerst 99 Punkte hat" in form  # how the match ends, worded by the site
    refused = client.post("/rooms/new/", {"game": "ligretto-mini", "seats": "3"})
    assert refused.status_code == 400
    assert "Dieses Spiel braucht 2 Spieler." in refused.content.decode()  # the engine's refusal


def test_russian_plurals_on_the_room_page(alice, bob):
    room = services.create_room(alice, "ligretto", 5)
    services.join_room(room.pk, bob)
    client = Client()
    client.force_login(alice)
    client.post("/language/", {"language": "ru", "next": "/"})
    page = client.get(room.get_absolute_url()).content.decode()
    assert "Ждём игроков: занято 2 из 5 мест." in page


@pytest.mark.parametrize(
    ("language", "title"),
    [
        ("en", "How to play Ligretto"),
        ("de", "So spielt man Ligretto"),
        ("ru", "Как играть в «Лигретто»"),
        ("ko", "리그레토 게임 방법"),
    ],
)
def test_every_how_to_page_speaks_every_language(language, title):
    client = Client()
    client.post("/language/", {"language": language, "next": "/"})
    for game in ("ligretto-mini", "ligretto", "allegra"):
        page = client.get(f"/how-to-play/{game}/")
        assert page.status_code == 200
        assert "<svg" in page.content.decode() and 'id="keys"' in page.content.decode()
    assert f"<h1>{title}</h1>" in client.get("/how-to-play/ligretto/").content.decode()


def test_the_how_to_pages_are_linked_from_the_room_form_and_the_room(alice):
    client = Client()
    client.force_login(alice)
    form = client.get("/rooms/new/").content.decode()
    for game in ("ligretto-mini", "ligretto", "allegra"):
        assert f'href="/how-to-play/{game}/"' in form
    room = services.create_room(alice, "allegra", 3)
    assert 'href="/how-to-play/allegra/"' in client.get(room.get_absolute_url()).content.decode()
    assert Client().get("/how-to-play/chess/").status_code == 404


def test_the_board_api_words_its_errors_in_the_callers_language_and_keeps_the_code(alice):
    api = Api(alice)
    answer = api.client.post(
        "/api/v1/rooms",
        json.dumps({"game": "allegra", "seats": 7}),
        content_type="application/json",
        headers={**api._headers(), "Accept-Language": "ko"},
    )
    error = answer.json()["error"]
    assert error["code"] == "invalid_seats"
    assert error["message"] == "알레그라는 2~6명이 합니다."
    english = api.post("rooms", {"game": "allegra", "seats": 7}).json()["error"]
    assert english["message"] == "Allegra is played by 2 to 6 players."
