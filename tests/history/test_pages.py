"""The score sheet, player and leaderboard pages: the right numbers, the chart, 404s."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from lobby import services
from tables.models import Match
from tests.conftest import client_for
from tests.history.factories import played_match

pytestmark = pytest.mark.django_db


def _cells(html: str, row: str) -> list[str]:
    return re.findall(rf'<tr data-round="{row}">.*?</tr>', html, re.S)


def test_the_sheet_shows_each_rounds_points_the_totals_the_winner_and_the_chart(alice, bob):
    match = played_match("ligretto-mini", [alice, bob, "easy"], [[10, -2, 4], [3, 8, -5]])
    html = Client().get(f"/rooms/{match.room_id}/sheet/").content.decode()
    assert re.findall(r'data-points="(-?\d+)"', html) == ["10", "-2", "4", "3", "8", "-5"]
    assert re.findall(r'data-total="(-?\d+)"', html) == ["13", "6", "-1"]
    assert re.search(r'class="winner" data-seat="0">alice</strong>\s*wins', html)
    assert '<svg class="chart totals-chart"' in html and "alice (13)" in html
    # People link to their pages; the bot is marked as one.
    assert '<a href="/players/alice/">alice</a>' in html
    assert 'Easy bot 3 <span class="tag">bot</span>' in html
    assert 'style="' not in html.split("<svg", 1)[1].split("</svg>", 1)[0]


def test_a_closed_matchs_sheet_says_why_it_has_no_winner(alice, bob):
    match = played_match(
        "ligretto",
        [alice, bob],
        [[4, 2]],
        status=Match.Status.CLOSED,
        closed_reason="Closed by a moderator: <b>spam</b>",
    )
    html = Client().get(f"/rooms/{match.room_id}/sheet/").content.decode()
    assert "No winner: this match was stopped before its end." in html
    assert "Closed by a moderator: &lt;b&gt;spam&lt;/b&gt;" in html
    assert 'class="winner"' not in html


def test_a_sheet_is_404_for_an_unknown_room_and_for_a_room_that_never_started(alice):
    assert Client().get("/rooms/999999/sheet/").status_code == 404
    room = services.create_room(alice, "ligretto-mini", 2)
    assert Client().get(f"/rooms/{room.pk}/sheet/").status_code == 404


def test_the_rematch_button_is_on_a_finished_sheet_for_its_players_only(alice, bob, eve):
    match = played_match("ligretto", [alice, bob], [[4, 2]])
    url = f"/rooms/{match.room_id}/sheet/"
    assert 'id="rematch"' in client_for(bob).get(url).content.decode()
    assert 'id="rematch"' not in client_for(eve).get(url).content.decode()
    assert 'id="rematch"' not in Client().get(url).content.decode()


def test_a_player_page_shows_his_record_his_matches_and_his_chart(alice, bob):
    played_match("ligretto-mini", [alice, bob], [[10, 2], [6, 0]])
    played_match("ligretto-mini", [alice, bob], [[1, 5]])
    closed = played_match("allegra", [alice, bob], [[9, 9]], status=Match.Status.CLOSED)
    html = Client().get("/players/alice/").content.decode()
    row = re.search(r'<tr data-game="ligretto-mini">.*?</tr>', html, re.S).group(0)
    assert '<td class="matches">2</td>' in row and '<td class="wins">1</td>' in row
    assert '<td class="average">5.7</td>' in row  # 17 points over 3 rounds
    assert 'data-game="allegra"' not in html  # only a closed match there: no record
    assert f'href="/rooms/{closed.room_id}/sheet/"' in html  # but listed, with its sheet
    assert 'id="player-chart-ligretto-mini"' in html and "<svg" in html


def test_a_player_page_is_404_for_an_unknown_or_banned_user(alice):
    assert Client().get("/players/nobody/").status_code == 404
    alice.is_active = False
    alice.save()
    assert Client().get("/players/alice/").status_code == 404


def test_the_leaderboard_has_a_tab_per_game_and_ranks_people(alice, bob):
    played_match("allegra", [alice, bob], [[30, 4]])
    html = Client().get("/leaderboard/allegra/").content.decode()
    assert html.count('<a href="/leaderboard/') >= 3 and 'aria-current="page"' in html
    order = re.findall(r'<tr data-username="(\w+)"', html)
    assert order == ["bob", "alice"]
    assert '<a href="/players/bob/">bob</a>' in html
    assert Client().get("/leaderboard/").status_code == 200
    assert Client().get("/leaderboard/poker/").status_code == 404


def test_my_own_row_and_page_link_on_the_leaderboard(alice, bob):
    played_match("ligretto", [alice, bob], [[30, 4]])
    html = client_for(bob).get("/leaderboard/ligretto/").content.decode()
    assert '<tr data-username="bob" class="me">' in html
    assert 'href="/players/bob/">Your page' in html


def test_a_private_matchs_sheet_is_for_its_people_only(alice, bob, eve):
    match = played_match("ligretto", [alice, bob], [[4, 2]], private=True)
    url = f"/rooms/{match.room_id}/sheet/"
    assert client_for(bob).get(url).status_code == 200
    assert client_for(eve).get(url).status_code == 404
    assert Client().get(url).status_code == 404
    # His page counts the match for everyone, but lists it only to those who may see it.
    for viewer, listed in ((client_for(alice), True), (client_for(eve), False)):
        html = viewer.get("/players/alice/").content.decode()
        assert '<td class="matches">1</td>' in html
        assert (f'href="{url}"' in html) is listed
    refused = client_for(eve).post(
        f"/rooms/{match.room_id}/rematch/", headers={"HX-Request": "true"}
    )
    assert refused.status_code == 404


def test_the_room_page_links_each_persons_name_to_his_page(alice, bob):
    room = services.create_room(alice, "ligretto", 3)
    services.add_bots(room.pk, alice, count=1, level="easy")
    html = client_for(bob).get(f"/rooms/{room.pk}/").content.decode()
    assert '<a href="/players/alice/"><span class="name">alice</span></a>' in html
    assert '<span class="name">Easy bot 2</span>' in html
