"""What finished tables and waiting rooms say (issue 35, item 3): one test per fix.

A table that is over offers no way out of a match being played and shows nobody as away;
Allegra's simultaneous opening is nobody's turn; a full room does not wait for a host who went
away; quick play's start time is the reader's; the room form's live refresh keeps the CSRF
token out of its URL.
"""

from __future__ import annotations

import datetime as dt
import re
import zoneinfo

import pytest
from django.urls import reverse
from django.utils import timezone

from lobby import quickplay, services
from lobby.models import Room
from tables import play
from tables.live import render
from tests.conftest import client_for
from tests.tables.allegra_layouts import after_opening, short_round
from tests.tables.helpers import card, set_state, started_room, table

pytestmark = pytest.mark.django_db


def _finish(room_id: int) -> None:
    """Seat 0 plays its last stack card (the round ends), then everyone is ready."""

    def last_card(data):
        data["players"][0]["stack"] = [card("red", 1, 0)]
        return data

    set_state(room_id, last_card)
    play.act(room_id, 0, {"type": "play", "from": "stack"})
    for seat in range(len(table(room_id).players)):
        play.act(room_id, seat, {"type": "ready"})
    assert table(room_id).view(None)["status"] == "finished"


def _exits(room_id: int) -> str:
    t = table(room_id)
    return render.render_part(t, t.view(None), "exits")


def test_a_table_that_ends_takes_away_its_leave_and_close_buttons(alice, bob):
    room = started_room(alice, [bob], game="ligretto-mini", rounds=1)
    page = client_for(alice).get(room.get_absolute_url()).content.decode()
    exits = page[page.index('<div id="table-exits">') :]
    assert 'id="leave-table"' in exits and 'id="close-table"' in exits
    # While the match goes on, a pushed copy of the part leaves the page's buttons alone.
    assert 'id="table-exits" hx-swap-oob="none"' in _exits(room.pk)
    _finish(room.pk)
    # The push that ends the match replaces them with nothing.
    assert re.search(r'<div id="table-exits">\s*</div>', _exits(room.pk))
    t = table(room.pk)
    assert "exits" in render.layout_for(t.match.game).public_parts(t.view(None))
    page = client_for(alice).get(room.get_absolute_url()).content.decode()
    assert 'id="leave-table"' not in page and 'id="close-table"' not in page


def test_a_player_gone_to_the_rematch_is_not_shown_away_at_a_finished_table(alice, bob):
    room = started_room(alice, [bob], game="ligretto-mini", rounds=1)
    # Nobody has a socket open: both are away while the match is played.
    playing = client_for(alice).get(room.get_absolute_url()).content.decode()
    assert playing.count('class="tag away"') == 2
    _finish(room.pk)
    finished = client_for(alice).get(room.get_absolute_url()).content.decode()
    assert 'class="tag away"' not in finished and "a bot plays in" not in finished
    t = table(room.pk)
    seat_part = render.render_part(t, t.view(None), "seat-1")
    assert 'class="tag away"' not in seat_part


def test_allegra_s_simultaneous_opening_is_nobody_s_turn(alice, bob, carol):
    room = started_room(alice, [bob, carol], game="allegra", rounds=1)
    set_state(room.pk, short_round)
    t = table(room.pk)
    assert t.view(None)["phase"] == "opening"
    page = client_for(bob).get(room.get_absolute_url()).content.decode()
    assert 'class="tag turn"' not in page
    opening_parts = render.layout_for("allegra").public_parts(t.view(None))
    set_state(room.pk, after_opening)  # the opening done: alice (seat 0) draws first
    t = table(room.pk)
    page = client_for(bob).get(room.get_absolute_url()).content.decode()
    grid = page[page.index('id="al-grid-0"') : page.index('id="al-grid-1"')]
    assert page.count('class="tag turn"') == 1 and 'class="tag turn"' in grid
    # Her grid is redrawn when the opening ends, so that the tag appears.
    after = render.layout_for("allegra").public_parts(t.view(None))
    assert after["grid-0"] != opening_parts["grid-0"]


def test_quick_play_s_start_time_is_written_in_the_readers_zone(alice):
    room = services.create_room(alice, "ligretto", 4)
    due = (timezone.now() + dt.timedelta(hours=1)).replace(minute=30, second=0, microsecond=0)
    Room.objects.filter(pk=room.pk).update(quick_fill_at=due)
    seoul = due.astimezone(zoneinfo.ZoneInfo("Asia/Seoul"))
    client = client_for(alice)
    client.cookies["tz"] = "Asia%2FSeoul"  # as the page's script writes it
    page = client.get(room.get_absolute_url(), headers={"Accept-Language": "ko"}).content.decode()
    stamp = re.search(r'<span id="quick-fill"[^>]*>.*?</span>', page, re.S).group(0)
    assert 'data-zone="Asia/Seoul"' in stamp and "KST" in stamp
    assert f"{seoul:%H}:30" in stamp or f"{seoul.hour % 12 or 12}:30" in stamp
    assert f"{due:%H}:30" not in stamp.split(">", 2)[-1]  # not the server's (UTC) hour
    # A zone the browser did not name, or no cookie, is UTC and says so.
    client.cookies["tz"] = "Mars/Olympus"
    page = client.get(room.get_absolute_url()).content.decode()
    assert 'data-zone="UTC"' in page and "UTC</time>" in page


def test_the_room_form_s_live_refresh_keeps_the_csrf_token_out_of_its_url(alice):
    page = client_for(alice).get(reverse("lobby:create")).content.decode()
    refresh = re.search(r"<div id=\"game-options\"[^>]*>", page).group(0)
    assert 'hx-get="' in refresh and 'hx-include="closest form"' in refresh
    assert 'hx-params="not csrfmiddlewaretoken"' in refresh
    # Every other GET the form makes sends only its own field.
    for tag in re.findall(r"<[^>]*hx-get=[^>]*>", page):
        assert "hx-include" not in tag or "not csrfmiddlewaretoken" in tag


def test_leaving_a_match_asks_first_says_what_it_does_and_goes_to_the_lobby(alice, bob):
    """Issue 45 item 5: the only person at a table is told the match ends, and it does;
    with another person there a bot plays on. Either way the lobby then says what happened."""
    practice = quickplay.practise(alice, "ligretto-mini", "normal")
    me = client_for(alice)
    page = me.get(practice.get_absolute_url()).content.decode()
    assert "Leave the table (the match ends)" in page
    assert 'hx-confirm="Leave the table? Nobody else plays here: the match ends now' in page
    answer = me.post(reverse("lobby:leave", args=[practice.pk]))
    assert answer.status_code == 302 and answer["Location"] == "/"
    assert Room.objects.get(pk=practice.pk).status == Room.Status.CLOSED
    lobby = me.get("/").content.decode()
    assert f"You left room {practice.pk}; nobody else played there" in lobby

    room = started_room(alice, [bob], game="ligretto-mini", rounds=3)
    page = me.get(room.get_absolute_url()).content.decode()
    assert "Leave the table (a bot takes your seat)" in page
    assert 'hx-confirm="Leave the table? A bot plays your seat to the end' in page
    # From the page's htmx form: the whole page goes to the lobby.
    answer = me.post(reverse("lobby:leave", args=[room.pk]), headers={"HX-Request": "true"})
    assert answer["HX-Redirect"] == "/"
    assert Room.objects.get(pk=room.pk).status == Room.Status.PLAYING
    assert f"You left room {room.pk}; a bot plays your seat" in me.get("/").content.decode()
