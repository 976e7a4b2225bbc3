"""Seeded Ligretto tables and what the site draws of them: the golden of the parts a layout
draws in Python (tests/tables/test_drawn_parts.py).

.venv/bin/python -m tests.tables.drawn_parts # writes tests/tables/drawn_parts.json.gz

The golden was written by this script from main's Django templates (main at `204d9b5`, before
the partials of Ligretto's seats, piles and own cards were drawn in Python), so that the Python
drawing is held to the bytes the templates drew. Each match is played through the live room's
`apply` (the write path's rules step; in memory, nothing stored) with moves picked from the
seat's own legal actions by a seeded random, and after each move `render.change` draws what
changed for a reader of each language at each seat (every public part and every seat's own, in
en, de, ru, ko); when the status changes and every 100 moves, the whole table of each seat and
of a spectator. The players are plain people, or a stand-in (a bot plays a person's seat), one
away (no socket, a bot takes the seat soon), a bot and a name that needs escaping.
"""

from __future__ import annotations

import gzip
import json
import random
import sys
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import django
from django.utils import translation

if __name__ == "__main__":  # run as a script: the site's test settings
    import os

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tests.settings")
    django.setup()

from games.engine import IllegalAction  # noqa: E402
from games.registry import GAMES  # noqa: E402
from tables.current import Table  # noqa: E402
from tables.errors import PlayError  # noqa: E402
from tables.live import render  # noqa: E402
from tables.live.room import Delivery, LiveRoom  # noqa: E402
from tables.models import Match, Player, Round  # noqa: E402
from tables.reaction import Tracker  # noqa: E402

GOLDEN = Path(__file__).with_name("drawn_parts.json.gz")
LANGUAGES = ("en", "de", "ru", "ko")
FULL_EVERY = 100  # moves between whole tables drawn (and when the status changes)
AWAY_SINCE = datetime(2026, 12, 6, 12, 0, tzinfo=UTC)

# (game, seats, options, seed, moves, who sits): "person", "stand-in", "away", "bot", "odd".
MATCHES: tuple[tuple[str, int, dict[str, Any], int, int, tuple[str, ...]], ...] = (
    ("ligretto-mini", 2, {}, 5, 400, ("person", "odd")),
    ("ligretto-mini", 2, {"row_variant": True}, 9, 400, ("stand-in", "away")),
    ("ligretto", 4, {"rounds": 2}, 11, 500, ("person", "person", "bot", "away")),
    ("ligretto", 3, {"rounds": 1, "row_variant": True}, 3, 400, ("stand-in", "person", "odd")),
)


class Unwritten(Tracker):
    def save(self) -> None:
        self.pending = {}


class Reader:
    """A browser socket of the room (what `render.change` asks of a listener)."""

    def __init__(self, seat: int | None, language: str) -> None:
        self.seat, self.language, self.wants_html = seat, language, True

    def deliver_now(self, delivery: Delivery) -> bool:
        return True

    async def deliver(self, delivery: Delivery) -> None:
        return None

    async def table_notice(self, event: dict[str, Any]) -> None:
        return None


def _player(match: Match, seat: int, who: str) -> Player:
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


def table(game: str, seats: int, options: dict[str, Any], seed: int, who: tuple[str, ...]) -> Table:
    checked = GAMES[game].check_options(seats, options)
    match = Match(
        pk=1, room_id=1, game=game, seed=seed, version=1, status="playing", options=checked
    )
    players = [_player(match, s, w) for s, w in enumerate(who)]
    state = GAMES[game].new_match(seats, checked, seed)
    return Table(match=match, players=players, state=state, round=Round(pk=1, number=1, seed=seed))


def _choose(view: dict[str, Any], rng: random.Random) -> dict[str, Any] | None:
    legal = view.get("legal") or []
    plays = [a for a in legal if a.get("type") == "play"]
    if plays and rng.random() < 0.6:
        return rng.choice(plays)
    others = [a for a in legal if a.get("type") != "play"]
    return rng.choice(others or legal) if legal else None


def played(
    game: str, seats: int, options: dict[str, Any], seed: int, count: int, who: tuple[str, ...]
) -> Iterator[tuple[Table, list[dict[str, Any]]]]:
    """The match's tables and events after each accepted move (the first: as dealt)."""
    rng = random.Random(seed)
    room = LiveRoom(1)
    room.reaction = Unwritten()
    current = table(game, seats, options, seed, who)
    yield current, []
    moves = 0
    while moves < count and current.match.status == Match.Status.PLAYING:
        seat = rng.randrange(seats)
        action = _choose(current.view(seat), rng)
        if action is None:
            continue
        try:
            entry = room.apply(current, seat, action)
        except (IllegalAction, PlayError):
            continue
        if entry.refusal is not None:
            continue
        current = entry.table
        current.match.starts_at = None  # no countdown: the same states every run
        moves += 1
        yield current, entry.events


def drawn(
    game: str, seats: int, options: dict[str, Any], seed: int, count: int, who: tuple[str, ...]
) -> Iterator[dict[str, Any]]:
    """What the site draws of the match, move by move: each change's public and own parts
    per language, and every few moves every seat's (and a spectator's) whole table."""
    room = LiveRoom(1)
    for language in LANGUAGES:
        room.listeners.add(Reader(None, language))
        for s in range(seats):
            room.listeners.add(Reader(s, language))
    status = None
    for n, (current, events) in enumerate(played(game, seats, options, seed, count, who)):
        delivery = render.change(room, current, events)
        public = delivery.public
        change: dict[str, Any] = {
            "version": current.version,
            "public": {"": public["html"], **public["translations"]},
            "own": {
                str(s): {"": p["html"], **p["translations"]} for s, p in delivery.private.items()
            },
        }
        if n % FULL_EVERY == 0 or current.status() != status:
            status = current.status()
            full = {}
            for language in LANGUAGES:
                with translation.override(language):
                    for s in (None, *range(seats)):
                        full[f"{language}:{s}"] = render.render_full(current, s)
            change["full"] = full
        yield change


def golden() -> dict[str, Any]:
    """Every match's drawing, its texts kept once (`texts`, referred to by their index)."""
    texts: dict[str, int] = {}

    def ref(value: Any) -> Any:
        if isinstance(value, str):
            return texts.setdefault(value, len(texts))
        return {k: ref(v) for k, v in value.items()} if isinstance(value, dict) else value

    matches = []
    for game, seats, options, seed, count, who in MATCHES:
        changes = [ref(c) for c in drawn(game, seats, options, seed, count, who)]
        matches.append({"game": game, "seed": seed, "changes": changes})
    return {"texts": list(texts), "matches": matches}


def main() -> None:
    data = golden()
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":")) + "\n"
    GOLDEN.write_bytes(gzip.compress(text.encode(), compresslevel=9, mtime=0))
    changes = sum(len(m["changes"]) for m in data["matches"])
    print(f"{GOLDEN}: {changes} changes, {len(data['texts'])} texts", file=sys.stderr)


if __name__ == "__main__":
    main()
