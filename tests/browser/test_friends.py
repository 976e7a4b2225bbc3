"""Friends in two browsers: asked from a player page, seen going online and sitting down,
invited into a running Ligretto table's bot seat, which the invited one takes at the next
round; a blocked player's request and invitation refused with a sentence."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from tests.browser.test_ligretto_table import get_ready, play_a_little, status
from tests.browser.test_lobby_flow import sign_up, wait_live


def social_live(page: Page) -> None:
    # The social socket opens asynchronously (its own marker: #live-status is the table's).
    expect(page.locator('#social-live[data-connected="true"]')).to_be_attached()


def befriend(asker: Page, asked: Page, name_of_asked: str, name_of_asker: str) -> None:
    asker.goto(f"/players/{name_of_asked}/")
    asker.click("#ask-friend-button")
    expect(asker.locator("#friend-actions")).to_have_attribute("data-relation", "asked")
    asked.goto("/friends/")
    asked.click(f"#request-{name_of_asker} button:has-text('Accept')")
    expect(asked.locator(f"#friend-{name_of_asker}")).to_be_visible()


def test_friends_see_each_other_and_the_invited_one_takes_a_bot_seat(person):
    alice, bob = person(), person()
    sign_up(alice, "fr_alice")
    sign_up(bob, "fr_bob")
    befriend(bob, alice, "fr_alice", "fr_bob")

    # bob's list shows alice online (her page is open), then at her table, live.
    bob.goto("/friends/")
    social_live(bob)
    alice.goto("/friends/")
    social_live(alice)
    expect(bob.locator("#friend-fr_alice")).to_have_attribute("data-state", "online")

    alice.goto("/rooms/new/?game=ligretto")
    alice.fill("#id_seats", "3")
    alice.click("main button[type=submit]")
    expect(alice).to_have_url(re.compile(r"/rooms/\d+/$"))
    room_url = alice.url
    wait_live(alice)  # the room's socket draws the form on connect: fill it after that
    alice.fill("#bot-count", "2")
    alice.click("#bots-form button[type=submit]")
    expect(alice.locator("#start-button")).to_be_enabled()
    alice.click("#start-button")
    expect(alice.locator("#lg-me")).to_be_visible()
    expect(bob.locator("#friend-fr_alice")).to_have_attribute("data-state", "table")
    expect(bob.locator("#friend-fr_alice .watch")).to_have_attribute(
        "href", re.compile(r"/rooms/\d+/$")
    )

    # From a second tab, alice invites bob to her running table; his page shows it at once.
    invites = alice.context.new_page()
    invites.goto("/friends/")
    invites.click("#friend-fr_bob .invite-button")
    expect(invites.locator(".messages")).to_contain_text("fr_bob is invited.")
    invitation = bob.locator("#invitation-box .invitation")
    expect(invitation).to_contain_text("fr_alice invites you to their Ligretto table.")
    expect(bob.locator("#bell")).to_have_attribute("data-unread", "1")

    # He accepts while the round is played: nobody joins mid-round. He watches the table, which
    # tells him that the bot's seat is his at the next round; the bot plays it till then.
    bob.click(".accept-invitation")
    expect(bob).to_have_url(room_url)
    expect(bob.locator("#lg-me.watching #seat-claim")).to_have_text(
        "You take a bot's seat at this table at the next round."
    )
    bot_name = alice.locator("#lg-seat-1 .name").inner_text()
    assert bot_name != "fr_bob"
    expect(bob.locator("#lg-seat-1 .name")).to_have_text(bot_name)

    # alice plays the round out with the fast bots and says ready: the next round is dealt,
    # and with it (one change, every page) bob sits in the seat and holds its cards.
    for _ in range(300):
        if status(alice) not in ("playing", "starting"):
            break
        play_a_little(alice)
        alice.wait_for_timeout(400)  # a socket refuses floods (too_fast)
    expect(alice.locator("#lg-status")).to_have_attribute("data-status", "round_over")
    expect(alice.locator("#lg-seat-1 .name")).to_have_text(bot_name)  # the bot ends its round
    get_ready(alice)
    expect(alice.locator("#lg-status")).to_have_attribute("data-round", "2")
    expect(alice.locator("#lg-seat-1 .name")).to_have_text("fr_bob")
    expect(bob.locator("#lg-status")).to_have_attribute("data-round", "2")
    expect(bob.locator("#lg-me.me")).to_be_visible()
    expect(bob.locator("#seat-claim")).to_have_count(0)
    expect(bob.locator("#me-flip")).to_be_visible()  # his own hand, to play from this round


def test_a_blocked_players_request_and_invitation_are_refused_with_a_sentence(person):
    carol, dave = person(), person()
    sign_up(carol, "bl_carol")
    sign_up(dave, "bl_dave")
    befriend(carol, dave, "bl_dave", "bl_carol")

    dave.goto("/players/bl_carol/")
    dave.click("#block-button")
    expect(dave.locator("#friend-actions")).to_have_attribute("data-relation", "blocked")

    carol.goto("/players/bl_dave/")
    carol.click("#ask-friend-button")
    expect(carol.locator(".messages")).to_contain_text(
        "bl_dave does not accept requests or invitations from you."
    )

    carol.goto("/rooms/new/?game=ligretto")
    carol.fill("#id_seats", "3")
    carol.click("main button[type=submit]")
    expect(carol).to_have_url(re.compile(r"/rooms/\d+/$"))
    carol.goto("/friends/")
    social_live(carol)
    carol.fill("#invite-by-name input[name=name]", "bl_dave")
    carol.click("#invite-by-name button[type=submit]")
    expect(carol.locator(".messages")).to_contain_text(
        "bl_dave does not accept requests or invitations from you."
    )
    dave.goto("/friends/")
    expect(dave.locator("#invitation-box .invitation")).to_have_count(0)


def test_the_friends_list_the_bell_and_an_invitation_fit_a_phone(person):
    from tests.browser.test_languages_and_access import assert_accessible
    from tests.browser.test_pages_fit import fits

    erin, finn = person(), person()
    sign_up(erin, "ph_erin")
    sign_up(finn, "ph_finn")
    befriend(erin, finn, "ph_finn", "ph_erin")
    erin.goto("/rooms/new/?game=ligretto")
    erin.fill("#id_seats", "3")
    erin.click("main button[type=submit]")
    expect(erin).to_have_url(re.compile(r"/rooms/\d+/$"))
    finn.goto("/friends/")
    social_live(finn)
    erin.goto("/friends/")
    erin.click("#friend-ph_finn .invite-button")
    expect(finn.locator("#invitation-box .invitation")).to_be_visible()
    # Two unread: erin's friend request, then her invitation.
    expect(finn.locator("#bell")).to_have_attribute("data-unread", "2")
    fits(finn, "friends")
    assert_accessible(finn)  # axe: no serious or critical problem, the invitation shown
    finn.goto("/notifications/")
    expect(finn.locator("#notification-list li")).to_have_count(2)
    fits(finn, "notifications")
    assert_accessible(finn)
    finn.goto("/account/data/")
    fits(finn, "your-data")
    assert_accessible(finn)
    finn.click(".accept-invitation")
    expect(finn).to_have_url(re.compile(r"/rooms/\d+/$"))
    expect(finn.locator("#seat-1 .name")).to_have_text("ph_finn")
