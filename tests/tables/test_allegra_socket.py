"""The Allegra table's socket: the whole table on connect, every action of A5-A7 as the page
sends it, the same public bytes to everyone, triples and the final lap shown, the score sheet."""

from __future__ import annotations

import json

import pytest
from asgiref.sync import sync_to_async

from lobby.models import Room
from tables.live import rooms
from tables.models import Match, RoundScore
from tests.conftest import make_user
from tests.tables.allegra_layouts import SHORT_ROUND_TURNS, short_round
from tests.tables.helpers import set_state, started_room, table_socket, version_of

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]

OPENING = [(0, (0, 2, 0)), (0, (0, 2, 1)), (1, (1, 0, 1)), (1, (1, 1, 1)), (2, (2, 0, 1))]
OPENING += [(2, (2, 1, 1))]


async def _cast():
    users = [await sync_to_async(make_user)(n) for n in ("alice", "bob", "carol", "eve")]
    room = await sync_to_async(started_room)(users[0], users[1:3], game="allegra")
    await sync_to_async(set_state)(room.pk, short_round)
    return users, room


async def _settle(*sockets):
    for s in sockets:
        while not await s.receive_nothing(timeout=0.1):
            await s.receive_from()


async def _frames(sockets, version):
    """Every socket's frames up to the one that brings `version`, joined."""
    out = []
    for s in sockets:
        got = [await s.receive_from(timeout=3)]
        while f'data-version="{version}"' not in got[-1]:
            got.append(await s.receive_from(timeout=3))
        out.append("".join(got))
    return out


def _as_page_sends(action):
    """What htmx sends for an action: numbers as strings, a place picked in a form as JSON."""
    sent = {"HEADERS": {"HX-Trigger": "x"}}
    for k, v in action.items():
        sent[k] = json.dumps(v) if isinstance(v, dict) and action["type"] == "take" else v
        if k == "to" and not isinstance(v, dict):
            sent[k] = str(v)
    return sent


async def test_it_plays_a_short_round_with_a_knock_and_a_triple_through_the_sockets():
    (alice, bob, carol, eve), room = await _cast()
    sockets = [await table_socket(room.pk, u) for u in (alice, bob, carol, eve)]
    first = await sockets[0].receive_from()
    assert (
        'id="al-me" class="me' in first and 'id="al-grid-2"' in first and 'id="al-col-0"' in first
    )
    assert 'id="al-pile"' in first and 'id="al-scores"' in first and 'id="al-status"' in first
    await _settle(*sockets)

    seen: list[list[str]] = []
    for seat, place in OPENING:
        action = {"type": "reveal", "place": dict(zip(("seat", "row", "col"), place, strict=True))}
        before = await sync_to_async(lambda: rooms.read(room.pk).version)()
        await sockets[seat].send_to(text_data=json.dumps(action))
        seen.append(await _frames(sockets, before + 1))
    assert "alice may draw from the deck or take the discard" in seen[-1][3]
    for seat, action in SHORT_ROUND_TURNS:
        before = await sync_to_async(lambda: rooms.read(room.pk).version)()
        await sockets[seat].send_to(text_data=json.dumps(_as_page_sends(action)))
        frames = await _frames(sockets, before + 1)
        seen.append(frames)
        # The public part is the same bytes for everyone; a player's own part comes before it.
        public = frames[3]
        for f in frames[:3]:
            assert f.endswith(public[public.index('<div id="table-version"') :])
        assert version_of(public) == before + 1

    by_step = dict(
        zip([a["type"] for _, a in SHORT_ROUND_TURNS], seen[len(OPENING) :], strict=True)
    )
    drew = seen[len(OPENING)]
    assert 'id="al-knock"' in drew[1] and 'id="al-knock"' in drew[2]  # the others may knock
    assert 'id="al-knock"' not in drew[0] and 'id="al-knock-window"' in drew[3]
    knocked = seen[len(OPENING) + 1]
    assert 'id="al-give-1"' in knocked[0] and "bob knocked" in knocked[3]
    placed = by_step["place"][3]
    # A8: the triple across bob's shared column leaves visibly, on every grid it touches.
    assert "Triple! 3 cards (4s) left the game." in placed
    assert placed.count("card gone vanish b2") == 3
    assert 'id="al-take"' in by_step["place"][0]  # alice picks the card to take
    taken = by_step["take"][3]
    assert 'id="al-final-lap"' in taken and "alice has every card face up" in taken
    assert "(carol still to play)" in taken

    end = seen[-1][3]
    assert 'data-status="round_over"' in end
    assert 'data-sum="22" data-points="44" class="doubled"' in end
    assert 'data-sum="63" data-points="63"' in end and 'data-sum="14" data-points="14"' in end

    match = await sync_to_async(Match.objects.get)(room_id=room.pk)
    points = await sync_to_async(
        lambda: list(RoundScore.objects.filter(round__match=match).values_list("points", flat=True))
    )()
    assert points == [44, 63, 14]

    # A1: the match had one round; when everyone is ready, the room is finished.
    before = await sync_to_async(lambda: rooms.read(room.pk).version)()
    for s in sockets[:3]:
        await s.send_to(text_data=json.dumps({"type": "ready"}))
    last = await _frames(sockets, before + 3)
    assert 'id="match-result"' in last[3] and "carol</strong>" in last[3]
    room_status = await sync_to_async(lambda: Room.objects.get(pk=room.pk).status)()
    assert room_status == Room.Status.FINISHED
    for s in sockets:
        await s.disconnect()


async def test_a_refused_action_comes_back_to_its_sender_only():
    (alice, bob, carol, eve), room = await _cast()
    sockets = [await table_socket(room.pk, u) for u in (alice, bob, carol)]
    await _settle(*sockets)
    # A card already face up cannot be turned (A5).
    face_up = {"type": "reveal", "place": {"seat": 0, "row": 0, "col": 0}}
    await sockets[0].send_to(text_data=json.dumps(face_up))
    refusal = await sockets[0].receive_from()
    assert 'id="table-flash"' in refusal and 'data-code="face_up"' in refusal
    assert await sockets[1].receive_nothing(timeout=0.2)
    for s in sockets:
        await s.disconnect()


async def test_a_change_that_is_no_move_still_tells_what_the_last_move_did():
    """The driver starts the next decision's clock just after a move (a touch, no events):
    the status it redraws keeps the move's news (a browser saw a triple's news vanish)."""
    (alice, bob, carol, eve), room = await _cast()
    sockets = [await table_socket(room.pk, u) for u in (alice, eve)]
    await _settle(*sockets)
    before = await sync_to_async(lambda: rooms.read(room.pk).version)()
    reveal = {"type": "reveal", "place": {"seat": 0, "row": 2, "col": 0}}
    await sockets[0].send_to(text_data=json.dumps(reveal))
    moved = (await _frames(sockets, before + 1))[1]
    news = moved[moved.index('<ul class="news">') : moved.index("</ul>", moved.index("news"))]
    assert "alice turned up" in news

    def start_a_clock(table):
        table.match.clock = {"key": ["a", "clock"]}
        table.match.save(update_fields=["clock"])
        return True

    await rooms.touch(room.pk, start_a_clock)
    touched = (await _frames(sockets, before + 2))[1]
    assert 'id="al-status"' in touched and news in touched
    for s in sockets:
        await s.disconnect()
