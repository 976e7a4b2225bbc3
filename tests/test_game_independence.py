"""The registry is the only door to a game: no shared module names one.

Each game's name, words, how-to page and layout come through its `games.registry.Game` entry,
so a new game (tests/thirdgame) needs no shared file changed. The import-linter contract
"Shared code imports no game but through the registry" forbids the imports; this test also
catches a game named by its slug or its package's path in a string.
"""

from __future__ import annotations

import re
from pathlib import Path

from games.registry import GAMES

ROOT = Path(__file__).resolve().parents[1]
SHARED = (
    "tables",
    "lobby",
    "api",
    "social",
    "chat",
    "moderation",
    "tournaments",
    "cardgames",
)
# Not `daily/`: the daily challenge is one game's by design (docs/daily.md), named once, in
# daily/deal.py's GAME; it still reaches the game only through the registry (import-linter).


def _names() -> re.Pattern[str]:
    packages = {g.package for g in GAMES.values() if g.package.startswith("games.")}
    words = {g.slug for g in GAMES.values()} | packages | {p.replace(".", "/") for p in packages}
    alternatives = "|".join(sorted(map(re.escape, words), key=len, reverse=True))
    return re.compile(rf"(?<![\w-])({alternatives})(?![\w-])")


def _shared_modules() -> list[Path]:
    return [
        path
        for folder in SHARED
        for path in sorted((ROOT / folder).rglob("*.py"))
        if "migrations" not in path.parts
    ]


def test_no_shared_module_names_a_game():
    names = _names()
    named = {
        f"{path.relative_to(ROOT)}:{n}: {m.group(0)}"
        for path in _shared_modules()
        for n, line in enumerate(path.read_text().splitlines(), 1)
        for m in names.finditer(line)
    }
    assert not named, "\n".join(sorted(named))


def test_the_check_sees_a_slug_and_a_package():
    names = _names()
    assert names.search('SEATS = {"ligretto-mini": 2}')
    assert names.search("from games.allegra.layout import band")
    assert names.search('"games/allegra/how_to_play.html"')
    # Words that only contain a slug are not a game's name.
    assert not names.search("allegrando ligrettos")
