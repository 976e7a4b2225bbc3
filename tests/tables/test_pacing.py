"""Paced tables (issue 41): each player's plays at least `pace` apart, early plays wait their
turn (a queue of one), bots at a fraction of their speed; ratings kept apart per pace."""

from __future__ import annotations

import asyncio
import math
import time

import pytest
from asgiref.sync import sync_to_async

from games.engine import IllegalAction
from games.registry import GAMES
from lobby import quickplay
from lobby.services import RoomError
from tables.driver import MatchBots
from tables.live import rooms
from tables.models import ActionLog, Match
from tables.pacing import Pacer
from tables.ratings import rating_key
from tests.conftest import make_user
from tests.tables.helpers import started_room

PACE = 0.5


def _gaps(times: list) -> list[float]:
    return [(b - a).total_seconds() for a, b in zip(times, times[1:], strict=False)]


def _applied_times(room_id: int) -> dict[int, list]:
    rows = ActionLog.objects.filter(match__room_id=room_id, refused="").order_by("version")
    times: dict[int, list] = {}
    for seat, at in rows.values_list("seat", "created_at"):
        times.setdefault(seat, []).append(at)
    return times


def _a_repeatable_play(room_id: int, seat: int) -> dict | None:
    """A flip when one is legal: it stays legal when sent twice, so both of a pair are applied
    (a card goes once). Playing cards instead could empty the stack and end the round before
    any pair had been applied both, on some deals."""
    view = rooms.read(room_id).view(seat)
    legal = [a for a in view.get("legal", ()) if a["type"] != "ready"]
    flips = [a for a in legal if a["type"] == "flip"]
    return dict((flips or legal)[0]) if legal else None


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_a_paced_table_keeps_every_players_plays_apart_and_its_bots_slow(settings):
    settings.BOT_PACE = 0.5  # a normal bot's 0.75-1.25 s, halved: 0.375-0.625 s at 1x
    alice = await sync_to_async(make_user)("alice")
    room = await sync_to_async(started_room)(
        alice, game="ligretto-mini", bots=1, pace=PACE, bot_speed=0.5
    )
    rooms.bind(asyncio.get_running_loop())
    bots = MatchBots(room.pk)
    playing = True

    async def drive() -> None:
        while playing:
            wait = await sync_to_async(bots.step, thread_sensitive=False)()
            if wait is None:
                return
            await asyncio.sleep(min(wait, 0.05))

    driving = asyncio.create_task(drive())
    waited, queued_refusals, sent = [], 0, 0
    outcomes: list[list[str]] = []  # each pair's two plays: applied, or the refusal's code
    last_applied = 0.0
    # Six seconds of play at least; on a loaded machine on until a pair has been applied both,
    # for at most twenty.
    begun = time.monotonic()
    while (elapsed := time.monotonic() - begun) < 6 or (not waited and elapsed < 20):
        action = await sync_to_async(_a_repeatable_play)(room.pk, 0)
        if action is None:
            break
        # Each pair a pace after the last play applied, so that its first play is not early
        # (it would wait, and its second be refused as the one too many).
        await asyncio.sleep(max(0.0, last_applied + PACE + 0.05 - time.monotonic()))
        # Two plays at once and a third right behind: the second waits its turn, the
        # third is refused while it waits (a queue of one).
        started = time.monotonic()
        first = asyncio.create_task(rooms.act(room.pk, 0, action))
        second = asyncio.create_task(rooms.act(room.pk, 0, action))
        await asyncio.sleep(0.05)
        try:
            await rooms.act(room.pk, 0, action)
        except IllegalAction as refusal:
            queued_refusals += refusal.code == "pace_queued"
            # The API's 429 says when to try again (Retry-After): the wait and one pace.
            assert 1 <= getattr(refusal, "retry_after", 0) <= math.ceil(2 * PACE) + 1
        applied, outcome = 0, []
        for task in (first, second):
            try:
                await task
                applied += 1
                outcome.append("applied")
            except IllegalAction as refusal:
                outcome.append(refusal.code)
        outcomes.append(outcome)
        last_applied = time.monotonic()
        sent += applied
        if applied == 2:
            waited.append(time.monotonic() - started)
    playing = False
    await driving

    times = await sync_to_async(_applied_times)(room.pk)
    assert sent >= 4 and queued_refusals >= 3
    # Both of a pair applied: the second waited its turn, neither was refused for speed.
    assert waited and all(w >= PACE for w in waited), outcomes
    for seat in (0, 1):
        assert len(times.get(seat, [])) >= 3, times
        assert min(_gaps(times[seat])) >= PACE, (seat, _gaps(times[seat]))
    # The bot plays at half its speed: its delays (0.375 s at least, at 1x) are doubled.
    assert min(_gaps(times[1])) >= 0.75


def test_a_play_waits_while_the_seats_last_one_is_being_written():
    # A writer running behind: the seat's last play is durable more than a pace after it was
    # applied. Its next play waits for that moment, then a pace from it: the log's times (the
    # batch's) stay a pace apart (a clean clone's keyboard match logged two plays 7 ms apart).
    pace, pacer = 0.05, Pacer()
    pacer.applied(0)
    applied_at = pacer.played_at[0]
    time.sleep(2 * pace)
    assert pacer.wait_for(0, pace) > 0  # a pace has passed, but it is still being written
    written = time.time()
    pacer.settled(0, durable=True)
    assert pacer.played_at[0] >= written > applied_at + pace  # from its durable moment
    assert pacer.wait_for(0, pace) <= pace
    # A write that failed frees the seat: its next play counts from the apply.
    pacer.applied(1)
    time.sleep(2 * pace)
    pacer.settled(1, durable=False)
    assert pacer.wait_for(1, pace) <= 0
    assert pacer.unsettled == set()


@pytest.mark.django_db
def test_pace_options_are_checked_and_kept_apart_from_the_rules():
    game = GAMES["allegra"]
    checked = game.check_options(3, {"pace": 1.5, "bot_speed": 0.25})
    assert checked["pace"] == 1.5 and checked["bot_speed"] == 0.25
    assert game.check_options(3, {}) == game.check_options(3, {"pace": 0})
    for bad in ({"pace": 0.2}, {"pace": "fast"}, {"pace": 1, "bot_speed": 2}, {"bot_speed": 0.5}):
        with pytest.raises(IllegalAction) as refused:
            game.check_options(3, bad)
        assert refused.value.code == "invalid_options"
    # The rules never see them: a paced deal is the same deal.
    assert game.dump(game.new_match(3, checked, seed=7)) == game.dump(game.new_match(3, {}, seed=7))


@pytest.mark.django_db
def test_ratings_of_paced_tables_have_their_own_key():
    assert rating_key("ligretto-mini", {"pace": 1.5, "bot_speed": 0.5}) == "ligretto-mini@1.5"
    assert rating_key("allegra", {"pace": 3.0}) == "allegra@3"
    assert rating_key("allegra", {"rounds": 2}) == "allegra"


@pytest.mark.django_db
def test_quick_play_can_ask_for_a_paced_table(alice, bob):
    paced = quickplay.play_now(alice, "ligretto-mini", pace="2")
    assert paced.options["pace"] == 2.0 and paced.options["bot_speed"] == 0.5
    # Bob asks for an unpaced table: he is not seated at alice's paced one.
    plain = quickplay.play_now(bob, "ligretto-mini")
    assert plain.pk != paced.pk and "pace" not in plain.options
    with pytest.raises(RoomError):
        quickplay.play_now(bob, "ligretto-mini", pace="9")
    practice = quickplay.practise(make_user("carol"), "allegra", "easy", pace="1")
    match = Match.objects.get(room=practice)
    assert match.options["pace"] == 1.0


def _bot_action(room_id: int, seat: int) -> dict | None:
    """What a bot would do now at `seat` (its choice from its view), or None."""
    import random

    table = rooms.read(room_id)
    action, _ = table.game.bot_choose(table.view(seat), "normal", random.Random(1))
    return action


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_a_paced_table_goes_on_from_the_log_after_another_process_takes_it_over():
    alice = await sync_to_async(make_user)("alice")
    room = await sync_to_async(started_room)(
        alice, game="ligretto-mini", bots=1, pace=PACE, bot_speed=0.5
    )
    rooms.bind(asyncio.get_running_loop())
    await rooms.act(room.pk, 0, await sync_to_async(_a_repeatable_play)(room.pk, 0))
    bot_action = await sync_to_async(_bot_action)(room.pk, 1)
    await rooms.act(room.pk, 1, bot_action, by_bot=True)
    acted = time.monotonic()
    # The room moves to another process: nothing of it (its pacer either) stays here, and
    # the next move builds it afresh from the database, as that process would.
    rooms.moved([room.pk])
    assert rooms.get(room.pk) is None
    await rooms.act(room.pk, 0, await sync_to_async(_a_repeatable_play)(room.pk, 0))
    times = await sync_to_async(_applied_times)(room.pk)
    assert len(times[0]) == 2 and min(_gaps(times[0])) >= PACE, _gaps(times[0])
    # A driver new to the room keeps its bot to the pace itself, from the log (it never
    # waits in the room): its next action is due no sooner than the pace after its last.
    bots = MatchBots(room.pk)
    await sync_to_async(bots.step, thread_sensitive=False)()
    assert bots.due[1] >= acted + PACE - 0.05, bots.due[1] - acted


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_a_waiting_play_keeps_its_place_while_it_waits_for_the_rooms_lock():
    # A queue of one: the play that waits its turn keeps the seat's place until it is applied,
    # also once its wait is over and it waits for the room's lock (a touch, a rebuild). A later
    # play of the seat is then refused; it never overtakes the waiting one.
    alice = await sync_to_async(make_user)("alice")
    room = await sync_to_async(started_room)(alice, game="ligretto-mini", bots=1, pace=PACE)
    rooms.bind(asyncio.get_running_loop())
    action = await sync_to_async(_a_repeatable_play)(room.pk, 0)
    assert action is not None
    await rooms.act(room.pk, 0, action)  # the seat's play: its next must wait a pace
    live = await rooms.room_for(room.pk)
    second = asyncio.create_task(rooms.act(room.pk, 0, action))
    await asyncio.sleep(PACE / 5)  # the second waits its turn
    async with live.lock:  # the room is busy past the end of that wait
        third = asyncio.create_task(rooms.act(room.pk, 0, action))
        await asyncio.sleep(PACE)  # the third waits for the lock before the second does
    with pytest.raises(IllegalAction) as refused:
        await third
    assert refused.value.code == "pace_queued"
    outcome = await second
    assert outcome.version > 0
    times = (await sync_to_async(_applied_times)(room.pk))[0]
    assert len(times) == 2 and _gaps(times)[0] >= PACE
