"""Rooms people can trust, in two browsers: a private room, a removed player, a closed room."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from tests.browser.test_lobby_flow import choose_game, sign_up, wait_live


def test_a_private_room_is_absent_from_the_lobby_and_refuses_a_seat_without_the_link(person):
    alice, bob = person(), person()
    sign_up(bob, "pia_bob")
    wait_live(bob)

    sign_up(alice, "pia_alice")
    alice.goto("/rooms/new/")
    choose_game(alice, "ligretto")
    alice.fill("#id_seats", "3")
    alice.check("#id_private")
    alice.click("main button[type=submit]")
    expect(alice).to_have_url(re.compile(r"/rooms/\d+/$"))
    expect(alice.locator("#room-private")).to_have_text("private")
    room_url = alice.url
    invite = alice.locator("#invite-link").input_value()

    # A public room opened after it shows up live in bob's lobby; the private one never does.
    alice.goto("/rooms/new/")
    choose_game(alice, "ligretto")
    alice.fill("#id_seats", "3")
    alice.click("main button[type=submit]")
    public_id = re.search(r"/rooms/(\d+)/$", alice.url).group(1)
    private_id = re.search(r"/rooms/(\d+)/$", room_url).group(1)
    expect(bob.locator(f"#room-{public_id}")).to_be_visible()
    expect(bob.locator(f"#room-{private_id}")).to_have_count(0)

    # Without the link: the room's address is a 404, as for a room that never was.
    answer = bob.goto(room_url)
    assert answer is not None and answer.status == 404
    expect(bob.locator("#join-button")).to_have_count(0)

    # With the link: he sees the room and takes a seat; alice sees him arrive live.
    bob.goto(invite)
    expect(bob).to_have_url(room_url)
    wait_live(bob)
    bob.click("#join-button")
    expect(bob.locator("#seat-1 .name")).to_have_text("pia_bob")
    expect(alice.locator("body")).to_be_visible()
    alice.goto(room_url)
    wait_live(alice)
    expect(alice.locator("#seat-1 .name")).to_have_text("pia_bob")

    # The host removes him; his page says so live, and he cannot sit down again.
    alice.on("dialog", lambda dialog: dialog.accept())
    alice.click("#seat-1 .remove-seat")
    expect(alice.locator("#seat-1")).to_contain_text("free")
    expect(bob.locator("#room-removed")).to_be_visible()
    expect(bob.locator("#join-button")).to_have_count(0)

    # The host closes the room with a reason; the one watching is told why.
    alice.fill("#close-form input[name=reason]", "wrong table")
    alice.click("#close-button")
    expect(bob.locator("#closed-reason")).to_have_text("Closed by its host: wrong table")
