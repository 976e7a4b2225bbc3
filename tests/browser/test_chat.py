"""Room chat in real browsers: live for players and spectators, quick reactions, mutes, hiding."""

from __future__ import annotations

import datetime
import re
from zoneinfo import ZoneInfo

from playwright.sync_api import Page, expect

from tests.browser.test_ligretto_table import at_table, join, open_room
from tests.browser.test_lobby_flow import PASSWORD, sign_up, wait_live


def say(page: Page, text: str) -> None:
    page.fill("#chat-input", text)
    page.click("#chat-send")


def log_in(page: Page, username: str) -> None:
    page.goto("/accounts/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", PASSWORD)
    page.click("main button[type=submit]")
    page.wait_for_url(lambda url: "/accounts/login/" not in url)


def test_a_chat_message_appears_live_for_the_other_player_and_for_a_spectator(person):
    alice, bob, eve, guest = person(), person(), person(), person()
    for page, name in ((alice, "chat-ann"), (bob, "chat-ben"), (eve, "chat-eva")):
        sign_up(page, name)
    room_id = open_room(alice, "ligretto-mini", 2)
    join(bob, room_id)
    eve.goto(f"/rooms/{room_id}/")
    wait_live(eve)

    # On the room page, before the start: the line is escaped and everyone sees it live.
    say(alice, "hello <b>all</b>")
    for page in (alice, bob, eve):
        line = page.locator("#chat-log .chat-line").last
        expect(line).to_contain_text("chat-ann")
        expect(line.locator(".text")).to_have_text("hello <b>all</b>")
    expect(alice.locator("#chat-input")).to_have_value("")  # cleared once sent

    alice.click("#start-button")
    for page in (alice, bob):
        at_table(page)
    eve.goto(f"/rooms/{room_id}/")
    at_table(eve)
    guest.set_viewport_size({"width": 390, "height": 844})  # a phone
    guest.goto(f"/rooms/{room_id}/")
    at_table(guest)
    # On a phone the chat is a drawer (issue 17): opened from the table's bar, it fits.
    guest.click(".drawer-toggle[data-drawer=chat]")
    box = guest.locator("#chat").bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390
    assert guest.evaluate("document.documentElement.scrollWidth") <= 390
    # The table's panel starts with what was said so far; a guest reads but cannot write.
    for page in (alice, bob, eve, guest):
        expect(page.locator("aside.table-side #chat-log")).to_contain_text("hello <b>all</b>")
    expect(guest.locator("#chat-closed")).to_contain_text("log in to chat")
    expect(guest.locator("#chat-input")).to_have_count(0)

    # At the table, a quick reaction is one click.
    bob.locator("#chat-reactions button", has_text="well played").click()
    for page in (alice, bob, eve, guest):
        line = page.locator("#chat-log .chat-line").last
        expect(line).to_contain_text("chat-ben")
        expect(line.locator(".text")).to_have_text("well played")
    say(eve, "nice game")
    for page in (alice, bob, guest):
        expect(page.locator("#chat-log .chat-line").last.locator(".text")).to_have_text("nice game")
    # The table still plays while people talk.
    expect(alice.locator("#lg-status")).to_have_attribute("data-status", "playing")


def test_a_muted_player_cannot_chat_and_a_moderator_hides_a_line(person, site_shell):
    alice, bob, mia = person(), person(), person()
    sign_up(alice, "mute-ann")
    sign_up(bob, "mute-ben")
    site_shell(
        "from django.contrib.auth import get_user_model\n"
        f"get_user_model().objects.create_user('mute-mia', password='{PASSWORD}')\n"
        "from django.core.management import call_command\n"
        "call_command('moderator', 'mute-mia')"
    )
    log_in(mia, "mute-mia")
    room_id = open_room(alice, "ligretto", 3)
    join(bob, room_id)
    mia.goto(f"/rooms/{room_id}/")
    wait_live(mia)
    expect(alice.locator(".chat-hide")).to_have_count(0)  # nobody has lines yet

    say(bob, "you all play badly")
    rude = alice.locator("#chat-log .chat-line", has_text="you all play badly")
    expect(rude).to_be_visible()
    expect(rude.locator(".chat-hide")).to_be_hidden()  # not staff: no hide button

    # The moderator hides the line from his page; it goes from every page at once.
    mia_line = mia.locator("#chat-log .chat-line", has_text="you all play badly")
    mia.once("dialog", lambda dialog: dialog.accept("rude to the table"))
    mia_line.locator(".chat-hide").click()
    for page in (alice, bob, mia):
        expect(page.locator("#chat-log")).not_to_contain_text("you all play badly")

    # Then a mute (recorded as the moderation pages would) while bob's page is open.
    until = site_shell(
        "import datetime\n"
        "from django.contrib.auth import get_user_model\n"
        "from django.utils import timezone\n"
        "from moderation.models import Mute\n"
        "users = get_user_model().objects\n"
        "mute = Mute.objects.create(user=users.get(username='mute-ben'), by=users.get("
        "username='mute-mia'), until=timezone.now() + datetime.timedelta(minutes=30), reason='x')\n"
        "print(timezone.localtime(mute.until).strftime('%H:%M %Y-%m-%d'), timezone.localdate())"
    ).split()
    # The end's time, and its date when that is another day (a mute set at 23:35 ends at 00:05
    # the next day: a clean clone ran then).
    time, day, today = until
    until = time if day == today else f"{time} on {day}"
    say(bob, "let me speak")
    expect(bob.locator("#chat-note")).to_have_text(f"You are muted until {until}.")
    # The panel's own line names the end in the reader's time zone and, on another day, in his
    # browser's format of a date and time.
    muted = (
        f"You are muted until {until}." if day == today else re.compile(rf"muted until .*{time}")
    )
    expect(bob.locator("#chat-muted")).to_have_text(muted)
    expect(bob.locator("#chat-input")).to_have_count(0)
    say(alice, "quiet now")
    expect(bob.locator("#chat-log")).to_contain_text("quiet now")
    for page in (alice, bob, mia):
        expect(page.locator("#chat-log")).not_to_contain_text("let me speak")
    bob.reload()
    wait_live(bob)
    expect(bob.locator("#chat-muted")).to_have_text(muted)
    expect(bob.locator("#chat-input")).to_have_count(0)


def test_chat_times_are_shown_in_the_readers_own_time_zone(browser, live_url):
    context = browser.new_context(base_url=live_url, timezone_id="Pacific/Chatham")
    try:
        page = context.new_page()
        sign_up(page, "zone-zoe")
        page.goto("/rooms/new/?game=ligretto")
        page.click("main button[type=submit]")
        wait_live(page)
        say(page, "what time is it")
        line = page.locator("#chat-log .chat-line").last
        expect(line).to_contain_text("what time is it")
        stamp = line.locator("time")
        at = datetime.datetime.fromisoformat(stamp.get_attribute("datetime"))
        expected = at.astimezone(ZoneInfo("Pacific/Chatham")).strftime("%H:%M")
        expect(stamp).to_have_text(expected)  # UTC+12:45 or +13:45: never the server's UTC
    finally:
        context.close()


AT_END = """() => { const log = document.getElementById('chat-log');
  return log.scrollHeight > log.clientHeight
    && log.scrollHeight - log.scrollTop - log.clientHeight < 2; }"""


COUNT_HEIGHT_READS = """() => { const log = document.getElementById('chat-log');
  const height = Object.getOwnPropertyDescriptor(Element.prototype, 'scrollHeight').get;
  window.heightReads = 0;
  Object.defineProperty(log, 'scrollHeight', {
    get() { window.heightReads += 1; return height.call(this); } }); }"""


def _scroll_log(page: Page, to: int) -> None:
    """Scroll the chat log as a reader does (to 0, or past its end); let its scroll event run."""
    page.evaluate(f"() => {{ document.getElementById('chat-log').scrollTop = {to}; }}")
    page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")


def test_the_chat_log_follows_new_lines_unless_the_reader_scrolled_back(person, site_shell):
    ann, ben = person(), person()
    sign_up(ann, "scroll-ann")
    sign_up(ben, "scroll-ben")
    room_id = open_room(ann, "ligretto", 3)
    site_shell(  # a long talk before Ben comes: more lines than the log shows at once
        "from django.contrib.auth import get_user_model\n"
        "from chat.models import ChatMessage\n"
        "ann = get_user_model().objects.get(username='scroll-ann')\n"
        "ChatMessage.objects.bulk_create(\n"
        f"    ChatMessage(room_id={room_id}, user=ann, text=f'line {{i}}') for i in range(40))"
    )
    join(ben, room_id)
    # He comes in at the end of the talk, its last line in view.
    ben.wait_for_function(AT_END)
    # He scrolls back to read: a new line does not pull him away from where he reads.
    _scroll_log(ben, 0)
    say(ann, "while you read")
    expect(ben.locator("#chat-log .chat-line").last.locator(".text")).to_have_text("while you read")
    assert ben.evaluate("document.getElementById('chat-log').scrollTop") == 0
    # Back at the end, the log follows the talk again.
    _scroll_log(ben, 1_000_000)
    say(ann, "welcome back")
    expect(ben.locator("#chat-log .chat-line").last.locator(".text")).to_have_text("welcome back")
    ben.wait_for_function(AT_END)
    # Whoever writes a line is brought to it, even from further up the log.
    ann.reload()
    wait_live(ann)
    ann.wait_for_function(AT_END)
    _scroll_log(ann, 0)
    say(ann, "my own line")
    expect(ann.locator("#chat-log .chat-line").last.locator(".text")).to_have_text("my own line")
    ann.wait_for_function(AT_END)
    # The room's other pushes (here a seat left and taken again) come through the same socket:
    # they leave the log alone, without even measuring it (each measure is a layout, on a phone
    # at a racing table many a second).
    ann.evaluate(COUNT_HEIGHT_READS)
    ben.click("#leave-button")
    expect(ann.locator("#room-seats")).not_to_contain_text("scroll-ben")
    join(ben, room_id)
    expect(ann.locator("#room-seats")).to_contain_text("scroll-ben")
    assert ann.evaluate("window.heightReads") == 0
    say(ben, "here again")
    expect(ann.locator("#chat-log .chat-line").last.locator(".text")).to_have_text("here again")
    assert ann.evaluate("window.heightReads") > 0  # a new line is measured, to follow it
    ann.wait_for_function(AT_END)
