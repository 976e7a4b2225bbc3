"""What CSS and the page's script write, in the reader's language (issue 35, item 1).

The server-side test (tests/test_every_word.py) reads the HTML; these read what a browser shows
besides it: CSS generated content, the live badge the socket sends, and the dates the script
rewrites in the reader's own zone.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from tests.browser.test_lobby_flow import sign_up, wait_live

MONTHS = re.compile(r"\b(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]*\b")
WORDS = {
    "de": ("Noch keine Nachrichten.", "live", "gut gespielt"),
    "ru": ("Сообщений пока нет.", "в сети", "отлично сыграно"),
    "ko": ("아직 메시지가 없습니다.", "연결됨", "잘했어요"),
}


def _before(page: Page, selector: str) -> str:
    return page.evaluate(
        "(s) => getComputedStyle(document.querySelector(s), '::before').content", selector
    )


@pytest.mark.parametrize("code", sorted(WORDS))
def test_css_content_the_live_badge_and_dates_speak_the_readers_language(browser, live_url, code):
    empty, live, reaction = WORDS[code]
    context = browser.new_context(base_url=live_url, locale=code, timezone_id="Asia/Seoul")
    context.set_default_timeout(10_000)
    try:
        page = context.new_page()
        sign_up(page, f"words-{code}")
        page.goto("/rooms/new/?game=ligretto")
        page.click("main button[type=submit]")
        wait_live(page)
        assert page.evaluate("document.documentElement.lang") == code
        # The empty chat's line is CSS generated content, taken from the page.
        assert _before(page, "#chat-log") == f'"{empty}"'
        expect(page.locator("#live-status")).to_have_text(live)
        expect(page.locator("#chat-reactions button").nth(1)).to_have_text(reaction)
        # The profile's dates: written by the server in the reader's zone (the cookie the
        # script set) and never rewritten with English months or Date.toString().
        page.goto("/accounts/profile/")
        stamps = page.locator("time[data-local]")
        expect(stamps.first).to_be_visible()
        for i in range(stamps.count()):
            stamp = stamps.nth(i)
            text, title = stamp.inner_text(), stamp.get_attribute("title") or ""
            assert not MONTHS.search(text) and "GMT" not in title and not MONTHS.search(title)
            assert stamp.get_attribute("data-zone") == "Asia/Seoul", text
    finally:
        context.close()
