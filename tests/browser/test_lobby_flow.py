"""Two people in two browsers: sign up, open a room, see it live, join by invite, start."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from games.registry import GAMES

PASSWORD = "correct horse battery staple"


def sign_up(page: Page, username: str) -> None:
    page.goto("/accounts/signup/")
    page.fill("#id_username", username)
    page.fill("#id_password1", PASSWORD)
    page.fill("#id_password2", PASSWORD)
    page.click("main button[type=submit]")
    page.wait_for_url(lambda url: "/accounts/signup/" not in url)


def wait_live(page: Page) -> None:
    # The socket opens asynchronously; acting before it is up would miss pushes.
    expect(page.locator('#live-status[data-connected="true"]')).to_be_visible()


def choose_game(page: Page, slug: str) -> None:
    """Pick `slug` on the new-room form and wait until its own fields are swapped in (htmx): a
    seat count typed before that is replaced by the game's default (a loaded run saw a room of
    two opened for three; waiting for "networkidle" returns at once once the page reached it).
    A game already chosen is left alone, as a browser sends no change for it (Playwright would,
    and its swap could land after the seats are typed)."""
    if page.locator("#id_game").input_value() != slug:
        page.select_option("#id_game", slug)
    expect(page.locator("#id_seats")).to_have_attribute("max", str(GAMES[slug].max_seats))


def test_two_people_open_join_and_start_a_room(person):
    alice, bob = person(), person()

    sign_up(bob, "bob")
    expect(bob).to_have_url(re.compile(r"/$"))
    wait_live(bob)
    expect(bob.locator("#open-ligretto")).to_contain_text("No open Ligretto rooms yet")

    sign_up(alice, "alice")
    alice.goto("/rooms/new/")
    choose_game(alice, "ligretto")
    alice.fill("#id_seats", "3")
    alice.click("main button[type=submit]")
    expect(alice).to_have_url(re.compile(r"/rooms/\d+/$"))
    wait_live(alice)
    room_id = re.search(r"/rooms/(\d+)/$", alice.url).group(1)
    expect(alice.locator("#seat-0")).to_contain_text("alice")
    expect(alice.locator("#seat-1")).to_contain_text("free")

    # Bob's lobby shows the new room without a reload.
    expect(bob.locator(f"#room-{room_id}")).to_contain_text("hosted by alice")
    expect(bob.locator(f"#room-{room_id}")).to_contain_text("1 of 3 seats taken")

    invite = alice.locator("#invite-link").input_value()
    assert "/invite/" in invite
    bob.goto(invite)
    expect(bob).to_have_url(re.compile(rf"/rooms/{room_id}/$"))
    wait_live(bob)
    expect(alice.locator("#seat-1")).to_contain_text("free")  # opening the link took no seat
    # Alice is filling in the room's forms when Bob sits down: his seat redraws the room part,
    # forms and all, and what she typed stays (a count of bots within the seats left free).
    alice.fill("#bot-count", "2")
    alice.select_option("#bots-form select[name=level]", "fast")
    alice.fill("#close-form input[name=reason]", "lunch")
    bob.click("#join-button")

    # Both see the seat list change live.
    expect(alice.locator("#seat-1")).to_contain_text("bob")
    expect(alice.locator("#bot-count")).to_have_attribute("max", "1")
    expect(alice.locator("#bot-count")).to_have_value("1")
    expect(alice.locator("#bots-form select[name=level]")).to_have_value("fast")
    expect(alice.locator("#close-form input[name=reason]")).to_have_value("lunch")
    expect(alice.locator("#close-form input[name=reason]")).to_be_focused()
    expect(bob.locator("#seat-0")).to_contain_text("alice")
    expect(bob.locator("#seat-1")).to_contain_text("bob")
    expect(bob.locator("#start-button")).to_have_count(0)  # only the host starts

    alice.click("#start-button")
    # Both pages move to the table by themselves; the empty third seat was dropped.
    for page in (alice, bob):
        expect(page.locator("#lg-status")).to_be_visible()
        expect(page.locator("#lg-scores thead th")).to_have_count(3)  # "Round" and two players


def test_a_visitor_signs_up_through_an_invite_and_sees_refusals(person):
    alice, carol = person(), person()
    sign_up(alice, "alice2")
    alice.goto("/rooms/new/")
    alice.select_option("#id_game", "ligretto-mini")
    expect(alice.locator("#id_seats_helptext")).to_have_text("Exactly 2 players.")
    # Mini's own options (issue 45 item 13): a target and best of N, no "no target" box.
    expect(alice.locator("#id_best_of")).to_have_count(1)
    expect(alice.locator("#id_no_target")).to_have_count(0)
    alice.fill("#id_seats", "3")
    alice.click("main button[type=submit]")
    expect(alice.locator(".errorlist")).to_contain_text("needs 2 players")
    alice.fill("#id_seats", "2")
    alice.click("main button[type=submit]")
    wait_live(alice)
    alice.click("#start-button", force=True)  # disabled: nothing must happen
    expect(alice.locator("#room-status")).to_have_attribute("data-status", "open")

    invite = alice.locator("#invite-link").input_value()
    carol.goto(invite)
    expect(carol).to_have_url(re.compile(r"/accounts/signup/"))
    carol.fill("#id_username", "carol")
    carol.fill("#id_password1", PASSWORD)
    carol.fill("#id_password2", PASSWORD)
    carol.click("main button[type=submit]")
    expect(carol).to_have_url(re.compile(r"/rooms/\d+/$"))
    wait_live(carol)
    carol.click("#join-button")
    expect(carol.locator("#seat-1")).to_contain_text("carol")
    expect(alice.locator("#seat-1")).to_contain_text("carol")
    expect(alice.locator("#start-button")).to_be_enabled()

    carol.click("#leave-button")
    expect(alice.locator("#seat-1")).to_contain_text("free")
    carol.click("#join-button")
    expect(alice.locator("#seat-1")).to_contain_text("carol")


# Every layout shift the page makes, from its first paint (Chromium's Layout Instability API).
SHIFTS = """
window.shifts = [];
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) {
    const moved = e.sources.map((s) => [
      s.node ? s.node.id || s.node.className || s.node.nodeName : "?",
      Math.round(s.previousRect.y), Math.round(s.currentRect.y)]);
    window.shifts.push({at: Math.round(e.startTime), value: e.value, moved: moved});
  }
}).observe({type: "layout-shift", buffered: true});
"""


def test_nothing_arrives_after_the_lobby_or_a_player_page_to_move_what_is_on_them(person):
    # The daily challenge's box, the tournaments' list, a player's streak and his tournaments
    # were loaded after their pages (hx-get on load): what was below them jumped down as they
    # came, and a click aimed there (Play now, a room, a match) could land on something else.
    # They are drawn in the page's own answer now. A tall window, so that all of each page is
    # in view (a shift below the fold is not reported).
    page = person()
    page.set_viewport_size({"width": 1000, "height": 2400})
    sign_up(page, "shifty")
    page.add_init_script(SHIFTS)
    for url in ("/", "/players/shifty/"):
        page.goto(url)
        if url == "/":
            wait_live(page)  # the room list the socket sends on connect is in place too
            expect(page.locator("#daily-box-heading")).to_be_visible()
            expect(page.locator("#tournament-list-heading")).to_be_visible()
        else:
            expect(page.locator("#daily-streak-heading")).to_be_visible()
            expect(page.locator("#tournaments-played-heading")).to_be_visible()
        page.wait_for_load_state("networkidle")
        page.evaluate(
            "() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))"
        )
        assert page.evaluate("window.shifts") == [], url
