"""Live parts in each reader's language: a public part is rendered once per language present
in the room, never once per socket, and each socket gets its own language's bytes."""

from __future__ import annotations

import json
import threading

import pytest
from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator
from django.core.cache import cache

from cardgames.asgi import application
from lobby import services
from tables import languages
from tables.live import render, rooms, stream
from tests.conftest import make_user
from tests.tables.helpers import ORIGIN, card, set_state, started_room

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]


@pytest.fixture(autouse=True)
def _forget_noted_languages():
    cache.clear()  # the languages sockets noted in earlier tests
    languages.forget()
    yield
    cache.clear()
    languages.forget()


async def connect(path: str, language: str, user=None) -> WebsocketCommunicator:
    headers = [*ORIGIN, (b"accept-language", language.encode())]
    communicator = WebsocketCommunicator(application, path, headers=headers)
    if user is not None:
        communicator.scope["user"] = user
    connected, _ = await communicator.connect(timeout=10)
    assert connected
    return communicator


async def settle(*sockets: WebsocketCommunicator) -> None:
    for socket in sockets:
        while not await socket.receive_nothing(timeout=0.1):
            await socket.receive_from()


async def listen(group: str) -> str:
    """A bare channel in `group`: it sees the pushed events themselves, as every process does."""
    layer = get_channel_layer()
    channel = await layer.new_channel()
    await layer.group_add(group, channel)
    return channel


async def test_the_lobby_speaks_each_sockets_language():
    alice = await sync_to_async(make_user)("alice")
    german = await connect("/ws/lobby/", "de")
    korean = await connect("/ws/lobby/", "ko-KR,ko;q=0.9")
    english = await connect("/ws/lobby/", "en")
    assert "Noch keine offenen Ligretto-Räume." in await german.receive_from()
    assert "아직 열린 리그레토 방이 없습니다." in await korean.receive_from()
    await english.receive_from()
    raw = await listen("lobby")

    room = await sync_to_async(services.create_room)(alice, "ligretto", 4)
    assert "1 von 4 Plätzen besetzt" in await german.receive_from()
    assert "4자리 중 1자리 참" in await korean.receive_from()
    assert "1 of 4 seats taken" in await english.receive_from()
    event = await get_channel_layer().receive(raw)
    # One rendering per language present: English (the site's) as html, the others beside it.
    assert sorted(event["translations"]) == ["de", "ko"]
    assert f'id="room-{room.pk}"' in event["html"]
    for socket in (german, korean, english):
        await socket.disconnect()


def _red_four_on_a_red_three(data):
    for seat, player in enumerate(data["players"]):
        player["row"][0] = [card("red", 4, seat)]
        player["row"][1] = [card("green", 1, seat)]  # never a standstill
        player["row"][2] = [card("blue", 5, seat)]  # fits nowhere
    data["center"] = [
        {"color": "red", "cards": [card("red", v, 0) for v in (1, 2, 3)], "closed": False}
    ]
    data.update(status="playing", scores=[], ready=[], end_reason=None, end_message=None)
    return data


async def test_a_table_renders_its_public_parts_once_per_language_not_per_socket(monkeypatch):
    # One process (the in-memory layer): a change is handed to this process's sockets
    # directly (tables.rooms.listen), not through the groups. The events handed over are
    # recorded on their way, and passed on unchanged.
    handed: list[tuple[str, dict]] = []
    real_deliver = rooms.deliver

    async def recording(delivery, listeners):
        room_id = delivery.room_id
        handed.extend((render.seat_group(room_id, s), m) for s, m in delivery.private.items())
        handed.append((render.table_group(room_id), delivery.public))
        await real_deliver(delivery, listeners)

    monkeypatch.setattr(rooms, "deliver", recording)
    alice = await sync_to_async(make_user)("alice")
    bob = await sync_to_async(make_user)("bob")
    eve = await sync_to_async(make_user)("eve")
    carol = await sync_to_async(make_user)("carol")
    room = await sync_to_async(started_room)(alice, [bob])
    await sync_to_async(set_state)(room.pk, _red_four_on_a_red_three)
    path = f"/ws/rooms/{room.pk}/table/"
    alice_de = await connect(path, "de", alice)
    bob_ko = await connect(path, "ko", bob)
    eve_de = await connect(path, "de", eve)  # a second German reader: no second rendering
    carol_de = await connect(path, "de-AT", carol)
    await settle(alice_de, bob_ko, eve_de, carol_de)

    await alice_de.send_to(text_data=json.dumps({"type": "play", "from": "row", "index": 0}))
    frames = [await s.receive_from() for s in (alice_de, bob_ko, eve_de, carol_de)]
    events = [m for group, m in handed if group == render.table_group(room.pk)]
    # The play's change is the last one (set_state's came before any socket listened).
    event = [m for m in events if m["type"] == "table.public"][-1]
    assert sorted(event["translations"]) == ["de", "ko"]  # and English, the html itself
    # The German readers got the same bytes: one German rendering, sent to both.
    assert frames[2] == frames[3] == event["translations"]["de"]
    # Bob's own part (what he can play now, issue 41) comes before the public one, if any.
    assert frames[1].endswith(event["translations"]["ko"])
    bobs = [m for group, m in handed if group == render.seat_group(room.pk, 1)]
    own = stream.pick(bobs[-1], "ko") if bobs and bobs[-1]["version"] == event["version"] else ""
    assert frames[1] == own + event["translations"]["ko"]
    mine = [m for group, m in handed if group == render.seat_group(room.pk, 0)][-1]
    assert mine["type"] == "table.private" and mine["translations"] == {}  # alice reads German
    assert frames[0] == mine["html"] + event["translations"]["de"]
    for socket in (alice_de, bob_ko, eve_de, carol_de):
        await socket.disconnect()


async def test_a_refusal_is_worded_in_the_players_language():
    alice = await sync_to_async(make_user)("alice")
    bob = await sync_to_async(make_user)("bob")
    room = await sync_to_async(started_room)(alice, [bob])
    await sync_to_async(set_state)(room.pk, _red_four_on_a_red_three)
    path = f"/ws/rooms/{room.pk}/table/"
    alice_ru = await connect(path, "ru", alice)
    bob_ko = await connect(path, "ko", bob)
    await settle(alice_ru, bob_ko)
    await alice_ru.send_to(text_data=json.dumps({"type": "play", "from": "row", "index": 2}))
    refusal = await alice_ru.receive_from()
    assert 'data-code="does_not_fit"' in refusal
    assert "Эта карта не подходит ни к одной стопке в центре." in refusal
    await bob_ko.send_to(text_data=json.dumps({"type": "play", "from": "row", "index": 9}))
    assert "줄에 그런 칸은 없습니다." in await bob_ko.receive_from()
    for socket in (alice_ru, bob_ko):
        await socket.disconnect()


async def test_a_chat_line_is_rendered_once_per_language_of_the_room():
    alice = await sync_to_async(make_user)("alice")
    bob = await sync_to_async(make_user)("bob")
    room = await sync_to_async(started_room)(alice, [bob])
    alice_de = await connect(f"/ws/rooms/{room.pk}/", "de", alice)
    bob_ko = await connect(f"/ws/rooms/{room.pk}/table/", "ko", bob)
    await settle(alice_de, bob_ko)
    await alice_de.send_to(text_data=json.dumps({"chat": "gg"}))

    async def line(socket):
        while True:
            frame = await socket.receive_from(timeout=5)
            if "chat-line-" in frame:
                return frame

    assert "Diese Nachricht ausblenden" in await line(alice_de)
    assert "이 메시지 숨기기" in await line(bob_ko)
    for socket in (alice_de, bob_ko):
        await socket.disconnect()


async def test_an_old_reading_is_used_at_once_and_renewed_in_the_background(monkeypatch):
    place = render.table_group(1)
    languages.note(place, "de")
    assert languages.present(place) == ["en", "de"]  # read once, from the cache
    # Another process's socket notes Korean; this one's reading is old a moment later.
    cache_client = languages._notes()
    cache_client.set(languages._key(place, "ko"), 1)
    monkeypatch.setattr(languages, "MEMO_SECONDS", 0.0)
    asked = []
    read = languages._read
    monkeypatch.setattr(languages, "_read", lambda places: asked.append(places) or read(places))
    # The push goes on with what it knew (no cache round trip in its way) ...
    assert languages.present(place) == ["en", "de"]
    languages.wait_for_readings()
    assert asked == [[place]]  # ... while the reader thread read the place again
    assert languages.present(place) == ["en", "de", "ko"]
    languages.wait_for_readings()


async def test_a_reading_under_way_is_not_kept_once_the_cache_is_forgotten(monkeypatch):
    place = render.table_group(2)
    languages._notes().set(languages._key(place, "ru"), 1)
    assert languages.present(place) == ["en", "ru"]
    monkeypatch.setattr(languages, "MEMO_SECONDS", 0.0)
    gate = threading.Event()
    read = languages._read
    monkeypatch.setattr(languages, "_read", lambda places: gate.wait(5) and read(places))
    languages.present(place)  # a renewal starts, and waits
    languages.forget()  # the cache changed meanwhile (a test's new prefix)
    gate.set()
    languages.wait_for_readings()
    assert place not in languages._here().memo
