"""Every word in the reader's language: pages and live tables in German, Russian and Korean.

Each page and each state of a live table is drawn in every language, and its visible text (text
nodes, `title` and the other attributes a reader sees or hears, the attributes that CSS writes
with `content: attr(...)`) must hold no English phrase of the catalogue and no English month.
An English phrase is a piece of a catalogue entry (between its holes and tags) that the
language translates and that none of its translations says itself.
"""

from __future__ import annotations

import gettext
import random
import re
from functools import cache
from html.parser import HTMLParser
from pathlib import Path

import pytest
from django.utils import translation

from lobby import services
from tables import play
from tables.driver import MatchBots
from tables.live import render
from tests.conftest import client_for, make_user
from tests.tables.allegra_layouts import after_opening, short_round
from tests.tables.helpers import card, set_state, started_room, table

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[1]
LANGUAGES = ("de", "ru", "ko")
MONTHS = re.compile(
    r"\b(January|February|March|April|May|June|July|August|September|October|November|"
    r"December|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept?|Oct|Nov|Dec)\b\.?"
)
# What a reader sees or hears besides the text: tooltips, placeholders, names, CSS's attr().
SEEN = ("title", "placeholder", "alt", "aria-label", "data-short", "data-empty")
HOLE = re.compile(r"%\(\w+\)[sd]|%[sd]|<[^>]*>|\{[^}]*\}")


class _Visible(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self._skip = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("script", "style"):
            self._skip += 1
        self.parts.extend(v for k, v in attrs if k in SEEN and v)
        if tag == "input":
            kind = dict(attrs).get("type")
            self.parts.extend(v for k, v in attrs if k == "value" and v and kind == "submit")

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style"):
            self._skip -= 1

    def handle_data(self, data: str) -> None:
        if not self._skip and data.strip():
            self.parts.append(data)


def visible(html: str) -> str:
    parser = _Visible()
    parser.feed(html)
    return "\n".join(" ".join(p.split()) for p in parser.parts)


@cache
def english_phrases(code: str) -> tuple[re.Pattern[str], frozenset[str]]:
    """The catalogue's English pieces that `code` translates, as one pattern."""
    with open(ROOT / "locale" / code / "LC_MESSAGES" / "django.mo", "rb") as mo:
        catalogue = gettext.GNUTranslations(mo)._catalog  # type: ignore[attr-defined]
    said = " ".join(str(v) for v in catalogue.values())
    pieces: set[str] = set()
    for key, value in catalogue.items():
        msgid = key[0] if isinstance(key, tuple) else key
        msgid = msgid.split("\x04")[-1]
        if not msgid or msgid == value:
            continue
        for piece in HOLE.split(msgid):
            piece = piece.strip(" .,:;!?()·–—…\n\"'")
            words = re.findall(r"[A-Za-z]+", piece)
            if not words or not re.fullmatch(r"[A-Za-z][A-Za-z ’'-]*[A-Za-z]", piece):
                continue
            if len(words) == 1 and len(piece) < 4:
                continue  # a letter or a short word ("gg", "H") says too little
            if re.search(rf"(?<![\w-]){re.escape(piece)}(?![\w-])", said):
                continue  # the language says it too (a name, "live")
            pieces.add(piece)
    alternatives = "|".join(sorted(map(re.escape, pieces), key=len, reverse=True))
    return re.compile(rf"(?<![\w-])({alternatives})(?![\w-])"), frozenset(pieces)


def english_in(html: str, code: str) -> list[str]:
    text = visible(html)
    pattern, _ = english_phrases(code)
    found = [m.group(0) for m in pattern.finditer(text)]
    found += [f"month {m.group(0)}" for m in MONTHS.finditer(text)]
    return sorted(set(found))


def _page(user, url: str, code: str) -> str:
    client = client_for(user) if user is not None else __import__("django").test.Client()
    answer = client.get(url, headers={"Accept-Language": code})
    assert answer.status_code == 200, (url, answer.status_code)
    assert answer["Content-Language"] == code
    return answer.content.decode()


def _pushed(room_id: int, seat: int | None, code: str, events=()) -> str:
    """Every part a table's socket pushes after a change with `events`, in `code`."""
    t = table(room_id)
    view = t.view(seat)
    with translation.override(code):
        layout = render.layout_for(t.match.game)
        parts = [*layout.public_parts(view)]
        if seat is not None:
            parts.append("me")
        # As a push draws each: by the layout itself, or by its template's partial.
        html = [render.render_part(t, view, part, seat, list(events)) for part in parts]
        return "\n".join(html)


def _check(pages: dict[str, str], code: str) -> None:
    wrong = {name: english_in(html, code) for name, html in pages.items()}
    wrong = {name: found for name, found in wrong.items() if found}
    assert not wrong, f"English on {code} pages: {wrong}"


def test_the_check_sees_english_and_english_months():
    html = (
        '<p title="Watch round 2 again">Runde 2</p><p>Beendet am 3 Dec 2026</p>'
        '<dd data-short="H">3</dd><p>No messages yet.</p><script>var a = "Round over";</script>'
    )
    found = english_in(html, "de")
    assert "Watch round" in found and "month Dec" in found and "No messages yet" in found
    assert not any("Round over" in f for f in found)
    assert english_in("<p>Runde 2: spielt!</p><p>3. Dezember 2026</p>", "de") == []


def test_no_css_writes_words_of_its_own():
    # Generated content comes from the page (attr(...)), which the catalogue words.
    for path in sorted((ROOT / "static" / "css").glob("*.css")):
        for n, line in enumerate(path.read_text().splitlines(), 1):
            for literal in re.findall(r"content:\s*([^;}]*)", line):
                assert not re.search(r'"[^"]*[A-Za-z]{2}[^"]*"', literal), f"{path.name}:{n}"


@pytest.mark.parametrize("code", LANGUAGES)
def test_the_lobby_rooms_and_history_pages_speak_only_the_readers_language(code):
    alice, bob = make_user("alice"), make_user("bob")
    waiting = services.create_room(alice, "ligretto", 4)
    # A Mini match played and closed: its sheet, its replay, the players' pages.
    played = started_room(alice, [bob], game="ligretto-mini", rounds=1)
    play.act(played.pk, 0, {"type": "flip"})
    play.act(played.pk, 1, {"type": "flip"})
    play.close_match(played.pk, "")
    # And one played to its end (a table that is over).
    done = started_room(alice, [bob], game="ligretto-mini", rounds=1)
    set_state(done.pk, _stack_of_one)
    play.act(done.pk, 0, {"type": "play", "from": "stack"})
    play.act(done.pk, 0, {"type": "ready"})
    play.act(done.pk, 1, {"type": "ready"})
    assert table(done.pk).view(None)["status"] == "finished"
    pages = {
        "lobby": _page(alice, "/", code),
        "room": _page(bob, waiting.get_absolute_url(), code),
        "room, its host's (the bots' options)": _page(alice, waiting.get_absolute_url(), code),
        "room form": _page(alice, "/rooms/new/", code),
        "sheet": _page(alice, f"/rooms/{played.pk}/sheet/", code),
        "finished sheet": _page(alice, f"/rooms/{done.pk}/sheet/", code),
        "replay": _page(alice, f"/rooms/{played.pk}/replay", code),
        "player": _page(bob, "/players/alice/", code),
        "leaderboard": _page(None, "/leaderboard/", code),
        "finished table": _page(alice, done.get_absolute_url(), code),
    }
    for game in ("ligretto", "allegra"):
        pages[f"how to play {game}"] = _page(None, f"/how-to-play/{game}/", code)
    _check(pages, code)


def _stack_of_one(data):
    """Seat 0 has a single red 1 left in its stack: playing it ends the round (L13)."""
    data["players"][0]["stack"] = [card("red", 1, 0)]
    return data


@pytest.mark.parametrize("code", LANGUAGES)
def test_a_live_ligretto_table_speaks_only_the_readers_language(code):
    _a_live_ligretto_table(code, started_in=code)


# A bot's name is worded for each reader, whoever started the match (issue 45, item 1).
@pytest.mark.parametrize("code", LANGUAGES)
def test_a_bots_name_is_worded_for_each_reader(code):
    _a_live_ligretto_table(code, started_in="en")


def _a_live_ligretto_table(code: str, started_in: str) -> None:
    alice, bob, carol = make_user("alice"), make_user("bob"), make_user("carol")
    with translation.override(started_in):
        room = started_room(alice, [bob, carol], game="ligretto", bots=1, rounds=2)
    play.act(room.pk, 1, {"type": "flip"})
    pages = {
        "mid-round": _page(alice, room.get_absolute_url(), code),
        "mid-round, spectator": _page(None, room.get_absolute_url(), code),
        "mid-round, pushed": _pushed(room.pk, 0, code),
    }
    set_state(room.pk, _stack_of_one)
    _, events = _act(room.pk, 0, {"type": "play", "from": "stack"})
    assert table(room.pk).view(None)["status"] == "round_over"
    pages["after a round"] = _page(bob, room.get_absolute_url(), code)
    pages["after a round, pushed"] = _pushed(room.pk, 1, code, events)
    _check(pages, code)


def _act(room_id: int, seat: int, action: dict):
    before = table(room_id).state
    game = table(room_id).game
    _, events = game.apply(before, seat, action)
    play.act(room_id, seat, action)
    return table(room_id), events


@pytest.mark.parametrize("code", LANGUAGES)
def test_a_live_allegra_table_speaks_only_the_readers_language(code):
    alice, bob, carol = make_user("alice"), make_user("bob"), make_user("carol")
    room = started_room(alice, [bob, carol], game="allegra", rounds=1)
    set_state(room.pk, short_round)
    pages = {
        "opening": _page(alice, room.get_absolute_url(), code),
        "opening, pushed": _pushed(room.pk, 1, code),
    }
    set_state(room.pk, after_opening)
    _, events = _act(room.pk, 0, {"type": "draw", "source": "deck"})
    pages["knock window"] = _page(bob, room.get_absolute_url(), code)
    pages["knock window, pushed"] = _pushed(room.pk, 1, code, events)
    _, events = _act(room.pk, 1, {"type": "knock"})
    pages["after a knock"] = _page(alice, room.get_absolute_url(), code)
    pages["after a knock, spectator"] = _page(None, room.get_absolute_url(), code)
    pages["after a knock, pushed"] = _pushed(room.pk, 0, code, events)
    _check(pages, code)


# Issue 45's "must show": an Allegra table after a round (its score sheet's tooltips, the
# round-ender's star), that round's replay, and the offline page, in every language.
@pytest.mark.django_db(transaction=True)  # the bot driver's steps close their connections
@pytest.mark.parametrize("code", LANGUAGES)
def test_an_allegra_table_after_a_round_its_replay_and_the_offline_page_speak_it(code, settings):
    settings.LEAVER_GRACE = 0  # nobody opens the table: stand-ins play alice's and bob's seats
    alice, bob = make_user("alice"), make_user("bob")
    room = started_room(alice, [bob], game="allegra", bots=1, rounds=2)
    bots = MatchBots(room.pk, rng=random.Random(7))
    for _ in range(20_000):
        if table(room.pk).view(None)["status"] == "round_over":
            break
        bots.step()
    assert table(room.pk).view(None)["status"] == "round_over"
    pages = {
        "after a round": _page(alice, room.get_absolute_url(), code),
        "after a round, spectator": _page(None, room.get_absolute_url(), code),
        "after a round, pushed": _pushed(room.pk, 1, code, [{"type": "round_ended"}]),
        "replay": _page(alice, f"/rooms/{room.pk}/replay?round=1", code),
        "replay, last step": _page(alice, f"/rooms/{room.pk}/replay?round=1&step=999", code),
        "offline": _page(None, f"/offline/{code}/", code),
    }
    assert 'class="ender"' in pages["after a round"]  # the round-ender's star is there
    _check(pages, code)
