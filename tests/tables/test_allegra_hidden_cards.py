"""No page, part or socket message to any seat holds a face-down value (the owner's included),
the deck below its top, or a knocker's hand card before it is public: two Allegra tables that
differ only there look the same, byte for byte, on every path (A6, A7, visibility)."""

from __future__ import annotations

import json
import re

import pytest
from asgiref.sync import sync_to_async

from tables.live import rooms as live_rooms
from tests.conftest import client_for, make_user
from tests.tables.allegra_layouts import after_opening, place
from tests.tables.helpers import set_state, started_room, table_socket

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]

# A whole turn with a knock, then two more turns, none of which turns a face-down card or
# draws below the deck's two known top cards. Bob's knock puts his face-up 9 into his hand.
TURNS = [
    (0, {"type": "draw", "source": "deck"}),
    (1, {"type": "knock"}),
    (0, {"type": "give", "to": 1}),
    (1, {"type": "place", "place": place(1, 0, 3)}),
    (0, {"type": "take", "from": place(1, 1, 0), "to": place(0, 1, 0)}),
    (1, {"type": "draw", "source": "deck"}),
    (1, {"type": "swap", "place": place(1, 0, 0)}),
    (2, {"type": "draw", "source": "discard"}),
    (2, {"type": "swap", "place": place(2, 0, 0)}),
]


def _normalise(html: str, room_id: int) -> str:
    html = re.sub(r'(csrfmiddlewaretoken" value=|X-CSRFToken": )"[^"]+"', r"\1-", html)
    # When an away player's stand-in comes: a time, which differs between the two rooms.
    html = re.sub(r'data-until="[^"]+"', 'data-until="-"', html)
    # Each match's shuffle commitment (docs/fairness.md): public, and differs between matches.
    html = re.sub(r'class="hash">[0-9a-f]{64}<', 'class="hash">-<', html)
    # The room's number as a whole word only: "#1" must not eat the "1" of a colour "#1b4d2d".
    html = html.replace(f"/rooms/{room_id}/", "/rooms/ROOM/").replace(
        f"room={room_id}&", "room=ROOM&"
    )
    return re.sub(rf"#{room_id}(?![0-9a-fA-F])", "#ROOM", html)


async def _until(sockets, version: int) -> list[str]:
    frames = []
    for s in sockets:
        got = [await s.receive_from(timeout=3)]
        while f'data-version="{version}"' not in got[-1]:
            got.append(await s.receive_from(timeout=3))
        frames.append("".join(got))
    return frames


async def test_face_down_values_and_the_deck_never_reach_anyone_on_any_path():
    users = [await sync_to_async(make_user)(n) for n in ("alice", "bob", "carol", "eve")]
    rooms = [
        await sync_to_async(started_room)(users[0], users[1:3], game="allegra") for _ in range(2)
    ]
    for shift, room in enumerate(rooms):
        await sync_to_async(set_state)(room.pk, lambda d, s=shift: after_opening(d, s))
    states = [await sync_to_async(lambda r=r: live_rooms.read(r.pk).state)() for r in rooms]
    assert states[0].grids != states[1].grids and states[0].deck != states[1].deck
    hidden = [
        (s, r, c)
        for s, grid in enumerate(states[0].grids)
        for r, row in enumerate(grid)
        for c, cell in enumerate(row)
        if not cell[1]
    ]
    assert hidden and all(
        states[0].grids[s][r][c] != states[1].grids[s][r][c] for s, r, c in hidden
    )

    # Pages, for the three players and a spectator.
    for user in users:
        pages = []
        for room in rooms:
            client = await sync_to_async(client_for)(user)
            response = await sync_to_async(client.get)(f"/rooms/{room.pk}/")
            assert response.status_code == 200
            assert (b'id="al-me" class="me' in response.content) == (user.username != "eve")
            pages.append(_normalise(response.content.decode(), room.pk))
        assert pages[0] == pages[1]

    # Sockets: the whole table on connect, then every push of a knock and two more turns.
    worlds = []
    for room in rooms:
        sockets = [await table_socket(room.pk, u) for u in users]
        version = await sync_to_async(lambda r=room: live_rooms.read(r.pk).version)()
        worlds.append((room, sockets, await _until(sockets, version)))
    assert [_normalise(f, worlds[0][0].pk) for f in worlds[0][2]] == [
        _normalise(f, worlds[1][0].pk) for f in worlds[1][2]
    ]
    for seat, action in TURNS:
        frames = []
        for room, sockets, _ in worlds:
            version = await sync_to_async(lambda r=room: live_rooms.read(r.pk).version)()
            await sockets[seat].send_to(text_data=json.dumps(action))
            frames.append(await _until(sockets, version + 1))
        timeless = [
            [re.sub(r'data-until="[^"]+"', 'data-until="-"', f) for f in fs] for fs in frames
        ]
        assert timeless[0] == timeless[1] and all(frames[0])
        if action["type"] == "place":  # the knocker's hand card is public from now on
            assert 'aria-label="knocker\'s hand card 9"' in frames[0][3]
    for _, sockets, _ in worlds:
        for s in sockets:
            await s.disconnect()
