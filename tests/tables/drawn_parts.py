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
from pathlib import Path
from typing import Any

import django
from django.utils import translation

if __name__ == "__main__":  # run as a script: the site's test settings
    import os

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tests.settings")
    django.setup()

from tables.current import Table  # noqa: E402
from tables.live import render  # noqa: E402
from tables.live.room import LiveRoom  # noqa: E402
from tables.models import Match  # noqa: E402
from tests.tables.in_memory import Reader, accepted, table  # noqa: E402

GOLDEN = Path(__file__).with_name("drawn_parts.json.gz")
LANGUAGES = ("en", "de", "ru", "ko")
FULL_EVERY = 100  # moves between whole tables drawn (and when the status changes)

# (game, seats, options, seed, moves, who sits): "person", "stand-in", "away", "bot", "odd".
MATCHES: tuple[tuple[str, int, dict[str, Any], int, int, tuple[str, ...]], ...] = (
    ("ligretto-mini", 2, {}, 5, 400, ("person", "odd")),
    ("ligretto-mini", 2, {"row_variant": True}, 9, 400, ("stand-in", "away")),
    ("ligretto", 4, {"rounds": 2}, 11, 500, ("person", "person", "bot", "away")),
    ("ligretto", 3, {"rounds": 1, "row_variant": True}, 3, 400, ("stand-in", "person", "odd")),
)


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

    def pick(current: Table) -> tuple[int, dict[str, Any] | None]:
        seat = rng.randrange(seats)
        return seat, _choose(current.view(seat), rng)

    dealt = table(game, seats, seed, options, who)
    yield dealt, []
    for moves, (current, events) in enumerate(accepted(dealt, pick), 1):
        yield current, events
        if moves == count or current.match.status != Match.Status.PLAYING:
            return


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
