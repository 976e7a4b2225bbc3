"""The table on every screen: at 390 x 844 (a phone) and 1280 x 800 (a laptop), for Ligretto 2, 4
and 12 seats and Allegra 2, 3 and 6, the page never scrolls sideways and your own playable cards
are inside the viewport without scrolling.

One person and bots fill each table; the same page is measured at both sizes. With
SCREENSHOT_DIR set, each measured page is also saved as a PNG there (to look at, not compared).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.browser.test_ligretto_table import open_room
from tests.browser.test_lobby_flow import sign_up, wait_live

PHONE = {"width": 390, "height": 844}
LAPTOP = {"width": 1280, "height": 800}

# Your own cards: Ligretto's row, stack, waste and hand; Allegra's area and its action buttons.
OWN = {
    "ligretto": "#lg-me .slot",
    "allegra": "#al-me .area .place, #al-me .actions button",
}

BOXES = """sel => Array.from(document.querySelectorAll(sel)).map(e => {
  const r = e.getBoundingClientRect();
  return {id: e.id, left: r.left, top: r.top, right: r.right, bottom: r.bottom};
})"""


def fill_with_bots_and_start(page: Page, game: str, seats: int) -> str:
    room_id = open_room(page, game, seats)
    page.fill("#bots-form input[name=count]", str(seats - 1))
    page.click("#bots-form button[type=submit]")
    expect(page.locator(f"#seat-{seats - 1}")).to_contain_text("bot")
    page.click("#start-button")
    status = "#lg-status" if game.startswith("ligretto") else "#al-status"
    expect(page.locator(status)).to_be_visible()
    wait_live(page)
    return room_id


def shot(page: Page, name: str) -> None:
    folder = os.environ.get("SCREENSHOT_DIR")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(folder) / f"{name}.png"))


def assert_fits(page: Page, size: dict[str, int], own: str) -> None:
    page.set_viewport_size(size)
    page.evaluate("window.scrollTo(0, 0)")
    page.wait_for_timeout(150)  # one layout after the resize
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


@pytest.mark.parametrize(
    ("game", "seats"),
    [
        ("ligretto", 2),
        ("ligretto", 4),
        ("ligretto", 12),
        ("allegra", 2),
        ("allegra", 3),
        ("allegra", 6),
    ],
)
def test_your_cards_are_on_screen_and_nothing_scrolls_sideways(person, game, seats):
    page = person()
    sign_up(page, f"lay{game[:2]}{seats}")
    fill_with_bots_and_start(page, game, seats)
    family = "allegra" if game == "allegra" else "ligretto"
    for size in (PHONE, LAPTOP):
        assert_fits(page, size, OWN[family])
        shot(page, f"table-{game}-{seats}-{size['width']}")
