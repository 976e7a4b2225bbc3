"""A real match played by bots to its end: its sheet, its live chart, the rematch notice."""

from __future__ import annotations

import re

import pytest
from asgiref.sync import sync_to_async
from django.test import Client

from lobby import services
from tables import history
from tables.driver import MatchBots
from tables.live import rooms
from tables.models import Match, RoundScore
from tests.conftest import client_for, make_user
from tests.tables.helpers import started_room, table_socket

pytestmark = pytest.mark.django_db(transaction=True)


def _play_to_end(room_id: int) -> None:
    bots = MatchBots(room_id)
    for _ in range(200_000):
        if bots.step() is None:
            return
    raise AssertionError("the match did not end")


def _finished_room(settings, game: str = "ligretto", **options):
    settings.LEAVER_GRACE = 0  # nobody opens the table: bots stand in for the people
    alice, bob = make_user("alice"), make_user("bob")
    room = started_room(alice, [bob], game=game, bots=1, **options)
    _play_to_end(room.pk)
    return alice, bob, room


def test_a_played_matchs_sheet_matches_its_score_rows_and_the_engine(settings):
    alice, bob, room = _finished_room(settings, rounds=2)
    match = Match.objects.get(room_id=room.pk)
    table = rooms.read(room.pk)
    sheet = history.match_sheet(match)
    assert [list(p) for p in table.state.scores] == [r.points for r in sheet.rounds]
    rows = RoundScore.objects.filter(round__match=match)
    assert sheet.totals == [sum(r.points for r in rows if r.seat == s) for s in range(3)]
    assert sheet.winners == table.view(None)["winners"]
    html = Client().get(f"/rooms/{room.pk}/sheet/").content.decode()
    assert re.findall(r'data-total="(-?\d+)"', html) == [str(t) for t in sheet.totals]


def test_the_live_table_shows_the_running_totals_chart_and_a_link_to_the_sheet(settings):
    alice, bob, room = _finished_room(settings, game="allegra", rounds=2)
    html = client_for(alice).get(f"/rooms/{room.pk}/").content.decode()
    chart = re.search(r'<div class="live-chart" id="al-chart">(.*?)</div>', html, re.S).group(1)
    assert '<svg class="chart totals-chart"' in chart
    totals = rooms.read(room.pk).view(None)["totals"]
    assert f"alice ({totals[0]})" in chart and f"bob ({totals[1]})" in chart
    # Relative links (the page is /rooms/<id>/): a pushed part is the same bytes in every room.
    assert html.count('href="sheet/"') == 2 and 'hx-post="rematch/"' in html


@pytest.mark.asyncio
async def test_the_others_at_the_old_table_see_the_rematch_live_and_on_reload(settings):
    alice, bob, room = await sync_to_async(_finished_room)(settings, rounds=1)
    socket = await table_socket(room.pk, bob)
    await socket.receive_from()  # the whole table
    while not await socket.receive_nothing(timeout=0.2):
        await socket.receive_from()
    rematch = await sync_to_async(services.rematch)(room.pk, alice)
    note = await socket.receive_from()
    while 'id="table-rematch"' not in note:
        note = await socket.receive_from()
    assert "<strong>alice</strong> opened a rematch" in note
    assert f'href="/rooms/{rematch.pk}/"' in note and f'hx-post="/rooms/{room.pk}/rematch/"' in note
    await socket.disconnect()
    page = await sync_to_async(lambda: client_for(bob).get(f"/rooms/{room.pk}/").content)()
    assert b"<strong>alice</strong> opened a rematch" in page


def test_the_winners_are_the_rules_word_kept_at_the_finish_and_backfilled_by_migration(settings):
    from importlib import import_module

    from django.apps import apps

    from tables.models import Player

    _alice, _bob, room = _finished_room(settings, game="allegra", rounds=1)
    named = rooms.read(room.pk).view(None)["winners"]
    won = list(Player.objects.filter(match__room=room, won=True).values_list("seat", flat=True))
    assert won == named and named  # marked by the write path from the match_finished event
    Player.objects.filter(match__room=room).update(won=False)
    import_module("tables.migrations.0002_player_won").mark_winners(apps, None)
    won = list(Player.objects.filter(match__room=room, won=True).values_list("seat", flat=True))
    assert won == named


@pytest.mark.asyncio
async def test_a_board_api_stream_at_the_old_table_hears_of_the_rematch_and_stays_open(settings):
    from api.models import ApiToken
    from tests.api.helpers import next_of, stream

    alice, bob, room = await sync_to_async(_finished_room)(settings, rounds=1)
    _, token = await sync_to_async(ApiToken.objects.issue)(bob, "bot")
    bobs = await stream(room.pk, token)
    await next_of(bobs, "view")
    rematch = await sync_to_async(services.rematch)(room.pk, alice)
    notice = await next_of(bobs, "rematch")
    assert notice == {"type": "rematch", "room": rematch.pk, "by": "alice"}
    await bobs.send_to(text_data='{"type": "sync"}')
    assert (await next_of(bobs, "view"))["view"]["status"] == "finished"  # still open
    await bobs.disconnect()
