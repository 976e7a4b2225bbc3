"""Ligretto tables in real browsers: people play by click and by key, watch, reload, finish."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from tests.browser.test_lobby_flow import sign_up, wait_live

# Flip first, then the waste top it turned up, then the row and the stack: a socket takes about
# 12 actions a second (too_fast beyond), and six keys every few hundred ms exceed that, so the
# keys pressed last are the ones refused. With the flip last, a deal whose row and stack could
# not be played never flipped again, and the round could outlast the test (seen: a fast bot
# flipping alone for minutes, ten thousand versions).
# Every row slot's key: a row has 5 cards at 2 seats and 4 at 3 (L3). With 1 to 3 only, a card
# in slot 4 that alone fit kept a 3-seat round with bots going for minutes (no standstill: the
# person could play it), and test_friends ran out of time.
PLAY_KEYS = ["Space", "w", "1", "2", "3", "4", "5", "s"]


def open_room(
    page: Page, game: str, seats: int, rounds: int | None = None, target: int | None = None
) -> str:
    page.goto(f"/rooms/new/?game={game}")
    page.fill("#id_seats", str(seats))
    if rounds is not None:
        page.fill("#id_rounds", str(rounds))
    if target is not None:
        page.fill("#id_target", str(target))
    page.click("main button[type=submit]")
    expect(page).to_have_url(re.compile(r"/rooms/\d+/$"))
    wait_live(page)
    return re.search(r"/rooms/(\d+)/$", page.url).group(1)


def join(page: Page, room_id: str) -> None:
    page.goto(f"/rooms/{room_id}/")
    wait_live(page)
    page.click("#join-button")
    expect(page.locator("#leave-button")).to_be_visible()


def at_table(page: Page) -> None:
    expect(page.locator("#lg-status")).to_be_visible()
    wait_live(page)


def status(page: Page) -> str:
    return page.locator("#lg-status").get_attribute("data-status") or ""


def play_a_little(page: Page) -> None:
    """Flip, then reach for every card once, by key: what a hurried person does."""
    for key in PLAY_KEYS:
        page.keyboard.press(key)


def get_ready(page: Page, by_key: bool = False) -> None:
    """Say ready, again if a move still in flight made the socket refuse it (too_fast)."""
    for _ in range(10):
        if by_key:
            page.keyboard.press("r")
        else:
            page.click("#me-ready")
        try:
            # Taken: waiting for the others, or everyone was ready and the table moved on.
            taken = "#lg-me .waiting, #match-result, #lg-status:not([data-status=round_over])"
            expect(page.locator(taken).first).to_be_visible(timeout=3_000)
            return
        except AssertionError:
            continue
    raise AssertionError("ready was never taken")


def _unglowed(html: str) -> str:
    """A part's HTML without what only the push that drew it shows (a pile's glow, a card on
    its way), and with the whitespace between elements made one space."""
    html = re.sub(r' just(?=[\s"])| data-arrived=""| style="[^"]*"', "", html)
    return re.sub(r"\s+", " ", html).strip()


def same_version(*pages: Page) -> None:
    """Wait until every page shows the same table version (nothing is in flight)."""
    for _ in range(50):
        versions = {p.locator("#table-version").get_attribute("data-version") for p in pages}
        if len(versions) == 1:
            return
        pages[0].wait_for_timeout(100)
    raise AssertionError(f"the pages never agreed on a version: {versions}")


def test_two_people_play_a_mini_round_to_its_end_while_a_spectator_watches(person):
    alice, bob, eve = person(), person(), person()
    for page, name in ((alice, "amy"), (bob, "bert"), (eve, "eva")):
        sign_up(page, name)
    room_id = open_room(alice, "ligretto-mini", 2)
    join(bob, room_id)
    alice.click("#start-button")
    for page in (alice, bob):  # the room page moves to the table by itself
        at_table(page)
    eve.goto(f"/rooms/{room_id}/")
    at_table(eve)
    expect(eve.locator(".spectating")).to_be_visible()
    expect(eve.locator("#lg-me.me")).to_have_count(0)
    expect(alice.locator("#me-row-0 kbd")).to_have_text("1")  # the keys are shown on the cards
    for page in (alice, bob, eve):
        expect(page.locator("#lg-status")).to_have_attribute("data-status", "playing")

    # A click and a key, each seen live by the others.
    hand = alice.locator("#me-flip .n")
    before = hand.inner_text()
    alice.click("#me-flip")
    expect(hand).not_to_have_text(before)
    expect(bob.locator("#lg-seat-0 .waste .n")).not_to_have_text("0")
    bob.keyboard.press("Space")
    expect(alice.locator("#lg-seat-1 .waste .n")).not_to_have_text("0")
    same_version(alice, bob, eve)
    assert eve.locator("#lg-center").inner_html() == alice.locator("#lg-center").inner_html()
    assert eve.locator("#lg-seat-1").inner_html() == alice.locator("#lg-seat-1").inner_html()

    # A reload mid-round brings back the exact table.
    same_version(alice, bob)
    mine = bob.locator("#lg-me").inner_html()
    bob.reload()
    at_table(bob)
    assert bob.locator("#lg-me").inner_html() == mine

    checked = False
    for moves in range(400):
        if status(alice) != "playing":
            break
        play_a_little(alice)
        play_a_little(bob)
        alice.wait_for_timeout(400)  # a person's pace: a socket refuses floods (too_fast)
        # (Both hurried players play a card of every kind each time: a round can end within
        # a dozen of these, so the look is taken early.)
        if moves >= 3 and not checked and status(alice) == "playing":
            # Mid-round, the centre the pushes left (a card played swaps in its pile alone)
            # is the centre drawn afresh, glows aside.
            same_version(alice, bob, eve)
            kept = eve.locator("#lg-center").inner_html()
            eve.reload()
            at_table(eve)
            assert _unglowed(eve.locator("#lg-center").inner_html()) == _unglowed(kept)
            checked = True
    assert checked
    expect(alice.locator("#lg-status")).to_have_attribute("data-status", "round_over")
    expect(eve.locator("#lg-status")).to_have_attribute("data-status", "round_over")
    same_version(alice, bob, eve)

    # L15: +1 per own card in the centre, -2 per card left in the Ligretto stack.
    for seat in (0, 1):
        tableau = eve.locator(f"#lg-seat-{seat}")
        in_center = int(tableau.locator(".in-center").inner_text())
        stack = int(tableau.locator(".stack .n").inner_text())
        cell = eve.locator("#lg-scores tbody tr[data-round='1'] td").nth(seat)
        assert int(cell.inner_text()) == in_center - 2 * stack

    get_ready(alice, by_key=True)
    get_ready(bob)
    for page in (alice, bob, eve):
        expect(page.locator("#match-result")).to_be_visible()
        expect(page.locator("#lg-status")).to_have_attribute("data-status", "finished")
    eve.goto("/")
    wait_live(eve)
    expect(eve.locator(f"#room-{room_id}")).to_have_count(0)  # gone from "being played"


# Two whole rounds at a person's pace: its loop allows four minutes, and so does its timeout
# (the default two cut it short once on a loaded machine; it takes about 20 s).
@pytest.mark.timeout(300)
def test_four_seats_two_of_them_bots_play_a_two_round_match_to_the_result(person):
    carol, dave = person(), person()
    sign_up(carol, "cora")
    sign_up(dave, "dan")
    room_id = open_room(carol, "ligretto", 4, rounds=2)
    join(dave, room_id)
    # Dan's seat reaches Cora's page as a new room part, form and all: typed before it, her
    # count of bots would be swapped back to 1 (a loaded run added one bot).
    expect(carol.locator("#seat-1")).to_contain_text("dan")
    carol.fill("#bots-form input[name=count]", "2")
    carol.select_option("#bots-form select[name=level]", "fast")
    carol.click("#bots-form button[type=submit]")
    expect(carol.locator("#seat-3")).to_contain_text("bot")
    carol.click("#start-button")
    for page in (carol, dave):
        at_table(page)
    expect(carol.locator("#lg-scores thead th")).to_have_count(5)

    for round_no in (1, 2):
        expect(carol.locator("#lg-status")).to_have_attribute("data-round", str(round_no))
        for _ in range(600):
            if status(carol) in ("round_over", "finished"):
                break
            play_a_little(carol)
            play_a_little(dave)
            carol.wait_for_timeout(400)
        expect(carol.locator("#lg-status")).to_have_attribute("data-status", "round_over")
        expect(carol.locator(f"#lg-scores tbody tr[data-round='{round_no}']")).to_be_visible()
        get_ready(carol)
        get_ready(dave, by_key=True)

    for page in (carol, dave):
        expect(page.locator("#lg-status")).to_have_attribute("data-status", "finished")
        expect(page.locator("#match-result")).to_contain_text("Back to the lobby")
    totals = [int(t) for t in carol.locator("#lg-scores tfoot td").all_inner_texts()]
    rounds = [
        [
            int(v)
            for v in carol.locator(f"#lg-scores tbody tr[data-round='{n}'] td").all_inner_texts()
        ]
        for n in (1, 2)
    ]
    assert totals == [a + b for a, b in zip(*rounds, strict=True)]
