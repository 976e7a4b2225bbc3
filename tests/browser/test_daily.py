"""The daily challenge in a real browser: played once to the end of its Ligretto Mini round, a
second attempt refused with a clear sentence, and the day's leaderboard showing the result."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from tests.browser.test_languages_and_access import assert_accessible, choose_language
from tests.browser.test_ligretto_table import at_table, get_ready
from tests.browser.test_lobby_flow import sign_up
from tests.browser.test_pages_fit import fits
from tests.browser.test_score_sheet import _play_round


def test_the_daily_challenge_is_played_once_and_its_result_is_on_the_board(person):
    dana = person()
    sign_up(dana, "daily-dana")
    # The lobby's box (loaded from the daily app) leads to the challenge.
    dana.goto("/")
    dana.click("#daily-link")
    expect(dana).to_have_url(re.compile(r"/daily/$"))
    commitment = dana.locator("#daily-commitment").inner_text()
    assert re.fullmatch(r"[0-9a-f]{64}", commitment)
    expect(dana.locator("#daily-countdown")).to_have_text(re.compile(r"^\d+:\d\d(:\d\d)?$"))

    # A second tab on the same page, its button still there: it will try again later.
    other = dana.context.new_page()
    other.goto("/daily/")
    expect(other.locator("#daily-play")).to_be_visible()

    dana.click("#daily-play")
    at_table(dana)
    room_id = re.search(r"/rooms/(\d+)/", dana.url).group(1)
    _play_round(dana, 1)
    get_ready(dana)  # Ligretto Mini plays one round: ready shows the result
    expect(dana.locator("#lg-status")).to_have_attribute("data-status", "finished")

    other.click("#daily-play")
    refusal = other.locator("#daily-refusal")
    expect(refusal).to_contain_text("You have already played today's challenge")
    expect(other.locator("#daily-refusal-result")).to_have_attribute("href", f"/rooms/{room_id}/")
    expect(other.locator("#daily-play")).to_have_count(0)

    dana.goto("/daily/")
    expect(dana.locator("#daily-mine")).to_contain_text("You played:")
    row = dana.locator('#daily-board tr[data-username="daily-dana"]')
    expect(row).to_be_visible()
    points = row.locator("td.points").inner_text()
    expect(dana.locator("#daily-mine")).to_contain_text(f"You played: {points} point")
    expect(dana.locator("#daily-play")).to_have_count(0)
    # The page with its board fits a phone, in the longest of the site's languages too.
    fits(dana, "daily")
    assert_accessible(dana)
    for code in ("ru", "ko"):
        choose_language(dana, code)
        expect(row.locator("td.points")).to_have_text(points)
        fits(dana, f"daily-{code}")
    choose_language(dana, "en")

    # Her player page shows the streak, loaded from the daily app.
    dana.goto("/players/daily-dana/")
    expect(dana.locator("#daily-streak")).to_have_attribute("data-current", "1")
