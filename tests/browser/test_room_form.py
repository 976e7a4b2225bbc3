"""The room form says in words how the match will end, and says it again as options change."""

from __future__ import annotations

from playwright.sync_api import expect

from .test_lobby_flow import sign_up


def test_the_room_form_updates_how_the_match_ends_as_the_host_changes_options(person):
    alice = person()
    sign_up(alice, "alice3")
    alice.goto("/rooms/new/")
    sentence = alice.locator("#match-end")
    expect(sentence).to_have_text("First to 99 points, or after round 10, whichever comes first.")
    alice.fill("#id_target", "50")
    alice.fill("#id_rounds", "20")
    alice.press("#id_rounds", "Tab")  # a number field reports its change when left
    expect(sentence).to_have_text("First to 50 points, or after round 20, whichever comes first.")
    alice.check("#id_no_target")
    expect(sentence).to_have_text("A fixed 20 rounds; the highest total wins.")
    expect(alice.locator("#id_rounds")).to_have_value("20")  # only the sentence was swapped
    alice.select_option("#id_game", "allegra")
    expect(sentence).to_have_text("A fixed 3 rounds; the lowest total wins.")
    expect(alice.locator("#id_target")).to_have_count(0)
    alice.fill("#id_rounds", "1")
    alice.press("#id_rounds", "Tab")
    expect(sentence).to_have_text("One round; the lowest score wins.")
