"""The table on every screen: at 390 x 844 (a phone) and 1280 x 800 (a laptop), for Ligretto 2, 4
and 12 seats and Allegra 2, 3, 4 and 6, in two moments of a round each (Ligretto: the race and
its end from four seats; Allegra: the opening and a drawn card waiting, the knock window from
three seats):

- the page never scrolls sideways and your own playable cards are inside the viewport;
- every card of every opponent can be seen: inside the viewport, or inside a scroll area the
  player can scroll, and not covered (`elementFromPoint` at its centre is the card);
- the active player's grid is whole in view;
- no element clips its text (a fixed height, an ellipsis, a word wider than its box).

One person and bots fill each table; the same page is measured at both sizes. With
SCREENSHOT_DIR set, each measured page is also saved as a PNG there (to look at, not compared);
with LAYOUT_LANGUAGE (de, ru, ko) the person reads the site in that language.
"""

from __future__ import annotations

import itertools
import os
import re
import time
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.browser.test_ligretto_table import open_room
from tests.browser.test_lobby_flow import sign_up, wait_live

HERE = Path(__file__).parent
LANGUAGE = os.environ.get("LAYOUT_LANGUAGE", "en")
PHONE = {"width": 390, "height": 844}
LAPTOP = {"width": 1280, "height": 800}

# Your own cards: Ligretto's row, stack, waste and hand; Allegra's area and its action buttons.
OWN = {
    "ligretto": "#lg-me .slot",
    "allegra": "#al-me .area .place, #al-me .actions button",
}
# The other players' cards, and the areas that must be seen whole: each opponent (Ligretto's
# tableau; Allegra's grid and shared column), the piles, the knock window.
THEIRS = {
    "ligretto": ".board .tableau .card",
    "allegra": ".board .ring .card",
}
WHOLE = {
    "ligretto": ".board .tableau, .board .pile",
    "allegra": ".board .grid, .board .shared-col, .board .pile, #al-knock-window",
}

BOXES = """sel => Array.from(document.querySelectorAll(sel)).map(e => {
  const r = e.getBoundingClientRect();
  return {id: e.id, left: r.left, top: r.top, right: r.right, bottom: r.bottom};
})"""

# One synchronous pass (no push can swap a part in the middle of it). Scroll areas a player can
# scroll (overflow auto or scroll) are scrolled to each card, as a thumb would; anything else
# that cuts a card off (the viewport, an overflow: hidden box) or lies over its centre counts.
SEEN = (HERE / "seen.js").read_text()

# Text a box cuts: an element whose content is wider or taller than its box while the box hides
# the rest (overflow other than visible) or lets a word run out of it sideways. The scroll areas
# the layout means to scroll (the board's strips, the centre, your area, the side) are allowed.
CLIPPED = (HERE / "clipped.js").read_text()


def fill_with_bots_and_start(page: Page, game: str, seats: int) -> str:
    room_id = open_room(page, game, seats)
    page.fill("#bots-form input[name=count]", str(seats - 1))
    page.click("#bots-form button[type=submit]")
    expect(page.locator(f"#seat-{seats - 1}")).to_have_class(re.compile(r"\btaken\b"))
    page.click("#start-button")
    status = "#lg-status" if game.startswith("ligretto") else "#al-status"
    expect(page.locator(status)).to_be_visible()
    wait_live(page)
    return room_id


def play_to_round_end(page: Page, seconds: float = 90) -> None:
    """Play on, as a player does, until the round is over: press the table's keys in turn (row
    cards 1-5, stack, waste, flip; a disabled button does nothing). The bots can come to where
    only your cards can go on (a standstill counts what your flips would show, L14), and then
    the race waits for you."""
    status = page.locator("#lg-status")
    deadline = time.monotonic() + seconds
    keys = itertools.cycle("12345sw ")
    while status.get_attribute("data-status") != "round_over":
        assert time.monotonic() < deadline, f"the round did not end within {seconds} s"
        page.keyboard.press(next(keys))
        page.wait_for_timeout(120)


def shot(page: Page, name: str) -> None:
    folder = os.environ.get("SCREENSHOT_DIR")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(folder) / f"{name}.png"))


def resize(page: Page, size: dict[str, int]) -> None:
    page.set_viewport_size(size)
    page.evaluate("window.scrollTo(0, 0)")
    page.wait_for_timeout(150)  # one layout after the resize


def assert_fits(page: Page, size: dict[str, int], own: str) -> None:
    resize(page, size)
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= size["width"], f"the page is {width} px wide in a {size['width']} px window"
    boxes = page.evaluate(BOXES, own)
    assert boxes, f"no cards of your own found ({own})"
    outside = [
        b
        for b in boxes
        if b["left"] < 0
        or b["top"] < 0
        or b["right"] > size["width"]
        or b["bottom"] > size["height"]
    ]
    assert not outside, f"your cards outside the {size['width']}x{size['height']} view: {outside}"


def everyone_seen(page: Page, family: str) -> list[str]:
    """What hides an opponent's card or cuts a text, in words (empty: all is in view)."""
    seen = page.evaluate(SEEN, [THEIRS[family], WHOLE[family]])
    if not seen["count"]:
        return ["no opponent's card found"]
    return seen["problems"] + [f"text clipped: {c}" for c in page.evaluate(CLIPPED)]


def measure(page: Page, game: str, seats: int, moment: str) -> None:
    family = "allegra" if game == "allegra" else "ligretto"
    problems = {}
    for size in (PHONE, LAPTOP):
        # A refusal's note floats over the table for 1.2 s on purpose (a key pressed on a card that
        # can't go): it is a moment, not the layout, so the measurement waits for it to go.
        expect(page.locator("#table-flash.shown")).to_have_count(0)
        assert_fits(page, size, OWN[family])
        shot(page, f"table-{game}-{seats}-{moment}-{size['width']}-{LANGUAGE}")
        problems[size["width"]] = everyone_seen(page, family)
    assert not any(problems.values()), f"{game}, {seats} seats, {moment}: {problems}"


def to_a_drawn_card(page: Page, seats: int) -> None:
    """Turn two cards (the opening), wait for your turn, draw from the deck and hold the card."""
    for _ in range(2):
        place = page.locator("#al-me .place.reveal").first
        target = place.get_attribute("id")
        place.click()
        expect(page.locator(f"#{target}.reveal")).to_have_count(0)
    expect(page.locator("#al-draw-deck")).to_be_visible(timeout=60_000)
    page.keyboard.press("d")
    expect(page.locator("#al-discard-drawn")).to_be_visible()
    if seats > 2:
        expect(page.locator("#al-knock-window")).to_be_visible()


@pytest.mark.parametrize(
    ("game", "seats"),
    [
        ("ligretto", 2),
        ("ligretto", 4),
        ("ligretto", 12),
        ("allegra", 2),
        ("allegra", 3),
        ("allegra", 4),
        ("allegra", 6),
    ],
)
def test_every_card_is_in_view_and_nothing_scrolls_sideways(person, game, seats):
    page = person()
    # Glows and fades scale cards for a moment; the measurement is of the layout at rest.
    page.emulate_media(reduced_motion="reduce")
    sign_up(page, f"lay{game[:2]}{seats}" + ("" if LANGUAGE == "en" else LANGUAGE))
    if LANGUAGE != "en":  # LAYOUT_LANGUAGE=de|ru|ko: the same measurements in that language
        page.click(f"#language-switcher button[value={LANGUAGE}]")
        expect(page.locator("html")).to_have_attribute("lang", LANGUAGE)
    fill_with_bots_and_start(page, game, seats)
    if game == "allegra":
        measure(page, game, seats, "opening")
        to_a_drawn_card(page, seats)
        measure(page, game, seats, "knock" if seats > 2 else "drawn")
    else:
        # Twelve fast bots may end the race before the first look: then both show the end.
        expect(page.locator("#lg-status")).to_have_attribute(
            "data-status", re.compile("playing|round_over")
        )
        measure(page, game, seats, "race")
        if seats > 2:  # and the round's end, seen from four seats or more
            play_to_round_end(page)
            measure(page, game, seats, "end")


# Allegra, six seats, the knock window as long as it gets: five other people at the table, all
# away (their tags count down to a stand-in), the last decision timed out for all five (two of
# them now have a stand-in), every one of them knocked; then the knocker's hand after a knock
# was given. Written through the site's ORM (a browser cannot deal or stay away five times):
# one shell prepares both rooms of a language, hosted by the person, and prints their ids.
KNOCK_WINDOWS = """
from django.contrib.auth import get_user_model
from django.utils import timezone
from games.registry import GAMES
from lobby import services
from tables import clocks
from tables.live import rooms
from tables.models import Match, Player
from tests.tables.helpers import set_state

host = get_user_model().objects.get(username={host!r})
game = GAMES["allegra"]

def prepared(take):
    room = services.create_room(host, "allegra", 6, {{"rounds": 1}})
    for n in range(1, 6):
        name = f"{{room.pk}}knocker{{n}}"
        user = get_user_model().objects.create_user(name, password="not-used-1")
        services.join_room(room.pk, user)
    services.start_room(room.pk, host)

    def knocks(data):
        state = game.load(data)
        def do(seat, kind, pick=lambda a: True):
            nonlocal state
            action = next(
                a for a in game.legal_actions(state, seat) if a["type"] == kind and pick(a)
            )
            state, _ = game.apply(state, seat, action)
        for seat in range(6):  # the opening: each turns two of his own cards
            for _ in range(2):
                do(seat, "reveal", lambda a: a["place"]["seat"] == seat)
        data = game.dump(state)
        data.update(turn=0, first=0)  # the person's turn
        state = game.load(data)
        do(0, "draw", lambda a: a["source"] == "deck")
        for seat in range(1, 6):
            do(seat, "knock")
        if take:
            do(0, "give", lambda a: a.get("seat", a.get("to")) == 1)
            do(1, "place")
        return game.dump(state)

    set_state(room.pk, knocks)
    match = Match.objects.get(room_id=room.pk)
    now = timezone.now()
    Player.objects.filter(match=match, seat__gt=0).update(away_since=now)
    state = game.load(match.rounds.order_by("-number").first().state)
    legal = {{seat: game.legal_actions(state, seat) for seat in range(6)}}
    made = clocks.decision(game.player_view(state, None), legal, game)
    clock = clocks.start({{}}, made, [0], now, 600, match.version)
    last = {{"seats": [1, 2, 3, 4, 5], "at": clock["since"], "key": made.key, "stand_in": [2, 3]}}
    clock["last_timeout"] = last
    match.clock = clock
    match.version += 1
    match.save(update_fields=["clock", "version"])
    rooms.forget(room.pk)
    return room.pk

print(prepared(False), prepared(True))
"""


# Each language's two rooms are prepared just before they are looked at (the away tags count
# down from then); one person, one sign-up, the language switched between them. What does not
# fit is gathered per language and moment, and said at the end, every language's at once.
def test_allegra_six_seats_knock_window_fits_a_phone_in_every_language(person, site_shell):
    page = person()
    page.emulate_media(reduced_motion="reduce")
    sign_up(page, "knockhost")
    wait_live(page)
    failed: dict[str, str] = {}
    for language in ("en", "de", "ru", "ko"):
        if language != "en":
            page.goto("/")
            page.click(f"#language-switcher button[value={language}]")
            expect(page.locator("html")).to_have_attribute("lang", language)
        knocks, take = site_shell(KNOCK_WINDOWS.format(host="knockhost")).split()
        try:
            page.goto(f"/rooms/{knocks}/")
            expect(page.locator("#al-status")).to_have_attribute("data-phase", "decide")
            wait_live(page)
            expect(page.locator("#al-knock-window")).to_be_visible()
            expect(page.locator("#al-timed-out")).to_be_visible()
            expect(page.locator(".board .grid .tag.away")).to_have_count(5)
            measure(page, "allegra", 6, f"knocks-{language}")
        except AssertionError as failure:
            failed[f"knocks, {language}"] = str(failure)
        # The knock given to the first knocker and placed: the person takes from the knocker's
        # area, the knocker's old card lies face up in his hand.
        try:
            page.goto(f"/rooms/{take}/")
            expect(page.locator("#al-status")).to_have_attribute("data-phase", "knock_take")
            wait_live(page)
            expect(page.locator("#al-hand")).to_be_visible()
            expect(page.locator("#al-timed-out")).to_be_visible()
            measure(page, "allegra", 6, f"take-{language}")
        except AssertionError as failure:
            failed[f"take, {language}"] = str(failure)
    assert not failed, failed
