"""A table that moves: a card played onto a pile travels there from its player's place (not
under prefers-reduced-motion), and the sound effects are off until a player turns them on, then
stay on for him (and only him) in this browser."""

from __future__ import annotations

from playwright.sync_api import expect

from tests.browser.test_ligretto_table import at_table, join, open_room, play_a_little
from tests.browser.test_lobby_flow import sign_up


def test_cards_travel_to_their_pile_unless_motion_is_reduced_and_sound_is_a_choice(person):
    moving, still = person(), person()
    still.emulate_media(reduced_motion="reduce")
    sign_up(moving, "mover")
    sign_up(still, "stiller")
    room_id = open_room(moving, "ligretto", 4)
    join(still, room_id)
    # The joiner's seat comes as a new room part, form and all: count typed after it.
    expect(moving.locator("#seat-1")).to_contain_text("stiller")
    moving.fill("#bots-form input[name=count]", "2")
    moving.click("#bots-form button[type=submit]")
    expect(moving.locator("#seat-3")).to_contain_text("bot")
    moving.click("#start-button")
    for page in (moving, still):
        at_table(page)

    # The bots play onto the piles (so do you, by key): each card reaches its pile from the
    # bot's strip or your own slot.
    for page in (moving, still):
        expect(page.locator("#lg-status")).to_have_attribute("data-status", "playing")
    for _ in range(40):
        if moving.locator("#table[data-travels]").count():
            break
        play_a_little(moving)
        moving.wait_for_timeout(250)
    expect(moving.locator("#table[data-travels]")).to_have_count(1)
    # Two piles later, nothing travelled for the one who asked for less motion, his own cards
    # included. Both people play on meanwhile: the bots alone may hold no 1 they can reach, and
    # the round would wait for whoever does (a clean clone's table waited 40 s for the still
    # one's green 1, on top of his stack).
    for _ in range(80):
        if still.locator("#lg-center .pile").count() >= 2:
            break
        for page in (moving, still):
            play_a_little(page)
        moving.wait_for_timeout(250)
    expect(still.locator("#lg-center .pile").nth(1)).to_be_attached()
    assert still.locator("#table").get_attribute("data-travels") is None

    # Sound: off by default, on for the one who turns it on, and still on after a reload.
    for page in (moving, still):
        expect(page.locator("#sound-toggle")).to_have_attribute("aria-pressed", "false")
    still.click("#sound-toggle")
    expect(still.locator("#sound-toggle")).to_have_attribute("aria-pressed", "true")
    expect(still.locator("#table[data-sounds]")).to_have_count(1)  # a tone, to hear it works
    still.reload()
    at_table(still)
    expect(still.locator("#sound-toggle")).to_have_attribute("aria-pressed", "true")
    expect(moving.locator("#sound-toggle")).to_have_attribute("aria-pressed", "false")
    still.click("#sound-toggle")
    expect(still.locator("#sound-toggle")).to_have_attribute("aria-pressed", "false")
