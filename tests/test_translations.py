"""The four languages stay whole: every string the site says is translated, none fuzzy, in
German, Russian and Korean, and the committed compiled catalogues are those of the .po files.

Extraction and compilation use Debian's gettext (`make gettext` installs it), as
`make messages` and `make compilemessages` do.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from django.utils import translation

ROOT = Path(__file__).resolve().parents[1]
LANGUAGES = ("de", "ru", "ko")
# What extraction reads: the code and templates the site runs (tests and benchmarks say nothing).
SOURCES = (
    "api",
    "cardgames",
    "chat",
    "daily",
    "games",
    "lobby",
    "moderation",
    "social",
    "tables",
    "templates",
    "tournaments",
)


def _catalogue(root: Path, language: str) -> Path:
    return root / "locale" / language / "LC_MESSAGES" / "django.po"


def _statistics(po: Path) -> dict[str, int]:
    """msgfmt's own count of translated, fuzzy and untranslated messages (and it checks them)."""
    done = subprocess.run(
        ["msgfmt", "--check", "--statistics", "-o", os.devnull, str(po)],
        capture_output=True,
        text=True,
        env={**os.environ, "LC_ALL": "C"},
    )
    assert done.returncode == 0, done.stderr
    counts = {"translated": 0, "fuzzy": 0, "untranslated": 0}
    for number, kind in re.findall(r"(\d+) (translated|fuzzy|untranslated)", done.stderr):
        counts[kind] = int(number)
    return counts


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_message_is_translated_and_none_is_fuzzy(language: str) -> None:
    counts = _statistics(_catalogue(ROOT, language))
    assert counts["translated"] > 250
    assert counts["fuzzy"] == 0
    assert counts["untranslated"] == 0


@pytest.fixture(scope="module")
def extracted(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the site with its catalogues extracted afresh from its code and templates."""
    copy = tmp_path_factory.mktemp("site")
    for name in SOURCES:
        shutil.copytree(ROOT / name, copy / name, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "locale", copy / "locale")
    shutil.copy(ROOT / "manage.py", copy / "manage.py")
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    env["DJANGO_SETTINGS_MODULE"] = "cardgames.settings"
    args = ["makemessages", *(f"-l{lang}" for lang in LANGUAGES), "--no-obsolete"]
    done = subprocess.run(
        [sys.executable, "manage.py", *args], cwd=copy, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    return copy


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_catalogues_hold_every_string_the_code_and_templates_use(
    extracted: Path, language: str
) -> None:
    # A new string comes out of extraction untranslated (or fuzzy, guessed from a near one);
    # a string no longer used drops out, and the count of translated ones falls.
    fresh = _statistics(_catalogue(extracted, language))
    committed = _statistics(_catalogue(ROOT, language))
    assert fresh["untranslated"] == 0, "run `make messages` and translate the new strings"
    assert fresh["fuzzy"] == 0, "run `make messages` and check the guessed translations"
    assert fresh["translated"] == committed["translated"], "run `make messages`"


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_compiled_catalogue_is_that_of_its_po_file(tmp_path: Path, language: str) -> None:
    po = _catalogue(ROOT, language)
    compiled = tmp_path / "django.mo"
    # The command Django's compilemessages runs.
    subprocess.run(["msgfmt", "--check-format", "-o", str(compiled), str(po)], check=True)
    assert compiled.read_bytes() == po.with_suffix(".mo").read_bytes(), "run `make compilemessages`"


def test_russian_plurals_take_their_three_forms() -> None:
    with translation.override("ru"):
        words = [
            translation.ngettext("%(points)s point", "%(points)s points", n) % {"points": n}
            for n in (1, 3, 5, 21, 12)
        ]
    assert words == ["1 очко", "3 очка", "5 очков", "21 очко", "12 очков"]


def test_an_engine_refusal_is_worded_in_the_readers_language() -> None:
    from games.engine import IllegalAction
    from tables.words import refusal_text

    refusal = IllegalAction(
        "invalid_seats", "This game needs %(low)d to %(high)d players.", low=2, high=12
    )
    assert refusal.message == "This game needs 2 to 12 players."  # the engine's own English
    with translation.override("de"):
        assert refusal_text(refusal) == "Dieses Spiel braucht 2 bis 12 Spieler."
    with translation.override("ko"):
        assert refusal_text(refusal) == "이 게임은 2~12명이 필요합니다."


def test_a_layout_sentence_is_english_as_a_string_and_worded_by_the_site() -> None:
    from games.engine import Sentence
    from tables.words import say

    sentence = Sentence("This game needs %(low)d players.", low=2)
    assert sentence == "This game needs 2 players." and isinstance(sentence, str)
    with translation.override("ru"):
        assert say(sentence) == "Для этой игры нужно игроков: 2."
        assert say("plain") == "plain"


def test_a_layout_sentence_with_a_plural_takes_the_readers_plural_rules() -> None:
    from games.engine import ngettext
    from tables.words import say

    five = ngettext("%(points)s point", "%(points)s points", 5, points=5)
    assert five == "5 points"
    with translation.override("ru"):
        assert say(five) == "5 очков"
        assert say(ngettext("%(points)s point", "%(points)s points", 2, points=2)) == "2 очка"


def test_a_lost_race_names_its_card_in_the_readers_words() -> None:
    from games.ligretto.rules import Card, race_lost
    from tables.live.owners import decode, encode
    from tables.words import refusal_text

    lost = race_lost(Card("blue", 4, 0))
    assert lost.message == "Too slow: blue 4 was taken."
    # A colour is a word by its catalogue's context ("card colour"), here and forwarded from
    # the room's owner process alike.
    for params in (lost.params, decode(encode(lost.params))):
        lost.params = params
        with translation.override("de"):
            assert refusal_text(lost) == "Zu langsam: blau 4 war schon weg."
        with translation.override("ru"):
            assert refusal_text(lost) == "Не успели: синяя 4 уже сыграна."
        with translation.override("ko"):
            assert refusal_text(lost) == "한발 늦었습니다. 파랑 4는 이미 나갔습니다."
