"""A visitor practises a Ligretto Mini round from the lobby as a guest, signs up afterwards and
finds that match on his player page."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from tests.browser.test_ligretto_table import at_table, get_ready
from tests.browser.test_score_sheet import _play_round
from tests.conftest import PASSWORD


def test_a_guest_practises_a_round_then_signs_up_and_keeps_the_match(person):
    gina = person()
    gina.goto("/")
    play_now = gina.locator("#play-now-ligretto-mini")
    expect(play_now).to_have_attribute("href", "/play/ligretto-mini/")
    gina.select_option("#practise-level-ligretto-mini", "fast")
    gina.click("#practise-ligretto-mini")
    at_table(gina)
    room_id = re.search(r"/rooms/(\d+)/", gina.url).group(1)
    expect(gina.locator("#guest-name")).to_contain_text("guest")
    expect(gina.locator("#chat-closed")).to_be_visible()  # a guest reads the chat along

    _play_round(gina, 1)
    get_ready(gina)  # "Show the result": Ligretto Mini plays one round
    expect(gina.locator("#lg-status")).to_have_attribute("data-status", "finished")

    # Back in the lobby, which says what signing up brings (the table folds the header).
    gina.goto("/")
    gina.click("#guest-note a")
    gina.fill("#id_username", "guestgina")
    gina.fill("#id_password1", PASSWORD)
    gina.fill("#id_password2", PASSWORD)
    gina.click("main button[type=submit]")
    gina.wait_for_url(lambda url: "/accounts/signup/" not in url)
    expect(gina.locator("#play-now-ligretto-mini")).to_have_attribute("type", "submit")

    gina.goto("/players/guestgina/")
    expect(gina.locator(f'a[href="/rooms/{room_id}/sheet/"]')).to_be_visible()


def test_a_visitors_play_now_takes_him_to_a_table_after_sign_up(person):
    """Issue 45 item 9: he pressed Play now, signed up, and is at a table: no second press."""
    vic = person()
    vic.goto("/")
    vic.click("#play-now-allegra")
    vic.wait_for_url(re.compile(r"/accounts/signup/\?next="))
    vic.fill("#id_username", "playnowvic")
    vic.fill("#id_password1", PASSWORD)
    vic.fill("#id_password2", PASSWORD)
    vic.click("main button[type=submit]")
    vic.wait_for_url(re.compile(r"/rooms/\d+/$"))
    expect(vic.locator("main")).to_contain_text("playnowvic")  # seated, waiting or playing
