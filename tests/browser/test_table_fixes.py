"""Table fixes seen in real browsers: keys after chatting, the away countdown, the drawers."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from tests.browser.test_ligretto_table import at_table, join, open_room
from tests.browser.test_lobby_flow import sign_up
from tests.browser.test_table_layout import LAPTOP, PHONE

# Inside the viewport and not covered: what a finger at its centre would touch is it.
ON_TOP = """sel => { const e = document.querySelector(sel), r = e.getBoundingClientRect();
  const inside = r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight && r.right <= innerWidth;
  const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
  return inside && !!hit && (hit === e || e.contains(hit)); }"""


def started_pair(person, names: tuple[str, str]):
    alice, bob = person(), person()
    sign_up(alice, names[0])
    sign_up(bob, names[1])
    room_id = open_room(alice, "ligretto", 2)
    join(bob, room_id)
    alice.click("#start-button")
    for page in (alice, bob):
        at_table(page)
        expect(page.locator("#lg-status")).to_have_attribute("data-status", "playing")
    return alice, bob, room_id


def test_keys_go_to_the_table_again_once_the_chat_box_is_left(person):
    alice, bob, _ = started_pair(person, ("kira", "kurt"))
    hand = alice.locator("#me-flip .n")

    alice.fill("#chat-input", "hello")
    alice.press("#chat-input", "Enter")
    expect(alice.locator("#chat-log")).to_contain_text("hello")
    before = hand.inner_text()
    alice.keyboard.press("Space")  # still in the chat box: a space for the message
    expect(alice.locator("#chat-input")).to_have_value(" ")
    assert hand.inner_text() == before

    alice.keyboard.press("Escape")  # leaving the box gives the table its keys
    alice.keyboard.press("Space")
    expect(hand).not_to_have_text(before)

    # So does leaving it by clicking elsewhere (not on the table itself: the status line).
    alice.click("#chat-input")
    alice.click("#lg-status")
    before = hand.inner_text()
    alice.keyboard.press("Space")
    expect(hand).not_to_have_text(before)


def test_an_away_player_is_marked_with_the_seconds_until_a_bot_stands_in(person):
    alice, bob, room_id = started_pair(person, ("wanda", "walt"))
    bob.goto("/")  # his table page closes: the grace period starts
    mark = alice.locator("#lg-seat-1 .tag.away")
    expect(mark).to_contain_text(re.compile(r"a bot plays in \d+\s?s"))
    first = int(mark.locator(".secs").inner_text())
    assert 0 < first <= 30
    # At 1280 px the tag goes under the name rather than squeezing it to a letter a line.
    alice.set_viewport_size(LAPTOP)
    lines = alice.evaluate(
        """() => { const n = document.querySelector("#lg-seat-1 .name");
        return n.getBoundingClientRect().height / parseFloat(getComputedStyle(n).lineHeight); }"""
    )
    assert lines < 1.5, f"the away player's name runs over {lines:.1f} lines"
    expect(mark.locator(".secs")).not_to_have_text(str(first))  # it counts down
    bob.goto(f"/rooms/{room_id}/")  # back in time: the mark goes
    at_table(bob)
    expect(alice.locator("#lg-seat-1 .tag.away")).to_have_count(0)


def test_a_phone_opens_the_scores_and_the_chat_as_drawers(person):
    alice, bob, _ = started_pair(person, ("drawer-dot", "drawer-dirk"))
    alice.set_viewport_size(PHONE)
    expect(alice.locator("#lg-scores")).to_be_hidden()
    alice.click(".drawer-toggle[data-drawer=scores]")
    expect(alice.locator("#lg-scores")).to_be_visible()
    alice.click("[data-drawer-close]")
    expect(alice.locator("#lg-scores")).to_be_hidden()
    alice.click(".drawer-toggle[data-drawer=chat]")
    expect(alice.locator("#chat-input")).to_be_focused()

    # Open, the Scores drawer leaves the Chat toggle in reach and its own close button on screen.
    alice.click(".drawer-toggle[data-drawer=scores]")
    expect(alice.locator("#lg-scores")).to_be_visible()
    for target in ("[data-drawer-close]", ".drawer-toggle[data-drawer=chat]"):
        assert alice.evaluate(ON_TOP, target), f"{target} is covered or off screen"
    alice.click(".drawer-toggle[data-drawer=chat]")
    expect(alice.locator("#chat-input")).to_be_focused()
    alice.click("[data-drawer-close]")
    expect(alice.locator("#lg-scores")).to_be_hidden()
    assert alice.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]


def test_the_only_person_at_a_table_is_asked_before_leaving_and_lands_in_the_lobby(person):
    """Issue 45 item 5: Leave asks first and says the match ends; then the lobby says so."""
    solo = person()
    solo.goto("/")
    solo.click("#practise-ligretto-mini")
    at_table(solo)
    room_id = re.search(r"/rooms/(\d+)/", solo.url).group(1)
    leave = solo.locator("#leave-table")
    expect(leave).to_have_text("Leave the table (the match ends)")
    asked: list[str] = []

    def answer(dialog) -> None:  # noqa: ANN001
        asked.append(dialog.message)
        dialog.accept()

    solo.once("dialog", answer)
    leave.click()
    solo.wait_for_url(re.compile(r"/$"))
    assert asked == ["Leave the table? Nobody else plays here: the match ends now, unscored."]
    expect(solo.locator(".messages")).to_contain_text(
        f"You left room {room_id}; nobody else played there, so its match ended unscored."
    )
