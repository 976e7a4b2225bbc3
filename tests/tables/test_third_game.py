"""A game that only the tests know (High Card, tests/thirdgame) plays end to end.

It is registered by one line of the test settings (EXTRA_GAMES) and no shared file names it:
rooms made through the Board API, moves through the socket, the API and a bot (all the one
write path), pushes to a player and a spectator, the score sheet page and the API's.
"""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path

import pytest
from asgiref.sync import sync_to_async
from django.core.management import call_command

from games.registry import GAMES
from tables.driver import MatchBots
from tables.live import rooms
from tables.models import ActionLog
from tests.api.helpers import Api
from tests.conftest import client_for, make_user
from tests.tables.helpers import table_socket, version_of

ROOT = Path(__file__).resolve().parents[2]
SHARED = (
    "api",
    "cardgames",
    "chat",
    "games",
    "lobby",
    "moderation",
    "tables",
    "templates",
    "static",
)
VALUE = re.compile(r'data-value="(\d+)"')


def test_no_shared_file_names_the_third_game():
    names = ("highcard", "high card", "thirdgame")
    for folder in SHARED:
        for path in (ROOT / folder).rglob("*"):
            if path.is_file() and path.suffix in (".py", ".html", ".js", ".css", ".md", ".toml"):
                text = path.read_text(errors="replace").lower()
                assert not any(n in text for n in names), f"{path} names the third game"


def test_the_third_game_is_registered_by_the_test_settings_alone():
    assert GAMES["highcard"].package == "tests.thirdgame"
    assert GAMES["highcard"].bot_levels == ("easy", "normal")


@pytest.mark.django_db
def test_a_new_game_needs_no_migration():
    # With the third game registered, the models are exactly what the migrations say.
    call_command("makemigrations", "--check", "--dry-run", verbosity=0)


def _open(alice, bob):
    host, guest = Api(alice), Api(bob)
    made = host.post("rooms", {"game": "highcard", "seats": 3, "options": {"rounds": 2}})
    assert made.status_code == 201, made.content
    room_id = made.json()["id"]
    assert guest.post(f"rooms/{room_id}/join").status_code == 200
    assert host.post(f"rooms/{room_id}/bots", {"count": 1, "level": "normal"}).status_code == 200
    assert host.post(f"rooms/{room_id}/start").status_code == 200
    return room_id, guest


async def _drain(socket) -> list[str]:
    frames = []
    while not await socket.receive_nothing(timeout=0.3):
        frames.append(await socket.receive_from())
    return frames


async def _until(socket, version: int) -> list[str]:
    """The frames `socket` gets up to the one that shows `version` (pushes may lag: Redis)."""
    frames = []
    while True:
        frames.append(await socket.receive_from(timeout=10))
        if 'data-version="' in frames[-1] and version_of(frames[-1]) >= version:
            return frames


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_a_third_game_match_plays_to_its_end_through_every_door():
    alice, bob, eve = [await sync_to_async(make_user)(n) for n in ("alice", "bob", "eve")]
    room_id, guest = await sync_to_async(_open)(alice, bob)
    load = sync_to_async(lambda: rooms.read(room_id))
    mine = await table_socket(room_id, alice)
    watcher = await table_socket(room_id, eve)
    try:
        first = await mine.receive_from()
        table = await load()
        # Her own hand, and no other card: the other hands are counts (a hidden hand, unlike the
        # site's games, so her part must come from her own view).
        assert 'id="hc-me"' in first and 'id="hc-trick"' in first
        assert sorted(int(v) for v in VALUE.findall(first)) == sorted(table.state.hands[0])
        spectator_first = await watcher.receive_from()
        assert 'id="hc-me" class="watching"' in spectator_first and not VALUE.findall(
            spectator_first
        )
        await _drain(mine)
        await _drain(watcher)

        bots = MatchBots(room_id)
        held = set(table.state.hands[0])
        for _ in range(60):
            table = await load()
            view = table.view(None)
            if view["status"] == "finished":
                break
            if view["status"] == "round_over":
                waiting = [s for s in (0, 1) if s not in view["ready"]]
                seat, action = (waiting[0], {"type": "ready"}) if waiting else (2, None)
            else:
                seat, action = view["turn"], {"type": "play", "index": 0}
            before = table.version
            if seat == 0:
                await mine.send_to(text_data=json.dumps(action))
            elif seat == 1:
                answer = await sync_to_async(guest.post)(
                    f"rooms/{room_id}/actions", {"action": action}
                )
                assert answer.status_code == 200, answer.content
            else:
                while (await load()).version == before:
                    await sync_to_async(bots.step)()
            for _ in range(200):  # a move sent on the socket is applied as the consumer gets it
                table = await load()
                if table.version > before:
                    break
                await asyncio.sleep(0.05)
            assert table.version > before, "the move was not applied"
            # Both sockets get the change; the spectator sees the trick (face up), never a card of
            # a hand, and the player only his own cards (those he holds now or held before it).
            frames = await _until(watcher, table.version)
            assert all(not VALUE.findall(_without_trick(f)) for f in frames)
            now = set(table.state.hands[0])
            for frame in await _until(mine, table.version):
                assert {int(v) for v in VALUE.findall(_without_trick(frame))} <= held | now
            held = now
        else:
            raise AssertionError("the match did not end")
        assert table.view(None)["winners"]
    finally:
        await mine.disconnect()
        await watcher.disconnect()

    # Every door was used: the socket (seat 0), the API (seat 1) and the bot (seat 2).
    log = await sync_to_async(
        lambda: set(ActionLog.objects.filter(match__room_id=room_id).values_list("seat", "by_bot"))
    )()
    assert log == {(0, False), (1, False), (2, True)}
    body, page = await sync_to_async(_sheets)(alice, room_id)
    assert body["game"] == "highcard" and len(body["rounds"]) == 2
    assert body["totals"] == table.view(None)["totals"]
    assert sum(body["totals"]) == 6  # three tricks a round, two rounds
    assert body["winners"] == table.view(None)["winners"]
    assert "High Card" in page and "The highest total wins." in page


def _sheets(user, room_id: int) -> tuple[dict, str]:
    """The Board API's score sheet and the sheet page, as `user` gets them."""
    api = Api(user).get(f"rooms/{room_id}/scores")
    assert api.status_code == 200, api.content
    page = client_for(user).get(f"/rooms/{room_id}/sheet/")
    assert page.status_code == 200
    return api.json(), page.content.decode()


def _without_trick(frame: str) -> str:
    """The frame without its trick section (the cards played face up)."""
    return re.sub(r'<section id="hc-trick".*?</section>', "", frame, flags=re.S)


@pytest.mark.django_db
def test_the_third_game_has_its_name_and_how_to_page_through_the_registry(client):
    page = client.get("/how-to-play/highcard/")
    assert page.status_code == 200
    html = page.content.decode()
    assert "<h1>How to play High Card</h1>" in html and 'id="H2"' in html
    # The other games' pages list it among the games, by its own name.
    assert ">High Card</a>" in client.get("/how-to-play/allegra/").content.decode()
    assert client.get("/how-to-play/nosuchgame/").status_code == 404
