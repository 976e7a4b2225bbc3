"""The registry is the only door to a game: no shared module, template, stylesheet or script
names one.

Each game's name, words, how-to page and layout come through its `games.registry.Game` entry,
so a new game (tests/thirdgame) needs no shared file changed. The import-linter contract
"Shared code imports no game but through the registry" forbids the imports; this test also
catches a game named by its slug or its package's path in a string.
"""

from __future__ import annotations

import inspect
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


# Templates, stylesheets and scripts: shared ones may not name a game either. A game's own
# files live under the paths its registry entry names (its layout's TEMPLATE, HOW_TO_PLAY and
# STYLESHEETS): their folders, and the stylesheets themselves.
FRONT = {"templates": (".html", ".js"), "static": (".css", ".js")}


def _own_paths() -> set[Path]:
    own: set[Path] = set()
    for game in GAMES.values():
        if not game.package.startswith("games."):
            continue  # a project's own game (tests/thirdgame) brings its own files
        own.add((ROOT / "templates" / game.layout.TEMPLATE).parent)
        own.add((ROOT / "templates" / game.how_to_play).parent)
        own |= {ROOT / "static" / sheet for sheet in game.stylesheets}
    return own


def _front_names() -> re.Pattern[str]:
    """A slug, a package's path, or a game's name as the site writes it ("Ligretto Mini")."""
    packages = {g.package for g in GAMES.values() if g.package.startswith("games.")}
    words = {g.slug for g in GAMES.values()} | packages | {p.replace(".", "/") for p in packages}
    words |= {g.name for g in GAMES.values()}
    alternatives = "|".join(sorted(map(re.escape, words), key=len, reverse=True))
    return re.compile(rf"(?<![\w-])({alternatives})(?![\w-])")


def _shared_front_files() -> list[Path]:
    own = _own_paths()
    return [
        path
        for folder, suffixes in FRONT.items()
        for path in sorted((ROOT / folder).rglob("*"))
        if path.suffix in suffixes
        and not any(path == p or p in path.parents for p in own)
        and "vendor" not in path.parts
    ]


def test_no_shared_template_stylesheet_or_script_names_a_game():
    names = _front_names()
    files = _shared_front_files()
    assert any(p.name == "table.js" for p in files)  # the check reads what it should
    assert any(p.name == "base.html" for p in files)
    named = {
        f"{path.relative_to(ROOT)}:{n}: {m.group(0)}"
        for path in files
        for n, line in enumerate(path.read_text().splitlines(), 1)
        for m in names.finditer(line)
    }
    assert not named, "\n".join(sorted(named))


def _own_ids() -> set[str]:
    """The element ids (or their fixed beginnings, "lg-seat-") only one game draws: in its
    templates, or in its layout, which draws some parts in Python (`draw_part`)."""
    per_game: dict[str, set[str]] = {}
    for game in GAMES.values():
        if not game.package.startswith("games."):
            continue
        folder = (ROOT / "templates" / game.layout.TEMPLATE).parent
        ids = per_game.setdefault(str(folder), set())
        layout = Path(inspect.getfile(game.layout))
        for path in [*folder.rglob("*.html"), layout]:
            ids |= set(re.findall(r'\bid="([A-Za-z][\w-]*)', path.read_text()))
    return {
        i
        for folder, ids in per_game.items()
        for i in ids
        if not any(i in other for f, other in per_game.items() if f != folder)
    }


def test_no_shared_stylesheet_or_script_reaches_into_a_games_parts_by_id():
    ids = _own_ids()
    assert "lg-center" in ids and "al-discard" in ids  # the check reads what it should
    assert "me-stack" in ids and "live-status" not in ids
    # A fixed beginning ("lg-seat-") goes on with the id's hole; a whole id ends there.
    alternatives = [re.escape(i) + ("" if i.endswith("-") else r"(?![\w-])") for i in ids]
    pattern = re.compile(
        r"(?<![\w-])[#\"'](" + "|".join(sorted(alternatives, key=len, reverse=True)) + ")"
    )
    named = {
        f"{path.relative_to(ROOT)}:{n}: {m.group(0)}"
        for path in _shared_front_files()
        if path.suffix in (".css", ".js")
        for n, line in enumerate(path.read_text().splitlines(), 1)
        for m in pattern.finditer(line)
    }
    assert not named, "\n".join(sorted(named))


def test_a_games_own_front_files_are_left_to_it():
    own = _own_paths()
    files = set(_shared_front_files())
    assert ROOT / "static/css/allegra.css" in own
    assert not any(p.is_relative_to(ROOT / "templates/games/ligretto") for p in files)
    assert ROOT / "templates/games/_table_bar.html" in files


def test_the_check_sees_a_slug_and_a_package():
    names = _names()
    assert names.search('SEATS = {"ligretto-mini": 2}')
    assert names.search("from games.allegra.layout import band")
    assert names.search('"games/allegra/how_to_play.html"')
    # Words that only contain a slug are not a game's name.
    assert not names.search("allegrando ligrettos")
    front = _front_names()
    assert front.search("{% translate 'Play Ligretto and Allegra' %}")
    assert front.search('document.querySelector("#x").classList.contains("allegra")')
    assert not front.search(".allegrando { color: red }")
