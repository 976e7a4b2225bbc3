"""The Ligretto table's socket: whole table on connect, the same bytes to everyone, races (L12)."""

from __future__ import annotations

import asyncio
import copy
import json
import re

import pytest
from asgiref.sync import sync_to_async

from tables.live import render, rooms
from tables.models import ActionLog, Match
from tests.conftest import make_user
from tests.tables.helpers import (
    TableSocket,
    card,
    dumped_state,
    race_layout,
    set_state,
    started_room,
    table_socket,
    version_of,
)

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]


@pytest.fixture(autouse=True)
def _no_driver(settings):
    # No bots here. Without the bot driver every version is one of the test's own changes: its
    # end-of-countdown touch (a new version) could land between a test's settling and its move
    # on a loaded machine, and be taken for the move's frame.
    settings.BOT_DRIVER = False


async def _cast():
    alice = await sync_to_async(make_user)("alice")
    bob = await sync_to_async(make_user)("bob")
    eve = await sync_to_async(make_user)("eve")
    room = await sync_to_async(started_room)(alice, [bob])
    return alice, bob, eve, room


async def _settle(*sockets: TableSocket) -> None:
    """Read each socket's first frames: the whole table, and the presence changes the sockets'
    connecting made, up to the table's version now. A socket takes its seat (a durable change)
    before it sends its first frame, so once every socket has sent one, nothing else is on its
    way. (Waiting for a quiet spell instead, of 0.1 s and then 0.3 s, failed now and then on a
    loaded machine: a presence push came after it and was read as the push of the test's move.)
    """
    for s in sockets:
        room_id = int(s.scope["path"].split("/")[3])  # /ws/rooms/<id>/table/
        now = await sync_to_async(lambda r=room_id: rooms.read(r).version)()
        while s.seen < now:
            await s.receive_from(timeout=10)


async def test_it_sends_the_whole_table_on_connect_and_pushes_plays_to_everyone():
    alice, bob, eve, room = await _cast()
    await sync_to_async(set_state)(room.pk, race_layout)
    a = await table_socket(room.pk, alice)
    first = await a.receive_from()
    assert 'data-connected="true"' in first and 'id="lg-me" class="me' in first
    assert 'id="lg-center"' in first and 'id="lg-seat-1"' in first
    b = await table_socket(room.pk, bob)
    e = await table_socket(room.pk, eve)  # a spectator
    spectator_first = await e.receive_from()
    assert 'id="lg-me" class="me' not in spectator_first and 'id="lg-center"' in spectator_first
    await _settle(a, b, e)

    await a.send_to(text_data=json.dumps({"type": "play", "from": "row", "index": "0"}))
    to_alice, to_bob, to_eve = (
        await a.receive_from(),
        await b.receive_from(),
        await e.receive_from(),
    )
    # The public part is the same bytes for all; the player who moved gets his own part (its
    # row piece at least: the whole part when this push had nothing to compare with); another
    # player only the sentence of what he can play now, when the play changed it (issue 41).
    public = to_eve
    assert to_alice.endswith(public) and 'id="lg-me-row"' in to_alice
    assert to_bob.endswith(public)
    bobs_own = to_bob[: len(to_bob) - len(public)]
    assert bobs_own == "" or (
        bobs_own.startswith('<p id="lg-me-say"') and "lg-me-row" not in bobs_own
    )
    assert 'id="lg-me' not in public
    assert 'id="pile-0"' in public and 'aria-label="red 4"' in public
    assert version_of(public) == await sync_to_async(lambda: rooms.read(room.pk).version)()
    for s in (a, b, e):
        await s.disconnect()


async def test_a_flip_pushes_only_the_piles_of_the_movers_own_part():
    alice, bob, eve, room = await _cast()
    a = await table_socket(room.pk, alice)
    b = await table_socket(room.pk, bob)
    await _settle(a, b)
    # The first flip's push may draw everything (nothing to compare with yet); the second
    # compares with the first, one version before it.
    await a.send_to(text_data=json.dumps({"type": "flip"}))
    await a.receive_from(), await b.receive_from()
    await a.send_to(text_data=json.dumps({"type": "flip"}))
    mine, theirs = await a.receive_from(), await b.receive_from()
    assert mine.startswith('<button type="button" id="me-waste"')  # the waste and the hand
    assert 'id="me-flip"' in mine and 'id="me-stack"' not in mine
    assert 'id="lg-me-row"' not in mine and 'id="lg-me" class="me' not in mine
    assert mine.endswith(theirs) and 'id="lg-me' not in theirs
    for s in (a, b):
        await s.disconnect()


async def test_a_spectator_cannot_act():
    alice, bob, eve, room = await _cast()
    e = await table_socket(room.pk, eve)
    await _settle(e)
    await e.send_to(text_data=json.dumps({"type": "flip"}))
    answer = await e.receive_from()
    assert 'data-code="spectator"' in answer
    assert await sync_to_async(ActionLog.objects.count)() == 0
    await e.disconnect()


async def test_simultaneous_plays_onto_one_pile_have_exactly_one_winner_l12():
    alice, bob, eve, room = await _cast()
    a = await table_socket(room.pk, alice)
    b = await table_socket(room.pk, bob)
    await _settle(a, b)
    play_row_0 = json.dumps(
        {
            "type": "play",
            "from": "row",
            "index": 0,
            "pile": 0,
            "HEADERS": {"HX-Trigger": "me-row-0"},
        }
    )
    dealt = await sync_to_async(dumped_state)(room.pk)
    for _ in range(15):
        # The same layout each time, from the same deal: only the race differs.
        await sync_to_async(set_state)(room.pk, lambda _: race_layout(copy.deepcopy(dealt)))
        before = await sync_to_async(lambda: Match.objects.get(room_id=room.pk).version)()
        await asyncio.gather(a.send_to(text_data=play_row_0), b.send_to(text_data=play_row_0))
        frames: dict[str, list[str]] = {"a": [], "b": []}
        pair = (("a", a), ("b", b))
        # Read until both pages show the winner's change and the loser has his refusal (a
        # loaded machine may pause longer than any quiet spell between the two), then what
        # else is on its way: a second refusal, or a second change, would be a defect.
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 10
        while not (
            all(s.seen > before for _, s in pair)
            and any('data-code="too_slow"' in f for fs in frames.values() for f in fs)
        ):
            assert loop.time() < deadline, {k: [f[:80] for f in v] for k, v in frames.items()}
            for name, s in pair:
                if not await s.receive_nothing(timeout=0.02):
                    frames[name].append(await s.receive_from())
        for name, s in pair:
            while not await s.receive_nothing(timeout=0.15):
                frames[name].append(await s.receive_from())
        refusals = [
            name for name, fs in frames.items() if any('data-code="too_slow"' in f for f in fs)
        ]
        assert len(refusals) == 1, {
            k: [(f[:60], 'data-code="' in f, f.count("round_over")) for f in v]
            for k, v in frames.items()
        }
        refused = refusals[0]
        assert any('data-target="me-row-0"' in f for f in frames[refused])
        # The live region says the lost race in one sentence of its own, naming who took the
        # card and how much earlier (the pile's new top is said apart, as "ann: red 4").
        winner_name = ("alice", "bob")[1 - ("a", "b").index(refused)]
        taken = re.compile(rf">Taken by {winner_name}, \d+ ms earlier: red 4\.<")
        assert any(taken.search(f) for f in frames[refused])
        t = await sync_to_async(rooms.read)(room.pk)
        pile = t.state.center[0]
        assert [c.value for c in pile.cards] == [1, 2, 3, 4]  # one 4, never two
        winner = pile.cards[-1].owner
        loser = 1 - winner
        assert ("a", "b")[loser] == refused
        # The loser's red 4 stayed on his row; the winner's slot was refilled from his stack.
        assert t.state.players[loser].row[0][-1][:2] == ("red", 4)
        assert t.version == before + 1
        assert all(len(p.row) == 3 for p in t.state.players)
        held = [c for p in t.state.players for c in p.stack + p.hand + p.waste]
        held += [c for p in t.state.players for slot in p.row for c in slot]
        # Nothing lost or duplicated: the layout holds 2 x 27 cards plus the centre's 1-2-3.
        assert len(held) + len(pile.cards) == 2 * 27 + 3
        # The log keeps the losing play too, marked refused, at the version it was judged at
        # (the winner's, which came first); reading the log as moves skips it.
        logged = await sync_to_async(
            lambda before=before: list(
                ActionLog.objects.filter(match__room_id=room.pk, version__gte=before)
                .order_by("id")
                .values_list("seat", "refused", "version")
            )
        )()
        assert sorted(logged[-2:]) == sorted(
            [(winner, "", before + 1), (loser, "too_slow", before + 1)]
        )
    for s in (a, b):
        await s.disconnect()


async def test_a_socket_that_missed_a_version_gets_the_whole_table_again():
    alice, bob, eve, room = await _cast()
    e = await table_socket(room.pk, eve)
    await _settle(e)
    from channels.layers import get_channel_layer

    layer = get_channel_layer()
    now = await sync_to_async(lambda: rooms.read(room.pk).version)()
    await layer.group_send(
        render.table_group(room.pk),
        {
            "type": "table.public",
            "room": room.pk,
            "version": now + 5,
            "html": "<p id='x'>partial</p>",
            "full": False,
            "private": [],
        },
    )
    resync = await e.receive_from()
    assert "partial" not in resync and 'data-connected="true"' in resync
    assert 'id="lg-center"' in resync and 'id="lg-scores"' in resync
    await e.disconnect()


async def test_a_change_drawn_for_streams_alone_makes_a_browser_draw_its_whole_table():
    # Another process drew no HTML for a change (only API streams listened, as far as it had
    # read the browsers' notes: tables.live.render.wants_html): a browser that gets it anyway
    # draws its whole table, never shows nothing.
    alice, bob, eve, room = await _cast()
    e = await table_socket(room.pk, eve)
    await _settle(e)
    from channels.layers import get_channel_layer

    now = await sync_to_async(lambda: rooms.read(room.pk).version)()
    undrawn = {"type": "table.public", "room": room.pk, "version": now + 1, "html": ""}
    undrawn.update(full=True, private=[], drawn=False, origin="other")
    await get_channel_layer().group_send(render.table_group(room.pk), undrawn)
    whole = await e.receive_from()
    assert 'data-connected="true"' in whole and 'id="lg-center"' in whole
    await e.disconnect()


async def test_it_refuses_a_socket_for_a_room_that_never_started():
    from lobby import services

    alice = await sync_to_async(make_user)("alice")
    room = await sync_to_async(services.create_room)(alice, "ligretto", 3)
    from channels.testing import WebsocketCommunicator

    from cardgames.asgi import application
    from tests.tables.helpers import ORIGIN

    s = WebsocketCommunicator(application, f"/ws/rooms/{room.pk}/table/", headers=ORIGIN)
    # Accepted, then closed with 4404, so that the page does not retry forever.
    connected, _ = await s.connect(timeout=10)
    assert connected
    assert await s.receive_output() == {"type": "websocket.close", "code": 4404}


async def test_a_flood_of_actions_is_refused_before_it_reaches_the_table(settings):
    settings.TABLE_ACTION_RATE = 3
    alice, bob, eve, room = await _cast()
    a = await table_socket(room.pk, alice)
    await _settle(a)
    before = await sync_to_async(lambda: Match.objects.get(room_id=room.pk).version)()
    for _ in range(10):
        await a.send_to(text_data=json.dumps({"type": "flip"}))
    frames = []
    while not await a.receive_nothing(timeout=0.3):
        frames.append(await a.receive_from())
    refused = sum('data-code="too_fast"' in f for f in frames)
    after = await sync_to_async(lambda: Match.objects.get(room_id=room.pk).version)()
    # At most three (the rate) were played, the first at least; every other one was refused.
    assert 1 <= after - before <= 3 and refused == 10 - (after - before)
    await a.disconnect()


async def test_a_move_past_those_in_flight_is_refused_not_queued(settings):
    settings.TABLE_ACTION_RATE = 100  # the bucket refuses none of these
    settings.TABLE_MOVES_IN_FLIGHT = 2
    settings.ACTION_FLUSH_DELAY = 0.3  # each move waits that long to be written: in flight
    alice, bob, eve, room = await _cast()
    a = await table_socket(room.pk, alice)
    await _settle(a)
    before = await sync_to_async(lambda: Match.objects.get(room_id=room.pk).version)()
    for _ in range(4):
        await a.send_to(text_data=json.dumps({"type": "flip"}))
    frames = []
    while not await a.receive_nothing(timeout=0.8):
        frames.append(await a.receive_from())
    refused = sum('data-code="too_fast"' in f for f in frames)
    after = await sync_to_async(lambda: Match.objects.get(room_id=room.pk).version)()
    assert (after - before, refused) == (2, 2)
    await a.disconnect()


async def test_with_the_row_variant_a_stack_top_goes_onto_a_row_card_by_its_button_l16():
    alice = await sync_to_async(make_user)("alice")
    bob = await sync_to_async(make_user)("bob")
    room = await sync_to_async(started_room)(alice, [bob], row_variant=True)

    def layout(data):
        me = data["players"][0]
        me["row"][0] = [card("red", 5, 0)]
        me["stack"][-1] = card("green", 4, 0)  # one lower, another colour: it fits (L16)
        data.update(status="playing", scores=[], ready=[])
        return data

    await sync_to_async(set_state)(room.pk, layout)
    a = await table_socket(room.pk, alice)
    first = await a.receive_from()
    button = first[first.index('id="me-row-0-from-stack"') :].split(">", 1)[0]
    assert "disabled" not in button
    values = button.split("hx-vals='", 1)[1].split("'", 1)[0]
    assert json.loads(values) == {"type": "play", "from": "stack", "to": "row", "index": 0}
    await _settle(a)

    await a.send_to(text_data=values)  # what ws-send sends for that button
    frame = await a.receive_from()
    assert 'id="lg-me-row"' in frame  # the row piece, or the whole own part around it
    t = await sync_to_async(rooms.read)(room.pk)
    assert [c[:2] for c in t.state.players[0].row[0]] == [("red", 5), ("green", 4)]
    assert t.view(None)["tableaus"][0]["row_depth"][0] == 2
    await a.disconnect()


async def test_a_change_from_another_process_arrives_by_the_group_and_one_from_here_does_not():
    # This process hands its own changes to its sockets directly; the channel layer carries a
    # change to the processes that did not make it, each process's one relay hears it for all
    # of its sockets, and ignores what came from itself.
    from channels.layers import get_channel_layer

    alice, bob, eve, room = await _cast()
    e = await table_socket(room.pk, eve)
    await _settle(e)
    layer = get_channel_layer()
    now = await sync_to_async(lambda: rooms.read(room.pk).version)()
    frame = {"type": "table.public", "room": room.pk, "version": now + 1, "full": True}
    frame["private"] = []
    html = render.version_tag(now + 1) + "<p id='x'>elsewhere</p>"
    await layer.group_send(
        render.table_group(room.pk), {**frame, "html": html, "origin": rooms.ORIGIN}
    )
    assert await e.receive_nothing(timeout=0.3)  # it had that one already
    await layer.group_send(render.table_group(room.pk), {**frame, "html": html, "origin": "other"})
    assert "elsewhere" in await e.receive_from()
    await e.disconnect()


async def test_a_change_pushed_while_the_whole_table_is_drawn_comes_after_it(monkeypatch):
    # A socket listens before its whole table is drawn (so that no change falls between), and
    # a change may be pushed while it is drawn; here one whose frame has every public part
    # (this process had no earlier drawing of the table to compare with). That frame must
    # follow the whole table, never go before it: the older table after it showed the page
    # an old state until the next change (a player "away" who was there).
    from lobby import table_consumers
    from tables import play

    alice, bob, eve, room = await _cast()
    drawn = table_consumers._render_full
    changed: list[int] = []

    def render_then_change(room_id, seat, known=None, watcher=None):
        version, html = drawn(room_id, seat, known, watcher)
        if not changed:  # the first drawing only: a change lands right after it
            here = rooms.get(room_id)
            if here is not None:
                here.pushed = None  # nothing drawn to compare with: every public part
            changed.append(play.touch(room_id, lambda t: True).version)
        return version, html

    monkeypatch.setattr(table_consumers, "_render_full", render_then_change)
    e = await table_socket(room.pk, eve)
    frames = [await e.receive_from()]
    while not await e.receive_nothing(timeout=0.2):
        frames.append(await e.receive_from())
    assert 'data-connected="true"' in frames[0]  # the whole table first
    versions = [version_of(f) for f in frames]
    assert versions == sorted(versions)
    assert versions[-1] == changed[0] == versions[0] + 1
    now = await sync_to_async(lambda: rooms.read(room.pk).version)()
    assert versions[-1] == now
    await e.disconnect()


async def test_a_part_of_another_seat_is_never_shown_even_when_it_reaches_the_socket():
    # A change from another process brings every changed seat's own part with the room's; a
    # socket takes its own seat's only. Missing its own part for that version (here only bob's
    # came), it gets the whole table again, and bob's part is never shown.
    from channels.layers import get_channel_layer

    alice, bob, eve, room = await _cast()
    a = await table_socket(room.pk, alice)
    await _settle(a)
    layer = get_channel_layer()
    now = await sync_to_async(lambda: rooms.read(room.pk).version)()
    html = render.version_tag(now + 1) + "<p id='x'>elsewhere</p>"
    bobs = {"type": "table.private", "version": now + 1, "seat": 1, "html": "<p>bob's hand</p>"}
    await layer.group_send(
        render.table_group(room.pk),
        {
            "type": "table.public",
            "room": room.pk,
            "version": now + 1,
            "full": True,
            "private": [0, 1],
            "html": html,
            "seats": {"1": bobs},
            "origin": "other",
        },
    )
    frame = await a.receive_from()
    assert "bob's hand" not in frame
    assert 'data-connected="true"' in frame and 'id="lg-me" class="me' in frame
    await a.disconnect()
