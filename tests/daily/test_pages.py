"""The daily challenge's pages: today's page, the start, and what the lobby and the player page
show of it (drawn by this app's tags in their own answers)."""

from __future__ import annotations

import pytest

from daily.models import Attempt
from tests.conftest import client_for
from tests.daily.helpers import play_round
from tests.test_every_word import LANGUAGES, _check, _page

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _frozen_day(settings):
    settings.DAILY_NOW = "2026-12-05T22:30:00+00:00"


def test_the_page_shows_the_commitment_the_button_and_the_countdown(client):
    page = client.get("/daily/").content.decode()
    assert 'id="daily-commitment"' in page and 'id="daily-play"' in page
    assert 'data-countdown="5400"' in page and "1:30:00" in page  # 90 minutes to midnight UTC
    assert "midnight UTC" in page and 'id="daily-guest-note"' in page
    assert 'id="daily-board-empty"' in page and 'id="daily-yesterday-seed"' in page


def test_a_member_plays_once_then_sees_his_result_and_a_second_start_is_refused(alice):
    browser = client_for(alice)
    started = browser.post("/daily/play/")
    attempt = Attempt.objects.get(user=alice)
    assert started["Location"] == f"/rooms/{attempt.room_id}/"
    page = browser.get("/daily/").content.decode()
    assert 'id="daily-play"' not in page and "its round is being played" in page
    play_round(attempt.room_id)
    page = browser.get("/daily/").content.decode()
    assert "You played:" in page and 'data-username="alice"' in page
    rows = browser.get("/daily/board/").content.decode()
    assert 'id="daily-today-rows"' in rows and 'data-username="alice"' in rows
    assert "<html" not in rows
    again = browser.post("/daily/play/")
    assert again.status_code == 409
    text = again.content.decode()
    assert 'id="daily-refusal"' in text and "one attempt a day" in text
    assert f'href="/rooms/{attempt.room_id}/" id="daily-refusal-result"' in text


def test_the_page_speaks_the_readers_language(alice):
    browser = client_for(alice)
    page = browser.get("/daily/", headers={"Accept-Language": "de"}).content.decode()
    assert "Tagesaufgabe" in page


def test_the_lobby_and_the_player_page_show_the_box_and_the_streak_in_their_own_answer(
    client, alice
):
    lobby = client.get("/").content.decode()
    assert 'id="daily-box"' in lobby and "0 players so far" in lobby
    assert "Play today's deal" in lobby
    player = client.get("/players/alice/").content.decode()
    assert 'id="daily-streak"' in player and "No daily challenge played yet." in player
    client_for(alice).post("/daily/play/")
    assert "1 player so far" in client.get("/").content.decode()
    assert "See your result" in client_for(alice).get("/").content.decode()
    player = client.get("/players/alice/").content.decode()
    assert 'data-current="1"' in player and 'data-best="1"' in player
    # What used to be loaded after the page has no address of its own any more.
    assert client.get("/daily/lobby/").status_code == 404
    assert client.get("/daily/streak/alice/").status_code == 404


def test_todays_runs_cannot_be_watched_before_the_reveal(alice, bob):
    client_for(alice).post("/daily/play/")
    room = Attempt.objects.get().room_id
    assert client_for(bob).get(f"/daily/2026-12-05/replay/{room}/").status_code == 404
    assert client_for(bob).get(f"/daily/2026-12-04/replay/{room}/").status_code == 404
    assert client_for(bob).get(f"/daily/20261205/replay/{room}/").status_code == 404


@pytest.mark.parametrize("code", LANGUAGES)
def test_every_daily_page_speaks_only_the_readers_language(code, alice, bob, carol, settings):
    settings.DAILY_NOW = "2026-12-04T12:00:00+00:00"
    client_for(bob).post("/daily/play/")
    play_round(Attempt.objects.get(user=bob).room_id)  # yesterday's board, with its replay
    settings.DAILY_NOW = "2026-12-05T12:00:00+00:00"
    client_for(alice).post("/daily/play/")
    play_round(Attempt.objects.get(user=alice, day="2026-12-05").room_id)
    refused = client_for(alice).post("/daily/play/", headers={"Accept-Language": code})
    assert refused.status_code == 409
    pages = {
        "daily, played": _page(alice, "/daily/", code),
        "daily, visitor": _page(None, "/daily/", code),
        "daily, refused": refused.content.decode(),
        "today's board": _page(None, "/daily/board/", code),
        "lobby with the box": _page(alice, "/", code),
        "streak": _page(None, "/players/alice/", code),
        "no streak": _page(None, f"/players/{carol.username}/", code),
    }
    assert 'id="daily-board-yesterday"' in pages["daily, visitor"]
    _check(pages, code)
