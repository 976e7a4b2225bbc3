"""A bot's name in each reader's language (issue 45, item 1)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.test_allegra_table import at_table
from tests.browser.test_languages_and_access import choose_language
from tests.browser.test_ligretto_table import join, open_room
from tests.browser.test_lobby_flow import sign_up

pytestmark = pytest.mark.browser


def test_a_korean_reader_sees_a_german_hosts_bot_in_korean(person):
    anke, bora = person(), person()
    sign_up(anke, "anke")
    choose_language(anke, "de")
    room_id = open_room(anke, "allegra", 3, rounds=1)
    anke.click("#bots-form button[type=submit]")
    expect(anke.locator("#seat-1")).to_contain_text("Normaler Bot")
    sign_up(bora, "bora")
    choose_language(bora, "ko")
    join(bora, room_id)
    anke.click("#start-button")
    for page in (anke, bora):
        at_table(page)
    bot = bora.locator("#al-grid-1")  # the bot took the first free seat, bora the next
    expect(bot.locator("header .name")).to_have_text("보통 봇 2")
    expect(bot).to_have_attribute("aria-label", re.compile("^보통 봇 2"))
    expect(anke.locator("#al-grid-1 header .name")).to_have_text("Normaler Bot 2")
