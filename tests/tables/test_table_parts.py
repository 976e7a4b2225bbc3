"""Which parts of a live table are redrawn: every part whose drawing changes must change its key."""

from __future__ import annotations

import copy
import re
from datetime import timedelta

import pytest
from django.utils import timezone
from hypothesis import given
from hypothesis import strategies as st

from games.ligretto import layout
from tables.live import render, rooms
from tables.models import Player
from tests.conftest import make_user
from tests.tables.helpers import started_room

pytestmark = pytest.mark.django_db


def test_a_round_end_redraws_every_seat_header_with_its_new_total():
    alice, bob = make_user("alice"), make_user("bob")
    room = started_room(alice, [bob], game="ligretto")
    table = rooms.read(room.pk)
    before = table.view(None)
    after = copy.deepcopy(before)
    # A round's end: every total moves, the tableaus themselves may stay as they were.
    for p, points in zip(after["players"], (7, -4), strict=True):
        p["total"] += points
    old, new = layout.public_parts(before), layout.public_parts(after)
    for seat in (0, 1):
        assert old[f"seat-{seat}"] != new[f"seat-{seat}"]
        html = render.render_part(table, after, f"seat-{seat}")
        assert (
            f'<span class="total" title="Total points">{after["players"][seat]["total"]}</span>'
            in html
        )


def test_a_player_going_away_redraws_his_seat():
    alice, bob = make_user("alice"), make_user("bob")
    room = started_room(alice, [bob], game="ligretto")
    view = rooms.read(room.pk).view(None)
    away = copy.deepcopy(view)
    away["players"][1]["connected"] = not away["players"][1]["connected"]
    assert layout.public_parts(view)["seat-1"] != layout.public_parts(away)["seat-1"]
    assert layout.public_parts(view)["seat-0"] == layout.public_parts(away)["seat-0"]


def test_an_away_player_shows_when_his_stand_in_comes(settings):
    settings.LEAVER_GRACE = 30
    alice, bob = make_user("alice"), make_user("bob")
    room = started_room(alice, [bob], game="ligretto")
    gone = timezone.now()
    Player.objects.filter(match__room=room, seat=1).update(connections=0, away_since=gone)
    Player.objects.filter(match__room=room, seat=0).update(connections=1, away_since=None)
    rooms.forget(room.pk)
    table = rooms.read(room.pk)
    view = table.view(None)
    assert "away_until" not in view["players"][0]
    assert view["players"][1]["away_until"] == (gone + timedelta(seconds=30)).isoformat()
    html = render.render_part(table, view, "seat-1")
    assert f'data-until="{view["players"][1]["away_until"]}"' in html
    assert "a bot plays in" in html


@given(st.text(alphabet=st.sampled_from(["a", "<", ">", " ", "\n", "\t", "\r", "\xa0", "é"])))
def test_a_part_is_squeezed_as_a_whitespace_run_replaced_by_one_space_would_be(text):
    assert render.squeeze(text) == re.sub(r"\s+", " ", text)


@given(st.text())
def test_any_text_is_squeezed_so(text):
    assert render.squeeze(text) == re.sub(r"\s+", " ", text)
