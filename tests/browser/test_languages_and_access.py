"""The site in two languages at once, and an accessibility check (axe-core) on its main pages.

axe-core comes from npm through the project's package.json (`make axe`). The site's
Content-Security-Policy blocks an injected <script>, so its source is evaluated through
Playwright (DevTools), which the policy does not govern; the policy itself stays as it is.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.browser.test_ligretto_table import at_table, join, open_room
from tests.browser.test_lobby_flow import sign_up, wait_live

AXE = Path(__file__).resolve().parents[2] / "node_modules" / "axe-core" / "axe.min.js"


def choose_language(page: Page, code: str) -> None:
    page.click(f'#language-switcher button[value="{code}"]')
    expect(page.locator("html")).to_have_attribute("lang", code)


def serious_violations(page: Page) -> list[dict]:
    """Run axe on the page as it stands; return its serious and critical findings."""
    if not AXE.exists():
        raise RuntimeError("axe-core is not installed: run `make axe`.")
    if not page.evaluate("() => typeof window.axe === 'object'"):
        page.evaluate(AXE.read_text())
    found = page.evaluate(
        """async () => {
          const result = await axe.run(document, {resultTypes: ["violations"]});
          return result.violations.map((v) => ({
            id: v.id, impact: v.impact, help: v.help,
            nodes: v.nodes.slice(0, 3).map((n) => n.target.join(" ")),
          }));
        }"""
    )
    return [v for v in found if v["impact"] in ("serious", "critical")]


def assert_accessible(page: Page) -> None:
    problems = serious_violations(page)
    assert problems == [], f"{page.url}: {problems}"


def test_the_pages_reflow_at_200_percent_zoom(person):
    # A 1280-pixel-wide screen at 200% zoom lays pages out in 640 CSS pixels: nothing may need
    # a sideways scroll (WCAG 1.4.10), the how-to drawings included.
    page = person()
    page.set_viewport_size({"width": 640, "height": 800})
    sign_up(page, "zoe")
    choose_language(page, "ru")  # the longest words of the four
    for path in (
        "/",
        "/rooms/new/",
        "/leaderboard/",
        "/accounts/profile/",
        "/how-to-play/ligretto/",
        "/how-to-play/allegra/",
    ):
        page.goto(path)
        overflow = page.evaluate(
            "() => document.documentElement.scrollWidth - document.documentElement.clientWidth"
        )
        assert overflow <= 0, f"{path} scrolls sideways by {overflow}px"


def test_switching_language_changes_the_lobby_the_room_and_the_how_to_page(person):
    page = person()
    sign_up(page, "greta")
    wait_live(page)
    choose_language(page, "de")
    expect(page.locator("h1")).to_contain_text("Lobby")
    expect(page.locator("#open-ligretto-empty")).to_have_text("Noch keine offenen Ligretto-Räume.")
    room_id = open_room(page, "allegra", 3)
    expect(page.locator("#room-status")).to_contain_text("Warte auf Spieler: 1 von 3 Plätzen")
    page.click("text=So spielt man Allegra")
    expect(page.locator("h1")).to_have_text("So spielt man Allegra")
    expect(page.locator("#A7")).to_contain_text("Klopfen")
    choose_language(page, "ko")  # the switcher goes back to the same page
    expect(page.locator("h1")).to_have_text("알레그라 게임 방법")
    page.goto(f"/rooms/{room_id}/")
    wait_live(page)
    expect(page.locator("#room-status")).to_contain_text("3자리 중 1자리")


def test_two_players_at_one_table_each_read_their_own_language(person):
    anna, boris = person(), person()
    sign_up(anna, "anna")
    choose_language(anna, "de")
    sign_up(boris, "boris")
    choose_language(boris, "ru")
    room_id = open_room(anna, "ligretto-mini", 2)
    join(boris, room_id)
    anna.click("#start-button")
    for page in (anna, boris):  # the room page moves to the table by itself
        at_table(page)
    # The table itself: the headline, the cards' names, the keys, each in its reader's language.
    expect(anna.locator("#lg-status .headline")).to_contain_text("Runde 1")
    expect(boris.locator("#lg-status .headline")).to_contain_text("Раунд 1")
    expect(anna.locator("#me-row-0")).to_contain_text("Reihenplatz 1, Taste 1")
    expect(boris.locator("#me-row-0")).to_contain_text("место в ряду 1, клавиша 1")
    expect(anna.locator(".keys-help")).to_contain_text("Tasten")
    expect(boris.locator(".keys-help")).to_contain_text("Клавиши")
    expect(anna.locator("#table-announce")).to_have_attribute("aria-live", "polite")
    expect(anna.locator("#chat-title")).to_have_text("Chat")
    expect(boris.locator("#chat-title")).to_have_text("Чат")
    expect(anna.locator("header.site")).to_contain_text("Bestenliste")
    expect(boris.locator("header.site")).to_contain_text("Рейтинг")
    # A line pushed to both is drawn in each reader's language (its hide button speaks).
    anna.fill("#chat-input", "viel Glück")
    anna.press("#chat-input", "Enter")
    expect(boris.locator("#chat-log .chat-line")).to_contain_text("viel Glück")
    expect(boris.locator("#chat-log .chat-hide").first).to_have_attribute(
        "aria-label", "Скрыть это сообщение"
    )
    expect(anna.locator("#chat-log .chat-hide").first).to_have_attribute(
        "aria-label", "Diese Nachricht ausblenden"
    )


@pytest.mark.parametrize("language", ["en", "ko"])
def test_the_main_pages_have_no_serious_accessibility_violations(person, language):
    visitor = person()
    visitor.goto("/accounts/signup/")
    if language != "en":
        choose_language(visitor, language)
    assert_accessible(visitor)  # sign-up
    for game in ("ligretto-mini", "ligretto", "allegra"):
        visitor.goto(f"/how-to-play/{game}/")
        assert_accessible(visitor)

    host = person()
    sign_up(host, f"host{language}")
    if language != "en":
        choose_language(host, language)
    wait_live(host)
    assert_accessible(host)  # the lobby
    host.goto("/rooms/new/")
    assert_accessible(host)  # the room form
    room_id = open_room(host, "ligretto", 2)
    assert_accessible(host)  # the room
    host.goto(f"/players/host{language}/")
    assert_accessible(host)  # a player page
    host.goto(f"/rooms/{room_id}/")
    wait_live(host)
    host.select_option("#bots-form select", "easy")
    host.click("#bots-form button[type=submit]")
    expect(host.locator("#start-button")).to_be_enabled()
    host.click("#start-button")
    at_table(host)  # the room page moves to the table by itself
    expect(host.locator("#lg-status")).to_have_attribute("data-status", "playing")
    assert_accessible(host)  # a Ligretto table mid-round
    host.goto(f"/rooms/{room_id}/sheet/")
    assert_accessible(host)  # the score sheet

    allegra = open_room(host, "allegra", 3)
    host.select_option("#bots-form select", "easy")
    host.fill("#bots-form input[name=count]", "2")
    host.click("#bots-form button[type=submit]")
    expect(host.locator("#start-button")).to_be_enabled()
    host.click("#start-button")
    expect(host.locator("#al-status")).to_be_visible()
    expect(host).to_have_url(re.compile(rf"/rooms/{allegra}/$"))
    wait_live(host)
    assert_accessible(host)  # an Allegra table mid-round (the opening)
