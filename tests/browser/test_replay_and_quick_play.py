"""A round's replay stepped back and forth and played; Play now as two people and as one."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

from playwright.sync_api import Page, expect

from tests.browser.test_ligretto_table import at_table
from tests.browser.test_lobby_flow import sign_up, wait_live
from tests.devserver import ROOT

# A bot match played to its end at full speed in the site's database, through the write path.
PLAYED = """
from django.contrib.auth import get_user_model
from lobby import services
from tables.driver import MatchBots
host = get_user_model().objects.create_user({name!r}, password="not-used-here-1")
room = services.create_room(host, {game!r}, 2, {{"rounds": 1}})
services.add_bots(room.pk, host, count=1, level={level!r})
services.start_room(room.pk, host)
bots = MatchBots(room.pk)
for _ in range(200_000):
    if bots.step() is None:
        break
print(room.pk)
"""


def _played_match(
    live_env: dict[str, str], name: str, game: str = "ligretto-mini", level: str = "fast"
) -> int:
    # Full speed, no countdown, the absent host's stand-in plays at once (and the table he
    # never opens is not ended for it: END_UNWATCHED).
    env = {**live_env, "BOT_PACE": "0", "TABLE_COUNTDOWN": "0", "LEAVER_GRACE": "0"}
    env["END_UNWATCHED"] = "False"
    done = subprocess.run(
        [
            sys.executable,
            "manage.py",
            "shell",
            "--no-imports",
            "-c",
            PLAYED.format(name=name, game=game, level=level),
        ],
        cwd=ROOT,
        env={**env, "BOT_DRIVER": "False"},
        check=True,
        capture_output=True,
        text=True,
    )
    return int(done.stdout.strip().splitlines()[-1])


def _step(page: Page) -> int:
    return int(page.locator("#replay").get_attribute("data-step") or "0")


def _board_at(page: Page, step: int) -> None:
    expect(page.locator("#replay-board")).to_have_attribute("data-step", str(step))
    expect(page.locator("#replay-step")).to_have_text(str(step))
    expect(page.locator(f"#move-{step}")).to_have_class(re.compile(r"\bcurrent\b"))


def test_a_replay_steps_back_and_forth_and_plays_to_its_end(person, live_env):
    room_id = _played_match(live_env, "replayhost")
    eve = person()  # anyone may watch a public room's replay, signed in or not
    eve.goto(f"/rooms/{room_id}/replay?round=1")
    steps = int(eve.locator("#replay").get_attribute("data-steps"))
    assert steps > 5
    expect(eve.locator("#replay-board #lg-center")).to_be_visible()
    expect(eve.locator("#replay-board #lg-me")).to_have_count(0)  # a spectator's table

    eve.click("#replay-forward")
    _board_at(eve, 1)
    first_move = eve.locator("#move-1").inner_text()
    eve.click("#replay-forward")
    eve.click("#replay-forward")
    _board_at(eve, 3)
    eve.click("#replay-back")
    _board_at(eve, 2)
    eve.click("#replay-last")
    _board_at(eve, steps)
    # The last step shows the finished table, as its spectators saw it.
    expect(eve.locator("#replay-board #lg-status")).to_have_attribute("data-status", "finished")
    eve.click("#replay-first")
    _board_at(eve, 0)
    eve.locator("#replay-slider").fill("4")
    _board_at(eve, 4)
    assert any(name in first_move for name in ("replayhost", "Fast bot 2"))

    # Nothing plays: no Pause button (the buttons' display once overrode `hidden`).
    expect(eve.locator("#replay-pause")).to_be_hidden()
    # Play at 4x from step 4: it runs on by itself to the last step, then stops.
    eve.click("#replay-play4")
    expect(eve.locator("#replay-pause")).to_be_visible()
    _board_at(eve, steps)
    expect(eve.locator("#replay-play")).to_be_visible()
    expect(eve.locator("#replay-pause")).to_be_hidden()
    # Play at 1x from the start (the last step starts over), and pause it on the way. The
    # page's clock is held: the first step comes at once, not after the deal's recorded gap
    # (the countdown and first looks: seconds in a real match); the second only after its own.
    eve.click("#replay-first")
    _board_at(eve, 0)
    gaps = eve.evaluate("JSON.parse(document.getElementById('replay-timeline').textContent)")
    eve.clock.install()
    eve.clock.pause_at(int(time.time() * 1000) + 1000)
    eve.click("#replay-play")
    expect(eve.locator("#replay")).to_have_attribute("data-playing", "1")
    eve.clock.run_for(1)
    _board_at(eve, 1)
    eve.clock.run_for(int(gaps[1] * 1000) + 1)
    _board_at(eve, 2)
    eve.clock.resume()
    eve.click("#replay-pause")
    paused = _step(eve)
    eve.wait_for_timeout(300)
    assert _step(eve) == paused

    # The score sheet links to it.
    eve.goto(f"/rooms/{room_id}/sheet/")
    eve.click("#sheet-replay")
    expect(eve).to_have_url(re.compile(rf"/rooms/{room_id}/replay$"))


def test_an_allegra_replay_is_drawn_in_allegras_style(person, live_env):
    # The page asks the registry for the game's board class and stylesheets: every Allegra
    # replay was unstyled while the page compared a package path with a slug.
    room_id = _played_match(live_env, "allegrareplay", game="allegra", level="normal")
    eve = person()
    eve.set_viewport_size({"width": 1280, "height": 800})
    eve.goto(f"/rooms/{room_id}/replay?round=1&step=6")
    board = eve.locator("#replay-board")
    expect(board).to_have_class(re.compile(r"\ballegra\b"))
    # The moves are said in the game's words (its layout's describe_action): the opening's
    # first move turns a card of someone's grid up.
    expect(eve.locator("#move-1")).to_contain_text(re.compile(r"turns up .+'s row \d, column \d"))
    expect(board.locator(".grid").first).to_be_visible()
    _shot(eve, "replay-allegra-1280")
    eve.click("#replay-last")
    expect(board.locator("#al-status")).to_have_attribute("data-status", "finished")
    # allegra.css is loaded and applies: a grid card is Allegra's size (2.2rem, or 1.55rem on a
    # narrow screen), not the table's default 3.6rem.
    card = board.locator(".card").first
    expect(card).to_be_visible()
    width = card.evaluate("c => getComputedStyle(c).getPropertyValue('--w').trim()")
    assert width in ("2.2rem", "1.55rem"), width
    links = eve.locator("link[rel=stylesheet][href*='allegra']")
    expect(links).to_have_count(1)


def _shot(page: Page, name: str) -> None:
    # Set SCREENSHOT_DIR to look at the page (tests/browser/test_table_layout.py does the same).
    folder = os.environ.get("SCREENSHOT_DIR")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(folder) / f"{name}.png"), full_page=True)


def _close_waiting_rooms(live_env: dict[str, str], game: str) -> None:
    # Other tests of this session may have left rooms of the game open: quick play would seat
    # the people of this test there. They are closed first, so that this test starts clean.
    code = (
        "from lobby.models import Room\n"
        f"Room.objects.filter(game={game!r}, status='open').update(status='closed')\n"
    )
    subprocess.run(
        [sys.executable, "manage.py", "shell", "--no-imports", "-c", code],
        cwd=ROOT,
        env=live_env,
        check=True,
        capture_output=True,
    )


def test_play_now_alone_lands_at_a_table_with_bots_after_the_wait(person, live_env):
    _close_waiting_rooms(live_env, "ligretto")
    cat = person()
    sign_up(cat, "quickcat")
    cat.goto("/")
    cat.click("#play-now-ligretto")
    expect(cat.locator("#quick-fill")).to_be_visible()
    wait_live(cat)
    # Nobody else comes: after the wait (3 s here) bots take the three empty seats.
    at_table(cat)
    for seat in (1, 2, 3):
        expect(cat.locator(f"#lg-seat-{seat}")).to_contain_text("bot")
    expect(cat.locator("#lg-seat-0")).to_contain_text("quickcat")


def test_practise_starts_a_table_against_the_chosen_bots_at_once(person):
    dan = person()
    sign_up(dan, "practisedan")
    dan.goto("/")
    dan.select_option("#practise-level-ligretto", "easy")
    dan.click("#practise-ligretto")
    at_table(dan)
    expect(dan.locator("#lg-seat-1")).to_contain_text("Easy bot")
