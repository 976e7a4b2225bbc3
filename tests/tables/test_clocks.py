"""Allegra's decision clocks (tables.clocks): deadlines, takeovers, timeouts and stand-ins."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

import pytest

from games.registry import GAMES
from tables import clocks, play
from tables.driver import MatchBots
from tables.live import render, rooms
from tables.models import ActionLog, Match
from tests.conftest import make_user
from tests.tables.helpers import started_room

T0 = datetime(2026, 12, 4, 4, 0, tzinfo=UTC)
ALLEGRA = GAMES["allegra"]


def legal(*types):
    return [{"type": t} for t in types]


# --------------------------------------------------------------------------- pure decisions


def test_every_seat_owes_the_opening_and_only_the_active_seat_a_turn():
    opening = {"status": "playing", "round": 1, "phase": "opening", "turn": 0}
    made = clocks.decision(opening, {0: legal("reveal"), 1: [], 2: legal("reveal")}, ALLEGRA)
    assert made == clocks.Decision([1, "opening"], "opening", (0, 2))

    turn = {"status": "playing", "round": 2, "phase": "decide", "turn": 1}
    # The others may knock (A7), but nobody owes a knock: only seat 1 is waited for.
    made = clocks.decision(
        turn, {0: legal("knock"), 1: legal("swap", "discard"), 2: legal("knock")}, ALLEGRA
    )
    assert made == clocks.Decision([2, "turn", 1], "turn", (1,))

    knock = {"status": "playing", "round": 2, "phase": "knock_place", "turn": 1}
    assert clocks.decision(knock, {0: [], 1: [], 2: legal("place")}, ALLEGRA).kind == "knock"
    ready = {"status": "round_over", "round": 2, "phase": "draw", "turn": 1}
    assert clocks.decision(ready, {0: legal("ready"), 1: []}, ALLEGRA).seats == (0,)
    assert clocks.decision(turn, {0: legal("knock"), 1: []}, ALLEGRA) is None


def test_a_new_decision_gets_its_full_time_and_runs_out_at_its_deadline():
    made = clocks.Decision([1, "turn", 0], "turn", (0,))
    clock = clocks.start({}, made, [0], T0, 30, version=7)
    assert clock["deadline"] == (T0 + timedelta(seconds=30)).isoformat()
    assert not clocks.expired(clock, T0 + timedelta(seconds=29))
    assert clocks.expired(clock, T0 + timedelta(seconds=30))
    assert clocks.shown(clock, made) == {
        "seats": [0],
        "kind": "turn",
        "deadline": clock["deadline"],
        "seconds": 30,
    }
    # The clock of another decision is not shown (the driver starts the new one).
    assert clocks.shown(clock, clocks.Decision([1, "turn", 1], "turn", (1,))) is None


def test_a_takeover_never_counts_the_downtime_against_the_player():
    made = clocks.Decision([1, "turn", 0], "turn", (0,))
    clock = clocks.start({}, made, [0], T0, 30, version=7)
    # The last process died 5 s in; this one took the room over 2 minutes later.
    taken = T0 + timedelta(minutes=2)
    again = clocks.resumed(clock, taken)
    assert again is not None
    assert again["deadline"] == (taken + timedelta(seconds=30)).isoformat()
    assert clocks.resumed(again, taken) is None  # resumed once: it runs on from there
    # Even a quick takeover gives the full time again: the player never pays for it.
    early = T0 + timedelta(seconds=1)
    assert clocks.resumed(clock, early)["deadline"] == (early + timedelta(seconds=30)).isoformat()
    # A clock started after the takeover is this process's own: nothing to resume.
    assert clocks.resumed(clock, T0 - timedelta(seconds=1)) is None


def test_three_timeouts_in_a_row_hand_the_seat_to_a_stand_in_and_a_move_in_time_forgives():
    turn = clocks.Decision([1, "turn", 0], "turn", (0,))
    other = clocks.Decision([1, "turn", 1], "turn", (1,))
    clock = clocks.start({}, turn, [0, 1], T0, 30, version=1)
    for n in (1, 2):
        clock, stand_ins = clocks.timed_out(clock, [0], T0)
        assert stand_ins == [] and clock["misses"] == {"0": n}
        clock = clocks.start(clock, other if n == 1 else turn, [0, 1], T0, 30, version=1)
    clock, stand_ins = clocks.timed_out(clock, [0], T0)
    assert stand_ins == [0] and clock["misses"] == {}
    assert clocks.last_timeout(clock) == {"seats": [0], "at": T0.isoformat(), "stand_in": [0]}

    # Two timeouts, then the player decides in time: the count starts again.
    clock = clocks.start({}, turn, [0], T0, 30, version=1)
    clock, _ = clocks.timed_out(clock, [0], T0)
    clock = clocks.start(clock, turn, [0], T0, 30, version=1)
    clock, _ = clocks.timed_out(clock, [0], T0)
    assert clock["misses"] == {"0": 2}
    clock = clocks.start(clock, other, [0], T0, 30, version=1)  # he moved in time
    clock = clocks.start(clock, turn, [0], T0, 30, version=1)
    assert clock["misses"] == {}


def test_no_clock_option_means_no_clock():
    assert clocks.seconds_for({"rounds": 3}) == 0
    assert clocks.seconds_for({"rounds": 3, "clock": 0}) == 0
    assert clocks.seconds_for({"rounds": 3, "clock": 20}) == 20


# --------------------------------------------------------------------------- at a table


def run_out(room_id: int) -> None:
    """Move the running clock's deadline into the past (as if its time had passed)."""
    match = Match.objects.get(room_id=room_id)
    clock = dict(match.clock)
    clock["deadline"] = (datetime.now(UTC) - timedelta(seconds=1)).isoformat()
    Match.objects.filter(pk=match.pk).update(clock=clock)
    rooms.forget(room_id)


@pytest.mark.django_db(transaction=True)
def test_the_api_view_carries_the_clock_and_a_bot_decides_when_it_runs_out(settings):
    settings.TABLE_COUNTDOWN = 0
    settings.BOT_PACE = 0
    alice = make_user("alice")
    room = started_room(alice, game="allegra", bots=1, rounds=1, clock=20)
    bots = MatchBots(room.pk)
    for _ in range(50):  # the bot turns its two cards; alice's clock starts
        bots.step()
        view = rooms.read(room.pk).view(0)
        if view["clock"] and view["revealed_count"][1] == 2:
            break
    clock = view["clock"]
    assert clock["seats"] == [0] and clock["kind"] == "opening" and clock["seconds"] == 20
    deadline = datetime.fromisoformat(clock["deadline"])
    assert timedelta(seconds=19) < deadline - datetime.now(UTC) <= timedelta(seconds=20)
    assert rooms.read(room.pk).view(None)["clock"] == clock  # every screen sees it
    # The page counts down to it, the deadline in the reader's own zone (static/js/site.js).
    table = rooms.read(room.pk)
    html = render.render_part(table, table.view(None), "status")
    assert 'id="al-clock"' in html and f'data-deadline="{clock["deadline"]}"' in html
    assert 'data-local="hms"' in html

    run_out(room.pk)
    bots.step()
    view = rooms.read(room.pk).view(0)
    # A bot turned both her cards, and the table moved on past the opening.
    assert ActionLog.objects.filter(match__room_id=room.pk, seat=0, by_bot=True).count() == 2
    assert view["timed_out"]["seats"] == [0] and view["timed_out"]["stand_in"] == []
    assert view["phase"] != "opening"
    assert not view["players"][0]["bot"]  # one timeout: still her seat


@pytest.mark.django_db(transaction=True)
def test_a_decision_due_before_the_takeover_gets_its_full_time_again(settings):
    settings.TABLE_COUNTDOWN = 0
    settings.BOT_PACE = 0
    alice = make_user("alice")
    room = started_room(alice, game="allegra", bots=1, rounds=1, clock=20)
    bots = MatchBots(room.pk)
    for _ in range(50):
        bots.step()
        if rooms.read(room.pk).view(0)["clock"]:
            break
    run_out(room.pk)  # the deadline passed while no process drove the room
    # The clock was started before the new process took the room: full time from the takeover.
    match = Match.objects.get(room_id=room.pk)
    since = (datetime.now(UTC) - timedelta(minutes=5)).isoformat()
    Match.objects.filter(pk=match.pk).update(clock={**match.clock, "since": since})
    rooms.forget(room.pk)
    taken_over = MatchBots(room.pk)
    taken_over.step()
    view = rooms.read(room.pk).view(0)
    assert view["revealed_count"][0] == 0 and view["timed_out"] is None
    left = datetime.fromisoformat(view["clock"]["deadline"]) - datetime.now(UTC)
    assert timedelta(seconds=19) < left <= timedelta(seconds=20)


@pytest.mark.django_db(transaction=True)
def test_three_timeouts_in_a_row_give_the_seat_a_stand_in_and_she_gets_it_back(settings):
    from tables import presence

    settings.TABLE_COUNTDOWN = 0
    settings.BOT_PACE = 0
    alice = make_user("alice")
    room = started_room(alice, game="allegra", bots=1, rounds=1, clock=20)
    presence.connected(room.pk, 0)
    bots = MatchBots(room.pk)
    timeouts = 0
    for _ in range(400):
        bots.step()
        table = rooms.read(room.pk)
        if table.players[0].stand_in:
            break
        view = table.view(0)
        if view["clock"] and view["clock"]["seats"] == [0]:
            run_out(room.pk)
            timeouts += 1
    assert table.players[0].stand_in and timeouts == 3
    assert table.view(0)["timed_out"]["stand_in"] == [0]
    assert table.view(0)["players"][0]["bot"]

    # Her page still has its socket; reloading it (a new socket) takes her seat back.
    presence.connected(room.pk, 0)
    assert not rooms.read(room.pk).players[0].is_bot


def _ligretto_with_pages_open(settings, *names):
    """A started two-round Ligretto room of these players, each with his table page open; no
    countdown, bots at once, and a grace long enough that nobody gets a stand-in by itself."""
    from tables import presence

    settings.TABLE_COUNTDOWN = 0
    settings.BOT_PACE = 0
    settings.LEAVER_GRACE = 3600
    host, *others = (make_user(name) for name in names)
    room = started_room(host, others, game="ligretto", rounds=2)
    for seat in range(len(names)):
        presence.connected(room.pk, seat)
    return room


@pytest.mark.django_db(transaction=True)
def test_a_ligretto_player_idle_for_a_whole_round_is_marked_away(settings):
    from tables import play, presence
    from tests.tables.helpers import set_state

    room = _ligretto_with_pages_open(settings, "alice", "bob", "carol")
    # Alice flips her hand once; bob and carol do nothing at all, and the round ends.
    play.act(room.pk, 0, {"type": "flip"})

    def round_over(data):
        data.update(status="round_over")
        return data

    set_state(room.pk, round_over)
    assert rooms.read(room.pk).status() == "round_over"
    MatchBots(room.pk).step()
    # Marked away as for a closed tab (their pages count down to the stand-in), still seated.
    table = rooms.read(room.pk)
    assert [p.away_since is not None for p in table.players] == [False, True, True]
    assert not any(p.stand_in for p in table.players)
    seen = {p["seat"]: p for p in table.view(0)["players"]}
    assert "away_until" in seen[1] and "away_until" in seen[2] and "away_until" not in seen[0]
    assert seen[1]["connected"]  # his page is open: away, not gone

    # Bob's own move (his "ready") says he is back; carol sits the grace out and a bot takes over.
    play.act(room.pk, 1, {"type": "ready"})
    assert presence.replace_absent(room.pk) is None  # within the grace: nobody replaced
    settings.LEAVER_GRACE = 0
    assert presence.replace_absent(room.pk) == [2]
    table = rooms.read(room.pk)
    assert table.players[1].away_since is None and not table.players[1].stand_in
    assert table.players[2].stand_in and table.players[2].is_bot

    # Her page still has its socket; reloading it (a new socket) takes her seat back.
    presence.connected(room.pk, 2)
    assert not rooms.read(room.pk).players[2].is_bot


@pytest.mark.django_db(transaction=True)
def test_a_ligretto_player_idle_for_a_while_is_marked_away_before_the_round_ends(settings):
    # His hand could hold the only plays left (L14 counts what his flips would show): a round
    # must not wait for him for ever, whether he never played or stopped playing.
    import time

    from tables import play

    settings.ROUND_IDLE = 3600
    room = _ligretto_with_pages_open(settings, "alice", "bob")
    bots = MatchBots(room.pk)
    play.act(room.pk, 1, {"type": "flip"})  # bob plays at first, then stops
    bots.step()
    assert all(p.away_since is None for p in rooms.read(room.pk).players)  # not yet

    settings.ROUND_IDLE = 0.5
    time.sleep(0.6)  # that long into the round, and since bob's flip
    play.act(room.pk, 0, {"type": "flip"})
    bots.step()
    table = rooms.read(room.pk)
    assert table.status() == "playing"
    assert [p.away_since is not None for p in table.players] == [False, True]
    # His flip ends the mark; he is not looked at again before the next window.
    play.act(room.pk, 1, {"type": "flip"})
    bots.step()
    assert all(p.away_since is None for p in rooms.read(room.pk).players)


@pytest.mark.django_db(transaction=True)
def test_the_http_view_carries_the_clock_and_the_schema_declares_it(settings):
    from api.schemas import View
    from tests.api.helpers import Api

    settings.TABLE_COUNTDOWN = 0
    settings.BOT_PACE = 0
    alice = make_user("alice")
    room = started_room(alice, game="allegra", bots=1, rounds=1, clock=15)
    bots = MatchBots(room.pk)
    for _ in range(50):
        bots.step()
        if rooms.read(room.pk).view(0)["clock"]:
            break
    view = Api(alice).get(f"rooms/{room.pk}/view").json()
    assert view["clock"]["seats"] == [0] and view["clock"]["seconds"] == 15
    assert view["timed_out"] is None
    View.model_validate(view)  # the schema's View takes it as it is
    # A room without a clock shows none.
    untimed = started_room(make_user("bob"), game="allegra", bots=1, rounds=1, clock=0)
    MatchBots(untimed.pk).step()
    assert rooms.read(untimed.pk).view(0)["clock"] is None


@pytest.mark.django_db(transaction=True)
def test_a_persons_next_turn_never_shows_the_deadline_of_the_turn_before(settings):
    """Issue 45 item 11: after the bots' turns, her turn has the key of her last one: the page
    showed that turn's old deadline (19-23 s "left") until her new clock started."""
    settings.TABLE_COUNTDOWN = 0
    settings.BOT_PACE = 0
    alice = make_user("alice")
    room = started_room(alice, game="allegra", bots=2, rounds=1, clock=30)
    bots = MatchBots(room.pk, rng=random.Random(5))
    rng = random.Random(7)
    game = GAMES["allegra"]
    others = ActionLog.objects.filter(match__room_id=room.pk, refused="").exclude(seat=0)
    turns = 0
    for _ in range(5000):
        if bots.step() is None:
            break
        table = rooms.read(room.pk)
        view = table.view(0)
        shown = view["clock"]
        if not shown or 0 not in shown["seats"]:
            continue
        if shown["kind"] == "turn":
            turns += 1
            # The clock shown is this turn's: started after the move that gave her the turn.
            passed_on = others.exclude(action__type="knock").order_by("-version").first()
            assert table.match.clock["version"] >= passed_on.version, (shown, passed_on.version)
        action, _delay = game.bot_choose(view, "normal", rng)
        if action is not None:
            play.act(room.pk, 0, action)
    assert turns >= 3
