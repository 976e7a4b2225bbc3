"""One owner per live room: moves forwarded to the owner's inbox, and the fence per entry.

Both ends of the forwarding protocol run here in one loop, on the in-memory channel layer
(or Redis under `make test-scale`): the room is noted as owned by another process id, whose
inbox this test serves, so a move made here travels there and back through the layer and is
applied by the one real actor. The real two-process runs are in test_scale_owners.py.
"""

from __future__ import annotations

import asyncio
from datetime import timedelta

import pytest
from asgiref.sync import sync_to_async
from django.db import connection
from django.utils import timezone, translation

from games.engine import IllegalAction, Sentence, ngettext
from tables import current
from tables.live import owners, rooms
from tables.live import room as authority
from tables.live.room import LiveRoom
from tables.live.stream import race_of
from tables.models import ActionLog, Match
from tables.words import refusal_text
from tests.conftest import make_user
from tests.tables.helpers import race_layout, set_state, started_room

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]

OWNER = "owner-host:4242:cafe"


@pytest.fixture
def elsewhere(_fresh_live_server):
    """The room's owner is another process (served in this loop when the test says so): the
    in-memory layer carries both, so the live server is told others hear it."""
    _fresh_live_server.others = True

    def own(room_id: int, process: str = OWNER) -> None:
        owners.note([(room_id, process, timezone.now() + timedelta(minutes=5))])

    return own


async def _cast():
    alice = await sync_to_async(make_user)("alice")
    bob = await sync_to_async(make_user)("bob")
    room = await sync_to_async(started_room)(alice, [bob])
    await sync_to_async(set_state)(room.pk, race_layout)
    rooms.bind(asyncio.get_running_loop())
    return alice, bob, room


def _log(room_id: int) -> list[tuple[int, int, str, str]]:
    rows = ActionLog.objects.filter(match__room_id=room_id).order_by("version", "pk")
    return list(rows.values_list("seat", "version", "refused", "driver"))


def _version(room_id: int) -> int:
    return Match.objects.get(room_id=room_id).version


async def test_a_move_for_a_room_owned_elsewhere_is_applied_once_there_and_answered(elsewhere):
    alice, bob, room = await _cast()
    elsewhere(room.pk)
    assert owners.elsewhere(room.pk) == OWNER
    owners.ensure_serving(OWNER)  # the owner's inbox
    before = await sync_to_async(_version)(room.pk)

    play_4 = {"type": "play", "from": "row", "index": 0, "pile": 0}
    outcome = await rooms.act(room.pk, 0, play_4, check=authority.holder(0, alice))

    assert outcome.table is None  # applied by the owner, not here
    assert outcome.version == before + 1
    view = outcome.view(0)
    assert view["version"] == before + 1 and view["seat"] == 0
    # Once, by the owner: its process id is on the log row.
    assert await sync_to_async(_log)(room.pk) == [(0, before + 1, "", OWNER)]
    assert await sync_to_async(_version)(room.pk) == before + 1
    # A browser socket does not ask for the view: none comes back.
    with pytest.raises(ValueError):
        (await rooms.act(room.pk, 1, {"type": "flip"}, wants_view=False)).view(1)


async def test_a_refusal_by_the_owner_comes_back_with_its_code_status_and_sentence(elsewhere):
    alice, bob, room = await _cast()
    elsewhere(room.pk)
    owners.ensure_serving(OWNER)
    play_4 = {"type": "play", "from": "row", "index": 0, "pile": 0}
    await rooms.act(room.pk, 0, play_4, check=authority.holder(0, alice))

    # Bob's red 4 comes too late: the race is settled at the owner, and logged there.
    with pytest.raises(IllegalAction) as lost:
        await rooms.act(room.pk, 1, play_4, check=authority.holder(1, bob))
    assert lost.value.code == "too_slow" and lost.value.status == 409
    with translation.override("de"):
        german = refusal_text(lost.value)
    assert german != lost.value.message and german  # worded in the reader's language
    # Who took it, and how much earlier, come back from the owner too (docs/fairness.md).
    race = race_of(lost.value)
    assert race is not None and race["taken_by"] == "alice" and race["earlier_ms"] >= 0
    assert german.startswith("Genommen von alice, ")
    log = await sync_to_async(_log)(room.pk)
    while len(log) < 2:  # a refusal is answered at once; its log row follows with the writer
        await asyncio.sleep(0.01)
        log = await sync_to_async(_log)(room.pk)
    assert log[-1][0] == 1 and log[-1][2] == "too_slow" and log[-1][3] == OWNER

    # The seat-holder check travels as data and is judged at the owner: bob is not seat 0.
    with pytest.raises(IllegalAction) as refused:
        await rooms.act(room.pk, 0, {"type": "flip"}, check=authority.holder(0, bob))
    assert refused.value.code == "not_seated" and refused.value.status == 403


async def test_an_owner_that_never_answers_gives_unavailable(elsewhere, settings):
    alice, bob, room = await _cast()
    settings.MOVE_FORWARD_TIMEOUT = 0.3
    elsewhere(room.pk, "gone-host:1:dead")  # nobody serves its inbox
    before = await sync_to_async(_version)(room.pk)
    with pytest.raises(IllegalAction) as refused:
        await rooms.act(room.pk, 0, {"type": "flip"}, check=authority.holder(0, alice))
    assert refused.value.code == "unavailable" and refused.value.status == 503
    with translation.override("ru"):
        assert refusal_text(refused.value) != refused.value.message
    assert await sync_to_async(_version)(room.pk) == before  # nothing applied here either


async def test_a_check_that_cannot_travel_is_applied_here_not_dropped(elsewhere, settings):
    alice, bob, room = await _cast()
    settings.MOVE_FORWARD_TIMEOUT = 0.3
    elsewhere(room.pk, "gone-host:1:dead")

    def nobody(table: current.Table) -> None:
        raise authority.NotYourSeat

    with pytest.raises(IllegalAction) as refused:
        await rooms.act(room.pk, 0, {"type": "flip"}, check=nobody)
    assert refused.value.code == "not_seated"  # not forwarded (that would time out)


def _lease_in_db(room_id: int, process: str, seconds: float) -> None:
    Match.objects.filter(room_id=room_id).update(
        driver=process, driver_until=timezone.now() + timedelta(seconds=seconds)
    )


async def test_a_lease_that_ran_out_since_the_last_read_is_read_again_before_a_move(elsewhere):
    # The owner renews every second and this process reads every second: the lease end it
    # last read can pass while the owner lives on, renewed. The move still goes to the owner.
    alice, bob, room = await _cast()
    owners.note([(room.pk, OWNER, timezone.now() - timedelta(seconds=0.1))])
    assert owners.elsewhere(room.pk) is None  # by the last read, the lease ran out
    await sync_to_async(_lease_in_db)(room.pk, OWNER, 60)  # but the owner has renewed it
    owners.ensure_serving(OWNER)
    before = await sync_to_async(_version)(room.pk)

    outcome = await rooms.act(room.pk, 0, {"type": "flip"}, check=authority.holder(0, alice))

    assert outcome.table is None and outcome.version == before + 1
    assert await sync_to_async(_log)(room.pk) == [(0, before + 1, "", OWNER)]
    assert owners.elsewhere(room.pk) == OWNER  # the fresh read is kept: no query per move


async def test_a_match_the_last_read_did_not_have_yet_goes_to_the_owner_the_database_names(
    elsewhere,
):
    # Started by another process a moment ago: this one's driver has not read its lease yet.
    alice, bob, room = await _cast()
    await sync_to_async(_lease_in_db)(room.pk, OWNER, 60)
    owners.ensure_serving(OWNER)
    before = await sync_to_async(_version)(room.pk)

    outcome = await rooms.act(room.pk, 0, {"type": "flip"}, check=authority.holder(0, alice))

    assert outcome.table is None
    assert await sync_to_async(_log)(room.pk) == [(0, before + 1, "", OWNER)]


async def test_an_owner_whose_lease_ran_out_in_the_database_too_is_gone_and_the_move_is_here(
    elsewhere,
):
    alice, bob, room = await _cast()
    owners.note([(room.pk, "gone-host:1:dead", timezone.now() - timedelta(seconds=0.1))])
    await sync_to_async(_lease_in_db)(room.pk, "gone-host:1:dead", -0.1)
    before = await sync_to_async(_version)(room.pk)

    outcome = await rooms.act(room.pk, 0, {"type": "flip"}, check=authority.holder(0, alice))

    assert outcome.table is not None and outcome.version == before + 1
    assert await sync_to_async(_log)(room.pk) == [(0, before + 1, "", owners.me())]


async def test_sentences_in_params_and_events_travel_as_parts():
    eight = Sentence("an %(value)d", value=8)
    cards = ngettext("%(n)d card", "%(n)d cards", 3, n=3)
    data = {"what": eight, "events": [{"message": cards}], "n": 1}
    back = owners.decode(owners.encode(data))
    assert back == data
    assert back["what"].template == "an %(value)d" and back["what"].params == {"value": 8}
    assert str(back["events"][0]["message"]) == "3 cards"
    assert back["events"][0]["message"].plural == "%(n)d cards"


async def test_an_inbox_name_is_a_valid_channel_name():
    name = owners.inbox("host.example:123:ab/cd ef")
    assert name == "owners.inbox.host.example_123_ab_cd_ef"


# --------------------------------------------------------------------------- the fence


async def test_two_actors_entries_at_one_version_in_one_batch_write_one_and_retry_the_other():
    alice, bob, room = await _cast()
    match = await sync_to_async(Match.objects.get)(room_id=room.pk)
    old, new = LiveRoom(room.pk), LiveRoom(room.pk)
    first = old.apply(await sync_to_async(rooms.from_row)(match), 0, {"type": "flip"})
    second = new.apply(await sync_to_async(rooms.from_row)(match), 1, {"type": "flip"})
    assert first.before == second.before == match.version

    again = await sync_to_async(rooms.here().store.write)([first, second])

    assert again == [second]
    assert await sync_to_async(_version)(room.pk) == match.version + 1
    assert [(s, v) for s, v, _, _ in await sync_to_async(_log)(room.pk)] == [(0, match.version + 1)]


async def test_an_old_actors_pending_move_and_a_rebuilt_ones_both_land_once_in_order(settings):
    alice, bob, room = await _cast()
    settings.ACTION_FLUSH_DELAY = 0.2  # the first move is still pending when the table is rebuilt
    start = (await rooms.room_for(room.pk)).table.version
    pending = asyncio.create_task(rooms.act(room.pk, 0, {"type": "flip"}))
    while (await rooms.room_for(room.pk)).last is None:
        await asyncio.sleep(0)
    rooms.moved([room.pk])  # what a takeover does (tables.live.owners.note)
    # The rebuilt actor starts from the database, where the first move is not yet.
    assert (await rooms.room_for(room.pk)).table.version == start
    second = await rooms.act(room.pk, 1, {"type": "flip"})
    first = await pending

    assert sorted([first.version, second.version]) == [start + 1, start + 2]
    log = await sync_to_async(_log)(room.pk)
    assert [v for _, v, _, _ in log] == [start + 1, start + 2]  # each version once
    live = (await rooms.room_for(room.pk)).table
    recovered = await sync_to_async(rooms.read)(room.pk)
    assert recovered.version == live.version == start + 2
    assert recovered.game.dump(recovered.state) == live.game.dump(live.state)


async def _second_room():
    carol = await sync_to_async(make_user)("carol")
    dave = await sync_to_async(make_user)("dave")
    other = await sync_to_async(started_room)(carol, [dave])
    await sync_to_async(set_state)(other.pk, race_layout)
    return other


def _two_flips(room_id: int, snapshot: bool = False) -> list[authority.Entry]:
    """Two chained flips of one room, applied by an actor of its own to its table as stored."""
    actor = LiveRoom(room_id)
    table = rooms.from_row(Match.objects.get(room_id=room_id))
    first = actor.apply(table, 0, {"type": "flip"})
    second = actor.apply(first.table, 1, {"type": "flip"})
    second.snapshot = snapshot
    return [first, second]


def _snapshot_version(room_id: int) -> int:
    return Match.objects.get(room_id=room_id).rounds.order_by("-number").first().version


async def test_a_batch_of_several_matches_writes_those_whose_fence_holds_and_retries_the_stale():
    # Both matches' runs are in one batch (on PostgreSQL: one statement); the row of the first
    # moved on behind its actor's back: its run comes back to be applied again, and nothing of
    # it is written (log rows, snapshot), while the second match's run is written whole.
    alice, bob, room = await _cast()
    other = await _second_room()
    stale = await sync_to_async(_two_flips)(room.pk, snapshot=True)
    fresh = await sync_to_async(_two_flips)(other.pk, snapshot=True)
    start = {pk: await sync_to_async(_version)(pk) for pk in (room.pk, other.pk)}
    snapshots = {pk: await sync_to_async(_snapshot_version)(pk) for pk in (room.pk, other.pk)}
    await sync_to_async(
        lambda: Match.objects.filter(room_id=room.pk).update(version=start[room.pk] + 5)
    )()
    written = rooms.here().store.written.copy()

    again = await sync_to_async(rooms.here().store.write)([stale[0], fresh[0], stale[1], fresh[1]])

    assert again == stale
    assert await sync_to_async(_version)(room.pk) == start[room.pk] + 5
    assert await sync_to_async(_log)(room.pk) == []
    assert await sync_to_async(_snapshot_version)(room.pk) == snapshots[room.pk]
    assert await sync_to_async(_version)(other.pk) == start[other.pk] + 2
    logged = await sync_to_async(_log)(other.pk)
    assert [(s, v) for s, v, _, _ in logged] == [(0, start[other.pk] + 1), (1, start[other.pk] + 2)]
    assert await sync_to_async(_snapshot_version)(other.pk) == start[other.pk] + 2
    recovered = await sync_to_async(rooms.read)(other.pk)
    assert recovered.game.dump(recovered.state) == fresh[1].table.game.dump(fresh[1].table.state)
    if await sync_to_async(lambda: connection.vendor)() == "postgresql":
        assert rooms.here().store.written["postgres"] == written["postgres"] + 1  # one statement


async def test_a_batch_of_several_matches_whose_fences_all_hold_writes_each_run_once_in_order():
    alice, bob, room = await _cast()
    other = await _second_room()
    runs = {pk: await sync_to_async(_two_flips)(pk) for pk in (room.pk, other.pk)}
    start = {pk: run[0].before for pk, run in runs.items()}

    again = await sync_to_async(rooms.here().store.write)(
        [runs[other.pk][0], runs[room.pk][0], runs[other.pk][1], runs[room.pk][1]]
    )

    assert again == []
    for pk in (room.pk, other.pk):
        assert await sync_to_async(_version)(pk) == start[pk] + 2
        logged = await sync_to_async(_log)(pk)
        assert [(s, v) for s, v, _, _ in logged] == [(0, start[pk] + 1), (1, start[pk] + 2)]


async def test_a_batch_of_one_match_whose_row_moved_on_writes_nothing_and_comes_back():
    alice, bob, room = await _cast()
    run = await sync_to_async(_two_flips)(room.pk)
    moved = run[0].before + 3
    await sync_to_async(lambda: Match.objects.filter(room_id=room.pk).update(version=moved))()

    again = await sync_to_async(rooms.here().store.write)(run)

    assert again == run
    assert await sync_to_async(_version)(room.pk) == moved
    assert await sync_to_async(_log)(room.pk) == []
