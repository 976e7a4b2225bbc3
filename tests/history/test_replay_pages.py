"""The replay page: a round step by step as a spectator saw it, linked, private like its room."""

from __future__ import annotations

import pytest

from lobby import services
from tables import play
from tables.live import rooms
from tables.models import ActionLog, Match
from tests.conftest import client_for, make_user
from tests.tables.helpers import started_room

pytestmark = pytest.mark.django_db


def _played(alice, bob, **kw):
    """A one-round Mini match alice and bob play to its end (both flip, then close it out)."""
    room = started_room(alice, [bob], game="ligretto-mini", rounds=1, **kw)
    play.act(room.pk, 0, {"type": "flip"})
    play.act(room.pk, 1, {"type": "flip"})
    return room


def test_it_steps_through_a_round_as_a_spectator(alice, bob):
    room = _played(alice, bob)
    play.close_match(room.pk, "Stopped for the test.")  # over: its rounds may be watched
    eve = client_for(make_user("eve"))
    page = eve.get(f"/rooms/{room.pk}/replay?round=1&step=1")
    assert page.status_code == 200
    html = page.content.decode()
    assert 'id="replay-board"' in html and 'id="lg-center"' in html
    assert "<strong>alice</strong>" in html and "flips the hand" in html
    assert 'id="move-2"' in html and 'id="lg-me"' not in html
    board = eve.get(f"/rooms/{room.pk}/replay?round=1&step=2&part=board").content.decode()
    assert board.lstrip().startswith('<section id="lg-status"') and "<html" not in board
    # Out of range steps are clamped; nonsense is the first step.
    assert eve.get(f"/rooms/{room.pk}/replay?round=1&step=999").status_code == 200
    assert eve.get(f"/rooms/{room.pk}/replay?round=1&step=%D9%A3").status_code == 200
    assert eve.get(f"/rooms/{room.pk}/replay?round=7").status_code == 404


def test_a_round_being_played_cannot_be_watched_again_yet(alice, bob):
    room = _played(alice, bob)
    assert client_for(bob).get(f"/rooms/{room.pk}/replay").status_code == 404


def test_a_refused_play_is_listed_and_marked(alice, bob):
    room = _played(alice, bob)
    match = Match.objects.get(room_id=room.pk)
    first = ActionLog.objects.filter(match=match).first()
    ActionLog.objects.create(
        match=match,
        round=first.round,
        seat=1,
        action={"type": "play", "from": "stack"},
        version=first.version,
        refused="too_slow",
    )
    play.close_match(room.pk, "")
    html = client_for(alice).get(f"/rooms/{room.pk}/replay").content.decode()
    assert 'class="refused"' in html
    assert "refused: too slow: someone else got there first" in html


def test_a_private_rooms_replay_is_only_for_who_may_see_the_room(alice, bob):
    room = services.create_room(alice, "ligretto-mini", 2, {"rounds": 1}, private=True)
    services.join_room(room.pk, bob, invited=True)
    services.start_room(room.pk, alice)
    play.act(room.pk, 0, {"type": "flip"})
    play.close_match(room.pk, "")
    assert client_for(bob).get(f"/rooms/{room.pk}/replay").status_code == 200
    assert client_for(make_user("eve")).get(f"/rooms/{room.pk}/replay").status_code == 404
    assert rooms.read(room.pk) is not None


def test_the_sheet_and_the_player_page_link_to_the_replays(alice, bob):
    room = _played(alice, bob)
    play.close_match(room.pk, "")
    sheet = client_for(bob).get(f"/rooms/{room.pk}/sheet/").content.decode()
    assert f'id="sheet-replay" href="/rooms/{room.pk}/replay"' in sheet
    player = client_for(bob).get("/players/alice/").content.decode()
    assert f'href="/rooms/{room.pk}/replay"' in player
