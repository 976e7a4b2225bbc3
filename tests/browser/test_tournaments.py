"""Two people join a public tournament from the lobby; its start takes both pages to their table
by itself, and the end of the round takes them back to the live standings."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.browser.conftest import people, shell
from tests.browser.test_lobby_flow import sign_up, wait_live
from tests.devserver import serve_site

TABLE_URL = re.compile(r"/rooms/\d+/$")


@pytest.fixture(scope="module")
def quick_env(live_env: dict[str, str], tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """A site of this module's own whose idle player is marked away after 3 s and replaced 2 s
    later (30 s and 30 s by default, which the shared site keeps for the other flows)."""
    db = tmp_path_factory.mktemp("tournament-site") / "site.sqlite3"
    return {**live_env, "DATABASE_URL": f"sqlite:///{db}", "ROUND_IDLE": "3", "LEAVER_GRACE": "2"}


@pytest.fixture(scope="module")
def quick_url(quick_env: dict[str, str]) -> Iterator[str]:
    with serve_site(quick_env) as url:
        yield url


@pytest.fixture
def quick_person(browser: Browser, quick_url: str) -> Iterator[Callable[[], Page]]:
    with people(browser, quick_url) as open_page:
        yield open_page


@pytest.mark.timeout(180)
def test_two_people_join_from_the_lobby_and_their_pages_follow_the_round(
    quick_person: Callable[[], Page], quick_env: dict[str, str]
):
    def site_shell(code: str) -> str:
        return shell(quick_env, code)

    amy, ben = quick_person(), quick_person()
    sign_up(amy, "touramy")
    sign_up(ben, "tourben")
    made = site_shell(
        "from django.contrib.auth import get_user_model; from tournaments import services;"
        "amy = get_user_model().objects.get(username='touramy');"
        "t = services.create(amy, 'ligretto-mini', 2, 'swiss', rounds=1, starts_in=600);"
        "print(t.pk)"
    )
    tid = int(made.strip().splitlines()[-1])
    for page in (amy, ben):
        page.goto("/")
        link = page.locator(f'#lobby-tournaments a[href="/tournaments/{tid}/"]')
        expect(link).to_be_visible()
        link.click()
        page.wait_for_url(f"**/tournaments/{tid}/")
        page.click("#join")  # a form: the answer is the same page, with its Withdraw button
        expect(page.locator("#withdraw")).to_be_visible()
        wait_live(page)
    # Both in, the start is brought forward to now (a start 12 s off came before Ben's join on
    # a slow clean clone, and the tournament was cancelled for too few players). The server's
    # scheduler, which reads its timers from the database every second, starts it, and the
    # start sends both pages to their table.
    site_shell(
        "from django.utils import timezone; from tournaments.models import Tournament;"
        f"Tournament.objects.filter(pk={tid}).update("
        "starts_at=timezone.now(), next_action_at=timezone.now())"
    )
    for page in (amy, ben):
        page.wait_for_url(TABLE_URL, timeout=60_000)
    assert amy.url == ben.url
    room = int(amy.url.rstrip("/").rsplit("/", 1)[1])
    # Amy gives her seat up (a stand-in plays it at the bots' pace); Ben, idle, is marked away
    # and gets one too: the match runs to its end without a card from either.
    site_shell(
        "from django.contrib.auth import get_user_model; from lobby import services;"
        f"services.leave_room({room}, get_user_model().objects.get(username='touramy'))"
    )
    for page in (amy, ben):
        page.wait_for_url(f"**/tournaments/{tid}/", timeout=150_000)
        wait_live(page)
        standings = page.locator("#standings")
        expect(standings).to_contain_text("touramy")
        expect(standings).to_contain_text("tourben")
    expect(amy.locator("#tournament-status")).to_contain_text("Finished", timeout=30_000)
    # The page fits a phone: nothing wider than 390 px.
    amy.set_viewport_size({"width": 390, "height": 844})
    assert amy.evaluate("document.documentElement.scrollWidth") <= 390
