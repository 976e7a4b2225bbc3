"""Latency equalisation in Chromium (issue 42, docs/fairness.md): a room opened with the option
shows it, its table answers the server's pings, and the player's plays are logged with an
estimated sending time earlier than their receipt (the round trip was measured)."""

from __future__ import annotations

from playwright.sync_api import expect

from tests.browser.test_ligretto_table import at_table, join
from tests.browser.test_lobby_flow import sign_up, wait_live


def test_an_equalised_table_answers_pings_and_its_plays_are_estimated(person, site_shell):
    # Two people, not a bot: against a player who only flips, an easy bot empties its stack
    # within 90 moves in about one deal in fifty (L13), a few seconds at the test site's bot
    # pace, and the round was over before Amy's last flip (CI). Ben only sits: it stays open.
    amy, ben = person(), person()
    sign_up(amy, "equalamy")
    sign_up(ben, "equalben")
    amy.goto("/rooms/new/?game=ligretto-mini")
    amy.check("#id_equalise")
    amy.fill("#id_seats", "2")
    amy.fill("#id_rounds", "1")
    amy.click("main button[type=submit]")
    expect(amy.locator("#id_equalise")).to_have_count(0)  # on the room page now
    room_id = amy.url.rstrip("/").rsplit("/", 1)[1]
    expect(amy.locator("main")).to_contain_text("Latency equalisation")
    wait_live(amy)
    join(ben, room_id)
    amy.click("#start-button")
    at_table(amy)
    expect(amy.locator(".tag.equalised")).to_have_text("latency equalised")
    # The quick pings are answered (no frame of theirs is drawn); then a few of her flips.
    amy.wait_for_timeout(1500)
    expect(amy.locator("#lg-status")).to_have_attribute("data-status", "playing")
    flip = amy.locator("#me-flip")
    for _ in range(8):
        expect(flip).to_be_enabled()
        flip.click()
        amy.wait_for_timeout(400)
    code = (
        "from tables.models import ActionLog\n"
        f"rows = ActionLog.objects.filter(match__room_id={int(room_id)}, by_bot=False, seat=0)\n"
        "rows = [r for r in rows if r.received is not None]\n"
        "print(len(rows) > 0 and all(r.sent is not None and r.sent < r.received for r in rows))\n"
    )
    assert site_shell(code).strip() == "True"
    expect(amy.locator("#table-ping")).to_have_count(0)
