"""Races told (issue 42, docs/fairness.md): the play that lost a race hears who took the card
and how much earlier the winner's play reached the server, on the table socket (in its
reader's language) and over the Board API (HTTP and stream), equal to the logged receipts."""

from __future__ import annotations

import asyncio
import copy
import json
import random
import re

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator

from api.models import ApiToken
from cardgames.asgi import application
from tables.live import rooms
from tables.models import ActionLog, Match
from tests.api.helpers import Api, next_of, stream
from tests.conftest import make_user
from tests.tables.helpers import ORIGIN, dumped_state, race_layout, set_state, started_room

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]

PLAY_4 = {"type": "play", "from": "row", "index": 0, "pile": 0}


@pytest.fixture(autouse=True)
def _no_driver(settings):
    settings.BOT_DRIVER = False  # every version is one of the test's own changes


async def _cast():
    alice = await sync_to_async(make_user)("alice")
    bob = await sync_to_async(make_user)("bob")
    room = await sync_to_async(started_room)(alice, [bob])
    return alice, bob, room


def _race_rows(room_id: int, since: int) -> tuple[ActionLog, ActionLog]:
    """The last race's two log rows: the winner's, the loser's."""
    rows = list(ActionLog.objects.filter(match__room_id=room_id, version__gt=since).order_by("id"))
    won = [r for r in rows if not r.refused]
    lost = [r for r in rows if r.refused == "too_slow"]
    assert len(won) == 1 and len(lost) == 1, [(r.seat, r.refused) for r in rows]
    return won[0], lost[0]


async def _table_socket(room_id: int, user, language: str) -> WebsocketCommunicator:
    headers = [*ORIGIN, (b"accept-language", language.encode())]
    socket = WebsocketCommunicator(application, f"/ws/rooms/{room_id}/table/", headers=headers)
    socket.scope["user"] = user
    connected, _ = await socket.connect(timeout=10)
    assert connected
    return socket


async def _drain(socket: WebsocketCommunicator) -> list[str]:
    frames = []
    while not await socket.receive_nothing(timeout=0.2):
        frames.append(await socket.receive_from())
    return frames


async def test_the_loser_of_a_race_is_told_who_took_it_and_how_much_earlier():
    alice, bob, room = await _cast()
    dealt = await sync_to_async(dumped_state)(room.pk)
    # Alice reads English, Bob German: each loser hears it in his own language.
    a = await _table_socket(room.pk, alice, "en")
    b = await _table_socket(room.pk, bob, "de")
    await _drain(a), await _drain(b)
    names = ("alice", "bob")
    frame = {**PLAY_4, "HEADERS": {"HX-Trigger": "me-row-0"}}
    losers = set()
    for _ in range(6):
        await sync_to_async(set_state)(room.pk, lambda _: race_layout(copy.deepcopy(dealt)))
        before = await sync_to_async(lambda: Match.objects.get(room_id=room.pk).version)()
        # The same instant: both frames are sent before either is handled.
        await asyncio.gather(
            a.send_to(text_data=json.dumps(frame)), b.send_to(text_data=json.dumps(frame))
        )
        frames = {0: await _drain(a), 1: await _drain(b)}
        won, lost = await sync_to_async(_race_rows)(room.pk, before - 1)
        assert won.seat != lost.seat and won.received is not None and lost.received is not None
        margin = (lost.received - won.received) // 1000
        assert margin >= 0  # the winner's play reached the server first
        flash = [f for f in frames[lost.seat] if 'data-code="too_slow"' in f]
        assert len(flash) == 1, frames[lost.seat]
        assert f'data-taken-by="{names[won.seat]}"' in flash[0]
        assert f'data-earlier-ms="{margin}"' in flash[0]
        said = re.search(r">([^<]*)</div>", flash[0]).group(1)
        if lost.seat == 0:
            assert said == f"Taken by bob, {margin} ms earlier: red 4."
        else:
            assert said == f"Genommen von alice, {margin} ms früher: rot 4."
        assert not any('data-code="too_slow"' in f for f in frames[won.seat])
        losers.add(lost.seat)
    for s in (a, b):
        await s.disconnect()


def _api_room():
    alice, bob = make_user("alice"), make_user("bob")
    room = started_room(alice, [bob])
    tokens = [ApiToken.objects.issue(user, "tests")[1] for user in (alice, bob)]
    return room, tokens


async def test_the_board_api_stream_says_taken_by_and_earlier_ms():
    room, tokens = await sync_to_async(_api_room)()
    dealt = await sync_to_async(dumped_state)(room.pk)
    streams = [await stream(room.pk, token) for token in tokens]
    for s in streams:
        await next_of(s, "view")
    for _ in range(3):
        await sync_to_async(set_state)(room.pk, lambda _: race_layout(copy.deepcopy(dealt)))
        before = await sync_to_async(lambda: Match.objects.get(room_id=room.pk).version)()
        message = json.dumps({"type": "action", "action": PLAY_4})
        await asyncio.gather(*(s.send_to(text_data=message) for s in streams))
        got: list[list[dict]] = [[], []]
        for seat, s in enumerate(streams):
            while not await s.receive_nothing(timeout=0.2):
                got[seat].append(json.loads(await s.receive_from()))
        # A refusal is answered once its log row is durable.
        won, lost = await sync_to_async(_race_rows)(room.pk, before - 1)
        errors = [m["error"] for m in got[lost.seat] if m["type"] == "error"]
        assert len(errors) == 1 and not any(m["type"] == "error" for m in got[won.seat])
        error = errors[0]
        assert error["code"] == "too_slow"
        assert error["taken_by"] == ("alice", "bob")[won.seat]
        assert error["earlier_ms"] == (lost.received - won.received) // 1000 >= 0
    for s in streams:
        await s.disconnect()


async def test_the_board_api_http_refusal_says_taken_by_and_earlier_ms():
    room, tokens = await sync_to_async(_api_room)()
    dealt = await sync_to_async(dumped_state)(room.pk)
    # A stream open in this loop makes it the server's: HTTP moves are handed to its rooms.
    watcher = await stream(room.pk, tokens[0])
    await next_of(watcher, "view")
    callers = [Api(token=token) for token in tokens]
    for _ in range(3):
        await sync_to_async(set_state)(room.pk, lambda _: race_layout(copy.deepcopy(dealt)))
        before = await sync_to_async(lambda: Match.objects.get(room_id=room.pk).version)()
        path = f"rooms/{room.pk}/actions"
        answers = await asyncio.gather(
            *(
                sync_to_async(c.post, thread_sensitive=False)(path, {"action": PLAY_4})
                for c in callers
            )
        )
        assert sorted(a.status_code for a in answers) == [200, 409]
        won, lost = await sync_to_async(_race_rows)(room.pk, before - 1)
        error = answers[lost.seat].json()["error"]
        assert error["code"] == "too_slow"
        assert error["taken_by"] == ("alice", "bob")[won.seat]
        assert error["earlier_ms"] == (lost.received - won.received) // 1000 >= 0
        assert error["message"] == f"Taken by {error['taken_by']}, {error['earlier_ms']} ms " + (
            "earlier: red 4."
        )
    await watcher.disconnect()


async def test_a_bots_name_is_worded_per_reader(settings):
    from django.utils import translation

    from tables.live.room import RaceLost, Taken
    from tables.live.stream import race_of
    from tables.words import refusal_text

    alice = await sync_to_async(make_user)("alice")
    room = await sync_to_async(started_room)(alice, bots=1)
    table = await sync_to_async(rooms.read)(room.pk)
    bot = next(p for p in table.players if p.user_id is None)
    lost = await sync_to_async(lambda: _lost_race(table))()
    refusal = RaceLost(lost, Taken(bot.seat, bot, 7, 0))
    with translation.override("en"):
        assert race_of(refusal) == {"taken_by": "Normal bot 2", "earlier_ms": 7}
        assert refusal_text(refusal) == "Taken by Normal bot 2, 7 ms earlier: red 4."
    with translation.override("de"):
        assert race_of(refusal)["taken_by"] != "Normal bot 2"
        assert race_of(refusal)["taken_by"] in refusal_text(refusal)


def _lost_race(table):
    from games.engine import IllegalAction

    game = table.game
    state = game.load(race_layout(game.dump(table.state)))
    state, _ = game.apply(state, 1, PLAY_4)
    with pytest.raises(IllegalAction) as lost:
        game.apply(state, 0, PLAY_4)
    assert lost.value.code == "too_slow" and lost.value.contested == {"color": "red", "value": 4}
    return lost.value


def _equalised_room(suffix: str = ""):
    from lobby import services

    alice, bob = make_user("alice" + suffix), make_user("bob" + suffix)
    room = services.create_room(alice, "ligretto-mini", 2, {"rounds": 1, "equalise": True})
    services.join_room(room.pk, bob)
    services.start_room(room.pk, alice)
    return alice, bob, room


async def test_an_equalised_table_tells_the_margin_by_estimated_sending():
    alice, bob, room = await sync_to_async(_equalised_room)()
    dealt = await sync_to_async(dumped_state)(room.pk)
    a = await _table_socket(room.pk, alice, "en")
    b = await _table_socket(room.pk, bob, "en")
    await _drain(a), await _drain(b)
    await sync_to_async(set_state)(room.pk, lambda _: race_layout(copy.deepcopy(dealt)))
    before = await sync_to_async(lambda: Match.objects.get(room_id=room.pk).version)()
    frame = json.dumps({**PLAY_4, "HEADERS": {"HX-Trigger": "me-row-0"}})
    await asyncio.gather(a.send_to(text_data=frame), b.send_to(text_data=frame))
    frames = {0: await _drain(a), 1: await _drain(b)}
    won, lost = await sync_to_async(_race_rows)(room.pk, before - 1)
    # Both were held and ordered by estimated sending time, which the log keeps.
    assert won.sent is not None and lost.sent is not None and won.sent <= lost.sent
    margin = (lost.sent - won.sent) // 1000
    flash = [f for f in frames[lost.seat] if 'data-code="too_slow"' in f]
    assert f'data-earlier-ms="{margin}"' in flash[0]
    for s in (a, b):
        await s.disconnect()


async def test_the_replay_of_an_equalised_race_says_which_rule_settled_it():
    from tables import play, replay
    from tests.fairness.test_race_log import _race_ahead

    for attempt in range(10):
        alice, bob, room = await sync_to_async(_equalised_room)(f"-{attempt}")
        a = await _table_socket(room.pk, alice, "en")  # the server loop: moves go to the room
        ahead = await sync_to_async(_race_ahead)(room.pk, random.Random(attempt))
        if ahead is not None:
            break
        await a.disconnect()
    else:
        raise AssertionError("no deal gave a race")
    mine, theirs = ahead
    # Both at once, from two threads: received within the window, ordered by estimate.
    answers = await asyncio.gather(
        sync_to_async(_try, thread_sensitive=False)(room.pk, 0, mine),
        sync_to_async(_try, thread_sensitive=False)(room.pk, 1, theirs),
    )
    assert sorted(answers) == ["", "too_slow"]
    await a.disconnect()
    await sync_to_async(play.close_match)(room.pk, "Stopped for the test.")
    match = await sync_to_async(Match.objects.get)(room_id=room.pk)
    rep = await sync_to_async(replay.replay_round)(match, 1)
    (race,) = rep.races
    assert race.rule == "equalised"
    rows = await sync_to_async(lambda: list(ActionLog.objects.filter(match=match)))()
    won = next(r for r in rows if r.version == rep.steps[race.step - 1].version and not r.refused)
    lost = next(r for r in rows if r.refused)
    assert race.losses[0].later_ms == (lost.sent - won.sent) // 1000
    html = await sync_to_async(_page)(room.pk)
    assert f'id="race-{race.step}" data-winner="{race.seat}" data-rule="equalised"' in html
    assert "settled by latency equalisation" in html


def _try(room_id: int, seat: int, action: dict) -> str:
    from games.engine import IllegalAction
    from tables import play

    try:
        play.act(room_id, seat, action)
    except IllegalAction as refusal:
        return refusal.code
    return ""


def _page(room_id: int) -> str:
    from tests.conftest import client_for

    return client_for(make_user("eve")).get(f"/rooms/{room_id}/replay?round=1").content.decode()


async def test_an_equalised_tables_api_stream_is_pinged_and_its_pong_measures_the_round_trip():
    alice, bob, room = await sync_to_async(_equalised_room)()
    token = await sync_to_async(lambda: ApiToken.objects.issue(alice, "tests")[1])()
    s = await stream(room.pk, token)
    await next_of(s, "view")
    ping = await next_of(s, "ping")
    assert set(ping) == {"type", "ping"} and isinstance(ping["ping"], int)
    await s.send_to(text_data=json.dumps({"type": "pong", "ping": ping["ping"]}))
    # A pong for a ping never sent, or not a number, measures nothing (and is no error).
    await s.send_to(text_data=json.dumps({"type": "pong", "ping": 10**9}))
    await s.send_to(text_data=json.dumps({"type": "pong", "ping": "soon"}))
    await s.send_to(text_data=json.dumps({"type": "action", "action": {"type": "flip"}}))
    rows = ActionLog.objects.filter(match__room_id=room.pk, seat=0)
    while not await sync_to_async(rows.exists)():
        await next_of(s, "view")  # the flip's view comes once its row is written
    row = await sync_to_async(rows.get)()
    # Its estimate is its receipt less half the round trip the server measured (> 0 µs).
    assert row.sent is not None and row.received is not None and row.sent < row.received
    assert row.received - row.sent <= 40_000
    await s.disconnect()
