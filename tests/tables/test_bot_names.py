"""A bot's name in each reader's language (issue 45, item 1): worded where it is shown, from
the seat's bot level and number, never a sentence stored in the starter's language; the
Board API keeps one stable name."""

from __future__ import annotations

import importlib

import pytest
from django.apps import apps
from django.test import Client
from django.utils import translation

from tables import play
from tables.live import render
from tables.models import Player
from tests.conftest import client_for, make_user
from tests.tables.helpers import started_room, table

pytestmark = pytest.mark.django_db

NORMAL_BOT_3 = {
    "en": "Normal bot 3",
    "de": "Normaler Bot 3",
    "ru": "Обычный бот 3",
    "ko": "보통 봇 3",
}


@pytest.fixture(autouse=True)
def _language_kept():
    # A request leaves its language active in this thread: the tests after must not read Korean.
    with translation.override(translation.get_language()):
        yield


def _a_match_started_in(code: str, game: str = "ligretto"):
    alice, bob = make_user("alice"), make_user("bob")
    with translation.override(code):
        return started_room(alice, [bob], game=game, bots=1, rounds=2), alice


def test_a_bots_stored_name_is_the_same_whoever_starts_the_match():
    room, _ = _a_match_started_in("de")
    bot = Player.objects.get(match__room=room, seat=2)
    assert bot.name == "Normal bot 3"
    with translation.override("ko"):
        names = [p["name"] for p in table(room.pk).view(None)["players"]]
    assert names == ["alice", "bob", "Normal bot 3"]  # the view the Board API sends


def test_a_pushed_part_says_the_bots_name_in_each_readers_language():
    # A push draws its public parts once per language its readers use, each from a context
    # built in that language (tables.live.render.change): the layouts join and format names.
    room, _ = _a_match_started_in("de")
    t = table(room.pk)
    view = t.view(None)
    layout = render.layout_for(t.match.game)
    parts = render.outer(layout, layout.public_parts(view))
    for code, name in NORMAL_BOT_3.items():
        with translation.override(code):
            html = "".join(render.render_part(t, view, part) for part in parts)
        assert name in html, code
        others = set(NORMAL_BOT_3.values()) - {name}
        assert not [n for n in others if n in html], code


@pytest.mark.parametrize("code", ["de", "ru", "ko"])
def test_the_sheet_and_the_replay_say_the_bots_name_in_the_readers_language(code):
    room, alice = _a_match_started_in("en")
    play.act(room.pk, 0, {"type": "flip"})
    play.close_match(room.pk, "")
    for url in (f"/rooms/{room.pk}/sheet/", f"/rooms/{room.pk}/replay"):
        html = client_for(alice).get(url, headers={"Accept-Language": code}).content.decode()
        assert NORMAL_BOT_3[code] in html, url
        assert "Normal bot" not in html, url
    spectator = Client().get(room.get_absolute_url(), headers={"Accept-Language": code})
    assert NORMAL_BOT_3[code] in spectator.content.decode()


def test_the_migration_gives_old_bots_the_stable_name():
    room, _ = _a_match_started_in("en")
    Player.objects.filter(match__room=room, seat=2).update(name="Normaler Bot 3")
    migration = importlib.import_module("tables.migrations.0011_stable_bot_names")
    migration.stable_names(apps, None)
    assert Player.objects.get(match__room=room, seat=2).name == "Normal bot 3"
    assert Player.objects.get(match__room=room, seat=0).name == "alice"
