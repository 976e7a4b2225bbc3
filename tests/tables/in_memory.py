"""Ligretto (or any game's) tables played in memory through the live room's `apply`: no database,
no socket. What tests/tables/drawn_parts.py (the golden of the parts drawn in Python) and
bench/render_change.py (what drawing a push costs) both play.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from games.engine import Event, IllegalAction
from games.registry import GAMES
from tables.current import Table
from tables.errors import PlayError
from tables.live.room import Delivery, LiveRoom
from tables.models import Match, Player, Round
from tables.reaction import Tracker

AWAY_SINCE = datetime(2026, 12, 6, 12, 0, tzinfo=UTC)
# A seat's player, by `table`'s `who`: "person", "stand-in" (a bot plays the person's seat),
# "away" (no socket: a bot takes the seat soon), "bot", "odd" (a name that needs escaping).
Who = str


class Unwritten(Tracker):
    """A reaction-time tracker that writes nothing (no database here)."""

    def save(self) -> None:
        self.pending = {}


@dataclass(eq=False)
class Reader:
    """A browser socket of the room (what `render.change` asks of a listener)."""

    seat: int | None
    language: str
    wants_html: bool = True

    def deliver_now(self, delivery: Delivery) -> bool:
        return True

    async def deliver(self, delivery: Delivery) -> None:
        return None

    async def table_notice(self, event: dict[str, Any]) -> None:
        return None


def _player(match: Match, seat: int, who: Who) -> Player:
    player = Player(
        pk=seat + 1, match=match, seat=seat, name=f"player{seat}", user_id=seat + 1, connections=1
    )
    if who == "stand-in":
        player.stand_in = True
    elif who == "away":
        player.connections, player.away_since = 0, AWAY_SINCE
    elif who == "bot":
        player.user_id, player.bot_level, player.name = None, "normal", "Bot"
    elif who == "odd":
        player.name = 'O\'Neil & <Co> "x"'
    return player


def table(
    game: str,
    seats: int,
    seed: int,
    options: dict[str, Any] | None = None,
    who: tuple[Who, ...] | None = None,
) -> Table:
    """A match of `game` as dealt from `seed` (`options`: the game's defaults when None), its
    seats played by `who` (people when None)."""
    checked = GAMES[game].check_options(seats, options) if options is not None else None
    match = Match(
        pk=1, room_id=1, game=game, seed=seed, version=1, status="playing", options=checked or {}
    )
    players = [_player(match, s, w) for s, w in enumerate(who or ("person",) * seats)]
    state = GAMES[game].new_match(seats, checked, seed)
    return Table(match=match, players=players, state=state, round=Round(pk=1, number=1, seed=seed))


def accepted(
    current: Table, pick: Callable[[Table], tuple[int, dict[str, Any] | None]]
) -> Iterator[tuple[Table, list[Event]]]:
    """Each accepted move's table and events after `current`, for as long as it is asked:
    `pick(table)` names a seat and its move (None, or a move the rules or the room refuse:
    pick again). No countdown between rounds: a table "starting" or "playing" by the wall
    clock would make the same seed draw other changes from run to run."""
    room = LiveRoom(1)
    room.reaction = Unwritten()
    while True:
        seat, action = pick(current)
        if action is None:
            continue
        try:
            entry = room.apply(current, seat, action)
        except (IllegalAction, PlayError):
            continue
        if entry.refusal is not None:
            continue
        current = entry.table
        current.match.starts_at = None
        yield current, entry.events
