"""Playing a daily room's round to its end in a test, through the real write path."""

from __future__ import annotations

import random
from datetime import UTC, datetime
from typing import Any

from tables import play
from tables.live import rooms


def at(text: str) -> Any:
    """A frozen clock at `text` (ISO 8601, UTC): a callable, as daily.services takes."""
    moment = datetime.fromisoformat(text).replace(tzinfo=UTC)
    return lambda: moment


def play_round(room_id: int, seats: tuple[int, ...] = (0, 1), seed: int = 1) -> dict[str, Any]:
    """Let bots' choices play `seats` (a person's seat 0 too) through tables.play until the
    round ends; return its round_ended event (its points, and the seat that ended it)."""
    rng = random.Random(seed)
    for _ in range(20_000):
        table = rooms.read(room_id)
        assert table is not None
        game = table.game
        for seat in seats:
            action, _delay = game.bot_choose(game.player_view(table.state, seat), "fast", rng)
            if action is None:
                continue
            try:
                outcome = play.act(room_id, seat, action, by_bot=seat != 0)
            except Exception:  # noqa: BLE001 - a race lost to the other seat (L12): next turn
                continue
            for event in outcome.events:
                if event.get("type") == "round_ended":
                    return event
            table = rooms.read(room_id)
            assert table is not None
    raise AssertionError("the round never ended")
