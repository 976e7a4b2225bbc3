"""Two people press Play now in the same instant and land at one table, for every game; the
room page says who waits and counts the wait on."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.browser.conftest import people
from tests.browser.test_ligretto_table import at_table
from tests.browser.test_lobby_flow import sign_up, wait_live
from tests.devserver import serve_site

ROOM_URL = re.compile(r"/rooms/\d+/$")


def _press_together(pages: list[Page], game: str) -> list[str]:
    for page in pages:
        page.goto("/")
        expect(page.locator(f"#play-now-{game}")).to_be_visible()
    # Both buttons released together: each click is dispatched without waiting for its page.
    for page in pages:
        page.evaluate("id => document.getElementById(id).click()", f"play-now-{game}")
    for page in pages:
        page.wait_for_url(ROOM_URL)
    return [page.url for page in pages]


@pytest.fixture(scope="module")
def patient_env(
    live_env: dict[str, str], tmp_path_factory: pytest.TempPathFactory
) -> dict[str, str]:
    """A site of this module's own whose quick play waits a minute for more people before bots
    fill a room (the shared site waits 3 s): its waiting room can be looked at, however slow
    the machine."""
    db = tmp_path_factory.mktemp("play-now-site") / "site.sqlite3"
    return {**live_env, "DATABASE_URL": f"sqlite:///{db}", "QUICK_PLAY_WAIT": "60"}


@pytest.fixture(scope="module")
def patient_url(patient_env: dict[str, str]) -> Iterator[str]:
    with serve_site(patient_env) as url:
        yield url


@pytest.fixture
def patient_person(browser: Browser, patient_url: str) -> Iterator[Callable[[], Page]]:
    with people(browser, patient_url) as open_page:
        yield open_page


@pytest.mark.timeout(300)  # ten pairings, each through the lobby
def test_two_people_pressing_play_now_together_share_one_table(patient_person):
    amy, ben = patient_person(), patient_person()
    sign_up(amy, "togetheramy")
    sign_up(ben, "togetherben")
    # This module's site holds no room but theirs. Between two pairings of a four-seat game
    # both leave the room they wait in, as a person does (a second Play now would bring each
    # back to it); a two-seat room is full and started at once, and waits for nobody.
    for game in ("ligretto-mini", "ligretto", "allegra"):
        for run in range(3):
            urls = _press_together([amy, ben], game)
            assert urls[0] == urls[1], f"{game}, run {run}: two rooms {urls}"
            if game == "ligretto-mini":
                # The full room starts at once: a page that first drew it waiting goes to the
                # table by itself, and leaving before that would race its own navigation.
                for page in (amy, ben):
                    expect(page.locator("#table")).to_be_visible()
                    wait_live(page)
            elif not (game == "allegra" and run == 2):
                for page in (amy, ben):
                    wait_live(page)
                    page.click("#leave-button")
                    expect(page.locator("#leave-button")).to_have_count(0)
    # The last Allegra room (four seats) waits for more: its page says who waits, and for how
    # long (bots come after this site's minute).
    ben.reload()
    wait_live(ben)
    waited = ben.locator("#waiting-seat-0")
    expect(waited).to_have_text(re.compile(r"^0:\d\d$"))
    first = waited.inner_text()
    expect(waited).not_to_have_text(first)  # counted on by the page, second by second
    for name in ("togetheramy", "togetherben"):  # whoever came first has seat 1
        expect(ben.locator("#room-seats")).to_contain_text(name)
    # Nobody hosts a room quick play paired (issue 45 item 4): the first presser sees no
    # "Remove" beside the stranger and no "Close the room"; nobody is tagged host.
    for page in (amy, ben):
        page.reload()
        wait_live(page)
        expect(page.locator("#room-seats")).to_contain_text("togetherben")
        expect(page.locator("#room-seats button")).to_have_count(0)
        expect(page.locator("#close-button")).to_have_count(0)
        expect(page.locator("#room-seats .tag", has_text="host")).to_have_count(0)


def test_play_now_one_after_the_other_lands_both_at_one_table(patient_person):
    """Amy presses Play now and waits; Ben presses it later and takes her room's other seat.
    On this module's site bots come after a minute, so Ben arrives in time however slow the
    machine (on the shared site's 3 s a loaded run let bots start Amy's room first)."""
    amy, ben = patient_person(), patient_person()
    sign_up(amy, "quickamy")
    sign_up(ben, "quickben")
    amy.goto("/")
    amy.click("#play-now-ligretto-mini")
    expect(amy.locator("#room-status")).to_have_attribute("data-status", "open")
    expect(amy.locator("#quick-fill")).to_be_visible()
    wait_live(amy)
    room_url = amy.url
    ben.goto("/")
    ben.click("#play-now-ligretto-mini")
    # Ben takes the second seat; the room is full and starts: both are at its table.
    at_table(ben)
    assert ben.url == room_url
    at_table(amy)
    assert amy.url == room_url
    expect(amy.locator("#lg-seat-1")).to_contain_text("quickben")
    # A person: no bot tag (the "away · a bot plays in" tag of a socket still connecting is
    # about the person, not a bot seat, and says "bot" too).
    expect(amy.locator("#lg-seat-1 .tag:not(.away)", has_text="bot")).to_have_count(0)
