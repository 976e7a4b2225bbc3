"""Allegra's clock in a real browser: a player who does nothing has her decisions made by a bot
when her time runs out, the table moves on, and after three timeouts (her own part saying that a
bot plays her seat) she takes her seat back."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from tests.browser.test_allegra_table import at_table
from tests.browser.test_lobby_flow import sign_up, wait_live


def test_an_idle_players_turn_is_played_by_a_bot_when_her_clock_runs_out(person, site_shell):
    ann = person()
    sign_up(ann, "ann2")  # a name of its own: the site under test serves the whole session
    ann.goto("/rooms/new/?game=allegra")
    ann.fill("#id_seats", "2")
    ann.fill("#id_rounds", "1")
    ann.fill("#id_clock", "2")  # two seconds a decision
    ann.click("main button[type=submit]")
    expect(ann).to_have_url(re.compile(r"/rooms/\d+/$"))
    wait_live(ann)
    room_id = re.search(r"/rooms/(\d+)/$", ann.url).group(1)
    ann.click("#bots-form button[type=submit]")
    ann.click("#start-button")
    at_table(ann)

    # Her clock runs for the opening: whose decision, the seconds left, the deadline in her zone.
    clock = ann.locator("#al-clock")
    expect(clock).to_contain_text("ann")
    expect(clock.locator("time[data-local=hms]")).to_have_text(re.compile(r"^\d\d:\d\d:\d\d$"))
    # She does nothing: a bot turns her two cards, and the table goes on to the turns.
    expect(ann.locator("#al-timed-out")).to_contain_text("Time ran out for ann", timeout=20_000)
    expect(ann.locator("#al-status")).not_to_have_attribute("data-phase", "opening")

    # Her turn too: a bot draws and decides for her, and the turn passes to the other seat.
    def her_turns_played() -> int:
        out = site_shell(
            "from tables.models import ActionLog\n"
            f"rows = ActionLog.objects.filter(match__room_id={room_id}, seat=0, by_bot=True)\n"
            "print(rows.exclude(action__type='reveal').count())\n"
        )
        return int(out.strip().splitlines()[-1])

    # Three timeouts in a row (the opening, then two turns): a stand-in takes her seat, and
    # the link that takes it back is shown to her.
    take_back = ann.locator("#al-take-back")
    expect(take_back).to_be_visible(timeout=30_000)
    assert her_turns_played() >= 1
    expect(ann.locator("#al-grid-0 .tag", has_text="bot")).to_have_count(1)
    # Her own part says so too, with the button that takes it back, and offers no move
    # (issue 45, item 10: it used to say "Your turn" with the draw buttons).
    expect(ann.locator("#al-stood-in")).to_contain_text("A bot plays your seat for now.")
    expect(ann.locator("#al-me .actions button")).to_have_count(0)
    expect(ann.locator("#al-hint")).to_have_count(0)
    ann.click("#take-seat-back")
    at_table(ann)
    expect(ann.locator("#al-grid-0 .tag", has_text="bot")).to_have_count(0)
    expect(ann.locator("#al-stood-in")).to_have_count(0)
