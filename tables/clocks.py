"""Decision clocks for timed tables (a game's `clock` option) and idle players of a race.

Who owes a decision is read from the rules' legal actions (the rules keep no clock): a seat
owes one when it may do something that is not optional (the game says which, and what the
decision is: `Game.optional_actions`, `Game.decision`). The clock of a decision lives on
the match row (`Match.clock`, durable): its key, the human seats it runs for, since and until
when, and each seat's timeouts in a row. The bot driver's step calls `Keeper.tick`:
it starts a clock when a new decision is due, gives a decision that was due before this
process took the room its full time again from the takeover (downtime never counts), and when
time runs out a bot decides for the seat; after `MISSES_FOR_STAND_IN` timeouts in a row the
seat gets a stand-in, as for a closed tab (tables.presence). A turn-based table without a
clock keeps no clock, but its people are told when their turn begins (`decision_due`, once a
turn: `Keeper._tell_turn`). The functions above `Keeper` are pure: plain data in, plain data out.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Collection
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Protocol

from django.conf import settings
from django.utils import timezone

from games.engine import IllegalAction
from games.registry import Game
from tables import signals
from tables.errors import PlayError
from tables.models import Match, Player

# A seat's own timeouts in a row that hand it to a stand-in.
MISSES_FOR_STAND_IN = 3
# A bot deciding for a timed-out seat makes at most this many moves (a whole turn is 3).
MOST_MOVES = 8


@dataclass(frozen=True)
class Decision:
    """What the table waits for: its key (the same while it is the same decision), its kind,
    and the seats that owe it."""

    key: list[Any]
    kind: str  # one of the game's `clock_kinds` (a turn, the ready between rounds, ...)
    seats: tuple[int, ...]


def owing(
    legal_by_seat: dict[int, list[dict[str, Any]]], optional: frozenset[str] = frozenset()
) -> tuple[int, ...]:
    """The seats that owe a decision: those with a legal action that is not `optional` (the
    game's `optional_actions`)."""
    return tuple(
        seat
        for seat, legal in sorted(legal_by_seat.items())
        if any(a.get("type") not in optional for a in legal)
    )


def decision(
    view: dict[str, Any], legal_by_seat: dict[int, list[dict[str, Any]]], game: Game
) -> Decision | None:
    """The decision a table of `game` waits for, from a spectator's view and every seat's
    legal actions: its key and kind are the game's word (`Game.decision`), its seats those
    that owe it."""
    seats = owing(legal_by_seat, game.optional_actions)
    if not seats:
        return None
    key, kind = game.decision(view)
    return Decision(key, kind, seats)


def seconds_for(options: dict[str, Any]) -> int:
    """The seconds a decision allows under a match's options (0: no clock; older matches)."""
    value = options.get("clock", 0)
    return value if type(value) is int and value > 0 else 0


def _iso(at: datetime) -> str:
    return at.isoformat()


def _at(text: str) -> datetime:
    return datetime.fromisoformat(text)


def misses_of(clock: dict[str, Any]) -> dict[str, int]:
    misses = clock.get("misses")
    return dict(misses) if isinstance(misses, dict) else {}


def start(
    clock: dict[str, Any],
    made: Decision,
    humans: list[int],
    now: datetime,
    seconds: int,
    version: int,
) -> dict[str, Any]:
    """The clock of a decision that just became due; the seats that made the last one in time
    start their count of timeouts in a row again."""
    misses = misses_of(clock)
    last = clock.get("last_timeout")
    timed_out = set(clock.get("timed_out", ()))
    for seat in clock.get("seats", ()):
        if seat not in timed_out:
            misses.pop(str(seat), None)
    return {
        "key": made.key,
        "kind": made.kind,
        "seats": list(humans),
        "since": _iso(now),
        "deadline": _iso(now + timedelta(seconds=seconds)),
        "seconds": seconds,
        "version": version,
        "misses": misses,
        "timed_out": [],
        # What a bot last decided for a timed-out seat stays news for the next decision only.
        "last_timeout": last
        if isinstance(last, dict) and last.get("key") == clock.get("key")
        else None,
    }


def passed(clock: dict[str, Any]) -> dict[str, Any]:
    """A clock whose decision is over while bots owe the next one: shown for nothing again (no
    key), its seats and counts of timeouts kept for the next person's clock (`start`)."""
    return {**clock, "key": None}


def resumed(clock: dict[str, Any], taken_at: datetime) -> dict[str, Any] | None:
    """A clock started before this process took the room: its full time again from the
    takeover (None: nothing to change, the clock is this process's own).

    The time between the last process's end and the takeover is the server's, never the
    player's: the deadline never comes sooner than `seconds` after the takeover.
    """
    if _at(clock["since"]) >= taken_at:
        return None
    deadline = max(_at(clock["deadline"]), taken_at + timedelta(seconds=clock["seconds"]))
    return {**clock, "since": _iso(taken_at), "deadline": _iso(deadline)}


def expired(clock: dict[str, Any], now: datetime) -> bool:
    return now >= _at(clock["deadline"])


def timed_out(
    clock: dict[str, Any], seats: list[int], now: datetime
) -> tuple[dict[str, Any], list[int]]:
    """Count a timeout for each of `seats`; return the clock and the seats now due a stand-in."""
    misses = misses_of(clock)
    stand_ins = []
    for seat in seats:
        misses[str(seat)] = misses.get(str(seat), 0) + 1
        if misses[str(seat)] >= MISSES_FOR_STAND_IN:
            stand_ins.append(seat)
            misses.pop(str(seat))
    last = {"seats": list(seats), "at": _iso(now), "key": clock["key"], "stand_in": stand_ins}
    new = {
        **clock,
        "misses": misses,
        "timed_out": sorted(set(clock.get("timed_out", ())) | set(seats)),
        "last_timeout": last,
    }
    return new, stand_ins


def shown(clock: dict[str, Any], made: Decision | None) -> dict[str, Any] | None:
    """The view's `clock`: whose decision, its deadline and the seconds it allows (None: none
    running). A stored clock of another decision is not shown (the driver starts the new one)."""
    if not clock or made is None or clock.get("key") != made.key:
        return None
    seats = [s for s in made.seats if s in clock.get("seats", ()) and s not in clock["timed_out"]]
    if not seats:
        return None
    return {
        "seats": seats,
        "kind": clock["kind"],
        "deadline": clock["deadline"],
        "seconds": clock["seconds"],
    }


def last_timeout(clock: dict[str, Any]) -> dict[str, Any] | None:
    """The view's `timed_out`: the seats a bot last decided for, when, and who got a stand-in."""
    last = clock.get("last_timeout") if clock else None
    if not isinstance(last, dict):
        return None
    return {"seats": last["seats"], "at": last["at"], "stand_in": last["stand_in"]}


# --------------------------------------------------------------------------- the driver's hook


def table_decision(table: Any) -> Decision | None:
    """The decision `table` (a tables.current.Table) waits for, if it is being played."""
    if table.status() not in ("playing", "round_over"):
        return None
    game, state = table.game, table.state
    legal = {p.seat: game.legal_actions(state, p.seat) for p in table.players}
    return decision(game.player_view(state, None), legal, game)


class Rows(Protocol):
    """What a clock reads and saves, through the live path's one door to the database
    (tables.live.store, handed in: the store reads tables.current, which reads this module)."""

    def moved_on(
        self, match_id: int, since: int, seats: list[int], optional: Collection[str]
    ) -> bool: ...
    def last_move_at(self, match_id: int) -> datetime | None: ...
    def seats_acted(self, round_id: int, since: datetime | None) -> set[int]: ...
    def save_match(self, match: Match, *fields: str) -> None: ...
    def save_player(self, player: Player, *fields: str) -> None: ...


class Keeper:
    """One match's clock in the bot driver (tables.driver.MatchBots.step calls `tick`)."""

    def __init__(
        self,
        room_id: int,
        driver: str,
        taken_at: datetime,
        rng: random.Random,
        touch: Callable[..., Any],
        act: Callable[..., Any],
        rows: Rows,
    ) -> None:
        # The write path's `touch` and `act` (tables.play) and the store's reads and saves
        # (`rows`), handed in: tables.play and the store read tables.current, which reads
        # this module.
        self.touch, self.act, self.rows = touch, act, rows
        self.room_id = room_id
        self.driver = driver
        self.taken_at = taken_at  # when this process started driving the room
        self.rng = rng
        self.checked = -1  # the version the log was last checked at (`_passed`)
        # The last moment (round, "late N" or "end") whose idle players were looked at.
        self.idle_checked: tuple[int, str] | None = None
        self.made: tuple[tuple[int, int], Decision | None] | None = None
        # A table without a clock: the turn last told (its key, the version it was told at,
        # its seats), and whether the first look (a turn begun before the takeover) was had.
        self.told: tuple[list[Any], int, tuple[int, ...]] | None = None
        self.first_look_done = False

    def tick(self, table: Any, read: Any) -> Any:
        """Start, resume or run out the clock of `table`; return the table as it is now
        (`read()` reads it again after a change; None: the room is gone)."""
        if table.match.status != Match.Status.PLAYING or table.counting_down():
            return table
        seconds = seconds_for(table.match.options)
        if not seconds:
            self._tell_turn(table)
            return self._idle_round(table, read)
        # Looked at every step (4 times a second while bots wait): once per version is enough.
        seen = (table.version, id(table.state))
        if self.made is None or self.made[0] != seen:
            self.made = (seen, table_decision(table))
        made = self.made[1]
        if made is None:
            return table
        humans = [s for s in made.seats if _human(table, s)]
        clock = table.match.clock or {}
        now = timezone.now()
        same = clock.get("key") == made.key
        if same and self._passed(table, clock.get("kind"), clock["version"], clock["seats"]):
            same = False  # the same seat's turn again, and the driver did not see it pass
        if not same:
            if not humans:
                # Bots owe it: no clock. A person's clock still stored is put aside (its key
                # dropped), or his next turn, with the same key, would show its old deadline
                # until the new clock starts (issue 45 item 11).
                if clock.get("key") is None:
                    return table
                return self._save(passed(clock), read)
            saved = self._save(start(clock, made, humans, now, seconds, table.version), read)
            people = [p.user_id for p in table.players if p.seat in humans and p.user_id]
            signals.decision_due.send(
                sender=Match,
                room_id=self.room_id,
                game=table.match.game,
                kind=made.kind,
                user_ids=people,
            )
            return saved
        again = resumed(clock, self.taken_at)
        if again is not None:
            return self._save(again, read)
        late = [s for s in humans if s in clock["seats"] and s not in clock["timed_out"]]
        if not late or not expired(clock, now):
            return table
        clock, stand_ins = timed_out(clock, late, now)
        table = self._save(clock, read, tuple(stand_ins))
        for seat in late:
            if table is None:
                return None
            if seat not in stand_ins:  # a stand-in is the driver's own bot from now on
                table = self._decide_for(table, seat, made.key, read)
        return table

    def _passed(self, table: Any, kind: Any, version: int, seats: list[int]) -> bool:
        """Whether the decision was made and came round again since `version` (its clock
        started, or its turn was told): a decision passing from seat to seat (the game's
        `turn_kinds`) moves on only by a move of another seat than `seats` (an optional one
        aside), which the log shows."""
        game = table.game
        if kind not in game.turn_kinds or table.version == self.checked:
            return False
        self.checked = table.version
        return self.rows.moved_on(table.match.pk, version, seats, game.optional_actions)

    def _tell_turn(self, table: Any) -> None:
        """A turn-based table without a clock: tell the people whose turn begins, once a turn
        (`decision_due`, as a timed table's clock does when it starts; the social app tells
        only those whose pages are hidden). A turn that began before this process took the
        room was told by the process before."""
        if table.game.race:
            return
        seen = (table.version, id(table.state))
        if self.made is None or self.made[0] != seen:
            self.made = (seen, table_decision(table))
        made = self.made[1]
        humans = [s for s in made.seats if _human(table, s)] if made is not None else []
        if made is None or made.kind != "turn" or not humans:
            self.told = None
            return
        told = self.told
        if told is not None and told[0] == made.key:
            if not self._passed(table, made.kind, told[1], list(told[2])):
                return  # the same turn, still going
        elif told is None and self._began_before_taken(table):
            self.told = (made.key, table.version, tuple(humans))
            return
        self.told = (made.key, table.version, tuple(humans))
        signals.decision_due.send(
            sender=Match,
            room_id=self.room_id,
            game=table.match.game,
            kind=made.kind,
            user_ids=[p.user_id for p in table.players if p.seat in humans and p.user_id],
        )

    def _began_before_taken(self, table: Any) -> bool:
        """Whether the table's current turn began before this process drove the room (its
        last move, or the round's start, is older than the takeover)."""
        if self.first_look_done:
            return False
        self.first_look_done = True
        began = self.rows.last_move_at(table.match.pk) or table.match.starts_at
        return began is not None and began < self.taken_at

    def _save(self, clock: dict[str, Any], read: Any, stand_ins: tuple[int, ...] = ()) -> Any:
        def change(table: Any) -> bool:
            table.match.clock = clock
            self.rows.save_match(table.match, "clock")
            for player in table.players:
                if player.seat in stand_ins and not player.stand_in:
                    player.stand_in = True
                    player.bot_level = player.bot_level or "normal"
                    self.rows.save_player(player, "stand_in", "bot_level")
            return True

        self.touch(self.room_id, change)
        return read()

    def _decide_for(self, table: Any, seat: int, key: list[Any], read: Any) -> Any:
        """A bot makes the timed-out seat's decision (all of it: both opening cards, a turn)."""
        level = next((p.bot_level for p in table.players if p.seat == seat), "") or "normal"
        for _ in range(MOST_MOVES):
            made = table_decision(table)
            if made is None or made.key != key or seat not in made.seats:
                break
            view = table.view(seat)
            action, _delay = table.game.bot_choose(view, level, self.rng)
            if action is None:  # a bot that would wait (for an optional move) must decide now
                optional = table.game.optional_actions
                action = next((a for a in view["legal"] if a["type"] not in optional), None)
            if action is None:
                break
            try:
                self.act(self.room_id, seat, action, by_bot=True, driver=self.driver)
            except (IllegalAction, PlayError):
                break
            table = read()
            if table is None:
                return None
        return table

    def _idle_round(self, table: Any, read: Any) -> Any:
        """A table without a clock: a human who has done nothing in the round, by its end or,
        in a race (`Game.race`), for `ROUND_IDLE` seconds while it goes on, is marked away as
        for a closed tab (his page counts down), and a stand-in takes the seat when the grace
        runs out (tables.presence.replace_absent) unless he acts first (his own move ends the
        mark: tables.live.rooms.apply_here). Without it an idle hand could stall a race for
        good: a standstill counts the cards his flips would show (L14)."""
        if table.round is None:
            return table
        status = table.status()
        since: datetime | None = None  # who acted in the whole round
        if status == "round_over":
            moment = (table.round.pk, "end")
        else:
            started = table.match.starts_at
            # Time before this process drove the room is not his (a restart, a takeover).
            since = max(started, self.taken_at) if started is not None else self.taken_at
            window = max(settings.ROUND_IDLE, 0.001)
            elapsed = (timezone.now() - since).total_seconds()
            if not table.game.race or status != "playing" or elapsed < window:
                return table
            # Looked at once a window: who has done nothing in the last one.
            moment = (table.round.pk, f"late {int(elapsed // window)}")
            since = timezone.now() - timedelta(seconds=window)
        if self.idle_checked == moment:
            return table
        self.idle_checked = moment
        acted = self.rows.seats_acted(table.round.pk, since)
        idle = [p.seat for p in table.players if _human(table, p.seat) and p.seat not in acted]
        if not idle:
            return table
        now = timezone.now()

        def change(t: Any) -> bool:
            marked = False
            for player in t.players:
                if player.seat in idle and not player.stand_in and player.away_since is None:
                    player.away_since = now
                    self.rows.save_player(player, "away_since")
                    marked = True
            return marked

        self.touch(self.room_id, change)
        return read()


def _human(table: Any, seat: int) -> bool:
    """Whether a person plays `seat` himself now (no bot, no leaver, no stand-in)."""
    return any(p.seat == seat and not p.is_bot for p in table.players)
