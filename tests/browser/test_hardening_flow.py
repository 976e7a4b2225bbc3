"""Refusals show in place and the page keeps working (the server runs with DEBUG on, as with
`make run`, so django-htmx's debug error script is on the page); nothing breaks the CSP."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import ConsoleMessage, Page, expect

from tests.browser.test_lobby_flow import choose_game, sign_up, wait_live


@pytest.fixture
def csp_violations() -> list[str]:
    return []


def watch_csp(page: Page, violations: list[str]) -> Page:
    def on_console(message: ConsoleMessage) -> None:
        if "Content Security Policy" in message.text:
            violations.append(message.text)

    page.on("console", on_console)
    return page


def test_a_refused_action_shows_in_place_and_the_page_keeps_working(person, csp_violations):
    alice = watch_csp(person(), csp_violations)
    sign_up(alice, "hilda")
    response = alice.goto("/rooms/new/")
    assert "default-src 'self'" in response.headers["content-security-policy"]
    choose_game(alice, "ligretto")
    alice.fill("#id_seats", "3")
    alice.click("main button[type=submit]")
    expect(alice).to_have_url(re.compile(r"/rooms/\d+/$"))
    wait_live(alice)

    # A stale page's Start button (the server says 409: too few players).
    alice.locator("#start-button").evaluate("button => { button.disabled = false }")
    alice.click("#start-button")
    expect(alice.locator("#room-error")).to_contain_text("needs at least 2 players")
    expect(alice.locator("#room-status")).to_have_attribute("data-status", "open")

    # A bot level the server does not know (400: the status the debug script took the whole
    # page over for): the sentence shows in place, the page around it stays.
    alice.locator("#bots-form select option").first.evaluate(
        "option => { option.value = 'wizard'; option.selected = true }"
    )
    alice.click("#bots-form button[type=submit]")
    expect(alice.locator("#room-error")).to_contain_text("bots come in these levels")
    expect(alice.locator('nav[aria-label="Main"]')).to_be_visible()
    expect(alice.locator('#live-status[data-connected="true"]')).to_be_visible()

    # And it keeps working: a real bot this time, and the Start button wakes up.
    alice.select_option("#bots-form select", "normal")
    alice.click("#bots-form button[type=submit]")
    expect(alice.locator("#seat-1")).to_contain_text("bot")
    expect(alice.locator("#room-error")).to_have_count(0)
    expect(alice.locator("#start-button")).to_be_enabled()
    assert csp_violations == []


def test_the_lobby_and_the_forms_break_no_policy(person, csp_violations):
    visitor = watch_csp(person(), csp_violations)
    for url in ("/", "/accounts/signup/", "/accounts/login/", "/no/such/page/"):
        visitor.goto(url)
        visitor.wait_for_load_state("networkidle")
    sign_up(visitor, "ingrid")
    visitor.goto("/rooms/new/")
    visitor.select_option("#id_game", "allegra")
    expect(visitor.locator("#id_seats_helptext")).to_have_text("2 to 6 players.")
    visitor.click("main button[type=submit]")
    wait_live(visitor)
    # The invite link selects itself from static/js/site.js, not from an inline handler.
    visitor.click("#invite-link")
    start, end, length = visitor.locator("#invite-link").evaluate(
        "input => [input.selectionStart, input.selectionEnd, input.value.length]"
    )
    assert (start, end) == (0, length)
    # Leave no open room behind: the other flows expect an empty lobby.
    visitor.click("#leave-button")
    expect(visitor.locator("#room-status")).to_have_attribute("data-status", "closed")
    assert csp_violations == []
