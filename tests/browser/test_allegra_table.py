"""Allegra in three real browsers: the opening, a knock given and completed, a triple across a
shared column, the final lap, the score sheet with its doubling, a reload mid-turn, the result."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.browser.test_access_play import (
    allegra_step,
    open_paced_room_with_bots,
    sign_up_by_keyboard,
)
from tests.browser.test_ligretto_table import join, open_room, same_version
from tests.browser.test_lobby_flow import sign_up, wait_live
from tests.browser.test_table_layout import LAPTOP, PHONE


def at_table(page: Page) -> None:
    expect(page.locator("#al-status")).to_be_visible()
    wait_live(page)


def phase(page: Page, value: str) -> None:
    expect(page.locator("#al-status")).to_have_attribute("data-phase", value)


def test_three_people_play_a_round_with_a_knock_and_a_triple_to_the_result(person, site_shell):
    ann, ben, cleo = person(), person(), person()
    for page, name in ((ann, "ann"), (ben, "ben"), (cleo, "cleo")):
        sign_up(page, name)
    room_id = open_room(ann, "allegra", 3, rounds=1)
    join(ben, room_id)
    join(cleo, room_id)
    ann.click("#start-button")
    for page in (ann, ben, cleo):
        at_table(page)
        expect(page.locator("#al-status")).to_have_attribute("data-status", "playing")

    # A known deal, so that the round reaches a knock, a triple and a doubling in a few turns:
    # tests/tables/allegra_layouts.py says which cards lie where and why. A browser cannot
    # deal, so the round's state is rewritten through the ORM of the site's own database;
    # then everyone reloads to see it.
    site_shell(
        "from tests.tables.allegra_layouts import short_round\n"
        "from tests.tables.helpers import set_state\n"
        f"set_state({room_id}, short_round)\n"
    )
    for page in (ann, ben, cleo):
        page.reload()
        at_table(page)
        phase(page, "opening")
    expect(ann.locator("#al-me .place.reveal")).to_have_count(3)  # her face-down cards
    expect(ann.locator("#al-grid-1 .card.back")).to_have_count(3)  # ben's, as card backs

    # A5: everyone turns two cards at once (ids are me-<area row>-<area column>).
    for page, ids in ((ann, ("me-2-1", "me-2-2")), (ben, ("me-0-2", "me-1-2"))):
        for place in ids:
            page.click(f"#{place}")
            # Each reveal redraws the player's own part: the next click waits for the new one.
            expect(page.locator(f"#{place}.reveal")).to_have_count(0)
    cleo.click("#me-0-2")
    expect(cleo.locator("#me-0-2.reveal")).to_have_count(0)
    cleo.focus("#me-1-2")
    cleo.keyboard.press("Enter")
    for page in (ann, ben, cleo):
        phase(page, "draw")
    expect(ann.locator("#al-doing")).to_have_text("ann may draw from the deck or take the discard.")
    expect(ann.locator("#al-hint")).to_contain_text("draw from the deck (D)")

    # A6/A7: ann draws the 4 by key; the others may knock while she decides.
    ann.keyboard.press("d")
    expect(cleo.locator("#al-knock-window")).to_be_visible()
    expect(cleo.locator("#al-drawn")).to_contain_text("4")
    expect(ann.locator("#al-knock")).to_have_count(0)
    ben.click("#al-knock")
    expect(cleo.locator("#al-knock-window")).to_contain_text("ben knocked")
    # Her live region says the window once, in its long form (not its short one after it).
    expect(cleo.locator("#table-announce")).to_contain_text("Knock window open: ben knocked.")
    assert cleo.locator("#table-announce").text_content().count("Knock window open") == 1

    # A reload mid-turn restores the table as it was.
    same_version(ann, ben, cleo)
    mine, pile = cleo.locator("#al-me").inner_html(), cleo.locator("#al-pile").inner_html()
    cleo.reload()
    at_table(cleo)
    assert cleo.locator("#al-me").inner_html() == mine
    assert cleo.locator("#al-pile").inner_html() == pile
    expect(cleo.locator("#al-knock")).to_be_visible()  # she may still knock

    # Ann gives the 4 to ben; ben swaps it for his 9 in his right column, which is in ann's
    # area too: beside her two 4s it makes a triple across the shared column (A8).
    ann.click("#al-give-1")
    phase(ben, "knock_place")
    ben.click("#me-0-4")
    phase(ann, "knock_take")
    for cell in ("1-0-3", "0-0-0", "0-0-1"):  # cleo sees both grids
        expect(cleo.locator(f"[data-place='{cell}']")).to_have_class("card gone vanish b2")
    expect(cleo.locator("#al-status .news")).to_contain_text("Triple! 3 cards (4s) left the game.")
    for place in ("#me-0-0", "#me-0-1", "#me-0-2"):  # in ann's own area
        expect(ann.locator(f"{place} .card")).to_have_class("card gone vanish b2")
    expect(cleo.locator("#al-hand")).to_contain_text("9")  # the knocker's hand card, public

    # Ann takes ben's -1 into her face-down place; his 9 fills the hole. Her area is all face
    # up: the final lap is announced (A9).
    ann.check("#al-from-1-1-0")
    ann.click("#me-1-2")
    for page in (ann, ben, cleo):
        expect(page.locator("#al-final-lap")).to_contain_text("ann has every card face up")
    expect(cleo.locator("#al-grid-1 [data-place='1-1-0']")).to_have_text("9")

    # Ben draws the 5, discards it and turns a card; cleo takes the 5 and swaps it in.
    ben.keyboard.press("d")
    expect(ben.locator("#al-discard-drawn")).to_contain_text("Discard the 5")
    ben.keyboard.press("x")
    expect(ben.locator("#me-2-1.reveal")).to_be_visible()
    ben.click("#me-2-1")
    expect(cleo.locator("#al-draw-discard")).to_contain_text("Take the 5")
    cleo.keyboard.press("p")
    expect(cleo.locator("#me-2-1.swap")).to_be_visible()
    cleo.click("#me-2-1")

    # The score sheet: each area's sum, ann's 22 doubled (she ended and was not lowest).
    for page in (ann, ben, cleo):
        expect(page.locator("#al-status")).to_have_attribute("data-status", "round_over")
    row = cleo.locator("#al-scores tbody tr[data-round='1'] td")
    expect(row.nth(0)).to_have_class("doubled")
    expect(row.nth(0)).to_have_text("22 ×2 = 44 ★")
    expect(row.nth(1)).to_have_text("63")
    expect(row.nth(2)).to_have_text("14")
    assert cleo.locator("#al-scores tfoot td").all_inner_texts() == ["44", "63", "14"]

    ann.keyboard.press("r")
    ben.click("#me-ready")
    cleo.keyboard.press("r")
    for page in (ann, ben, cleo):
        expect(page.locator("#match-result")).to_contain_text("cleo wins with the lowest total")
    cleo.goto("/")
    wait_live(cleo)
    expect(cleo.locator(f"#room-{room_id}")).to_have_count(0)  # the room is finished


def test_the_how_to_page_is_linked_from_the_room_form_and_shows_a_shared_column(person):
    page = person()
    sign_up(page, "dora")
    page.goto("/rooms/new/?game=allegra")
    page.click("text=How to play Allegra")
    expect(page.locator("h1")).to_have_text("How to play Allegra")
    expect(page.locator("figure.example .shared-col.highlight")).to_be_visible()
    expect(page.locator("#A7")).to_contain_text("Knocking")


# Every move of the board or of your own part that the page makes by itself from now on
# (Chromium's Layout Instability API reports the outermost element that moved).
STEADY = """() => {
  window.moved = [];
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) for (const s of e.sources) {
      if (s.node && s.node.matches && s.node.matches(".board, #al-me")) {
        const from = Math.round(s.previousRect.y), to = Math.round(s.currentRect.y);
        window.moved.push(`${s.node.id || s.node.className}: ${from} -> ${to}`);
      }
    }
  }).observe({type: "layout-shift"});
}"""


@pytest.mark.parametrize("size", [LAPTOP, PHONE], ids=["laptop", "phone"])
def test_the_board_and_your_area_stay_in_place_turn_after_turn(person, size):
    # The status above the board gains and loses lines with every turn: the clock while a
    # person decides, a detail that wraps or not, the news. The board below it (the deck, the
    # discard, every other grid) went 20 px up and down on nearly every turn, and 40 px as
    # the round began. The status now keeps one height (static/css/allegra.css).
    page = person()
    page.set_viewport_size(size)
    sign_up_by_keyboard(page, f"steady{size['width']}")
    open_paced_room_with_bots(page, "allegra", 3)
    page.evaluate(STEADY)
    draws = 0
    for _ in range(100):  # the opening, then three turns of each player's
        step = allegra_step(page)
        assert step != "over"
        draws += step == "draw"
        if draws == 3:
            break
    assert draws == 3
    assert page.evaluate("window.moved") == []
