"""The offline page speaks the language of the last page the site served, and its "Try again"
goes back to the page that could not be loaded (issue 45 item 8)."""

from __future__ import annotations

from playwright.sync_api import Page, expect


def _controlled(page: Page) -> None:
    # The worker installs on the first visit and controls the pages loaded after it.
    page.goto("/")
    page.evaluate("navigator.serviceWorker.ready.then(() => true)")
    page.reload()
    page.wait_for_function("navigator.serviceWorker.controller !== null")


def _offline_at(page: Page, path: str) -> None:
    page.context.set_offline(True)
    page.goto(path)
    expect(page.locator("#offline-retry")).to_have_attribute("href", path)
    page.context.set_offline(False)


def test_the_offline_page_follows_the_readers_language_and_retries_the_page_asked(person):
    page = person()
    _controlled(page)  # installed in English
    page.click("#language-switcher button[value=de]")
    expect(page.locator("html")).to_have_attribute("lang", "de")
    page.goto("/leaderboard/")
    page.context.set_offline(True)
    page.goto("/how-to-play/allegra/?from=lobby")
    expect(page.locator("h1")).to_have_text("Du bist offline")
    expect(page.locator("html")).to_have_attribute("lang", "de")
    expect(page.locator("#offline-retry")).to_have_attribute(
        "href", "/how-to-play/allegra/?from=lobby"
    )
    page.context.set_offline(False)

    page.goto("/")
    page.click("#language-switcher button[value=ru]")
    expect(page.locator("html")).to_have_attribute("lang", "ru")
    page.goto("/leaderboard/")
    _offline_at(page, "/how-to-play/ligretto/")
    expect(page.locator("h1")).to_have_text("Нет соединения")
    # Back online, "Try again" loads the page asked for.
    page.click("#offline-retry")
    page.wait_for_url("**/how-to-play/ligretto/")
    expect(page.locator("#offline-retry")).to_have_count(0)
