"""A rolling deploy that no game notices: nginx (deploy/nginx.conf) in front of two processes on
PostgreSQL and Redis, ten live rooms, and both processes restarted one after the other mid-round.

Eight rooms of bots, one of two Board API players (moves over HTTP, views on the stream) and
bots, one of two people in real browsers. Process 1 gets SIGTERM, is started again, then
process 2: no acknowledged move is lost, no round or match is aborted, nobody gets a stand-in
bot, every page and stream comes back by itself (no reload), and the longest pause any player
saw is measured and printed (the issue asks for 2 s at most).

Run by `make test-scale` in a pytest process of its own (Playwright's loop and the asyncio
tests must not share one). Fails, never skips, without nginx or the services.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import threading
import time
from pathlib import Path
from typing import Any

import pytest
import websockets
from django.conf import settings
from django.db import connection, connections
from playwright.sync_api import Page, expect, sync_playwright

from api.models import ApiToken
from tables.models import ActionLog, Match, Player
from tests.browser.conftest import CHROMIUM_ARGS
from tests.browser.test_ligretto_table import at_table, join, open_room, play_a_little, status
from tests.browser.test_lobby_flow import sign_up
from tests.conftest import make_user
from tests.proxy import Site, running_proxy, site_processes
from tests.tables.helpers import started_room
from tests.tables.test_scale_owners import _act

pytestmark = [pytest.mark.deploy, pytest.mark.django_db(transaction=True)]

BOT_ROOMS = 8
LONGEST_PAUSE = 2.0  # seconds: the issue's bound on what a player may see of a deploy
FLIP = {"type": "flip"}
READY = {"type": "ready"}

# What each page measures itself: from a socket's close to the first frame after it.
PAUSES = """() => {
  window.notReloaded = true;
  window.pauses = [];
  let down = null;
  document.addEventListener("htmx:wsClose", () => { if (down === null) down = performance.now(); });
  document.addEventListener("htmx:wsAfterMessage", () => {
    if (down !== null) { window.pauses.push((performance.now() - down) / 1000); down = null; }
  });
}"""


def _fresh(query: Any) -> Any:
    try:
        return query()
    finally:
        connections.close_all()


def _env() -> dict[str, str]:
    db = settings.DATABASES["default"]
    return {
        **os.environ,
        "DATABASE_URL": f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}",
        "DEBUG": "True",
        "DJANGO_SETTINGS_MODULE": "cardgames.settings",
        "BOT_PACE": "0.3",
        "TABLE_COUNTDOWN": "1",
        "LEAVER_GRACE": "30",
        "API_ACTIONS_PER_USER": "1000000",
        "SIGNUPS_PER_ADDRESS": "10000",
        "ROOMS_PER_USER": "1000",
        "ROOM_ACTIONS_PER_USER": "100000",
        "LOGIN_FAILURES_PER_ADDRESS": "10000",
    }


class ApiPlayer:
    """Plays one seat over the Board API through the proxy, as a bot client would: moves over
    HTTP in one thread, the stream in another (reconnecting with `since` when it closes)."""

    def __init__(self, port: int, room_id: int, token: str) -> None:
        self.port, self.room_id, self.token = port, room_id, token
        self.base = f"http://127.0.0.1:{port}"
        self.acked: list[int] = []
        self.refused: list[str] = []
        self.restarts = 0  # restart notices the stream got
        self.views = 0
        self.longest = 0.0  # the longest time between two accepted moves
        self.gap: list[str] = []  # what was answered during that longest time
        self.longest_stream = 0.0  # the longest time from a close to the next view
        self.broken = ""  # what broke the stream's reader, if anything
        self.done = threading.Event()
        self.threads = [
            threading.Thread(target=self.move, daemon=True),
            threading.Thread(target=self.read, daemon=True),
        ]

    def move(self) -> None:
        last, action = time.monotonic(), FLIP
        answers: list[str] = []
        while not self.done.is_set():
            sent = time.monotonic()
            code, body = _act(self.port, self.room_id, self.token, action)
            took = time.monotonic() - sent
            if code == 200:
                now = time.monotonic()
                if now - last > self.longest:
                    self.longest, self.gap = now - last, [*answers, f"200 in {took:.2f} s"]
                last, answers = now, []
                self.acked.append(body["view"]["version"])
            else:
                refusal = body.get("error", {}).get("code", str(code)) if code else "no answer"
                self.refused.append(refusal)
                answers.append(f"{action['type']}: {code} {refusal} in {took:.2f} s")
            # Refused: the round may be over: ready for the next one, then flip on.
            action = READY if code != 200 and action is FLIP else FLIP
            time.sleep(0.1)

    def read(self) -> None:
        try:
            asyncio.run(self.stream())
        except Exception as error:  # a frame it could not read fails the test, not the thread
            self.broken = repr(error)

    async def stream(self) -> None:
        uri = self.base.replace("http://", "ws://") + f"/ws/api/v1/rooms/{self.room_id}/"
        since, closed = 0, None
        while not self.done.is_set():
            query = f"?token={self.token}" + (f"&since={since}" if since else "")
            try:
                async with websockets.connect(uri + query, origin=self.base) as socket:
                    async for frame in socket:
                        message = json.loads(frame)
                        if message["type"] == "restart":
                            self.restarts += 1
                        elif message["type"] == "view":
                            since = message["view"]["version"]
                            self.views += 1
                        if closed is not None:  # back: the first frame after a close
                            self.longest_stream = max(
                                self.longest_stream, time.monotonic() - closed
                            )
                            closed = None
                        if self.done.is_set():
                            return
            except (OSError, websockets.WebSocketException):
                pass
            closed = closed or time.monotonic()
            await asyncio.sleep(0.1)

    def __enter__(self) -> ApiPlayer:
        for thread in self.threads:
            thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.done.set()
        for thread in self.threads:
            thread.join(timeout=20)


def _deploy(sites: list[Site], steps: list[str]) -> None:
    """Restart each process in turn: SIGTERM, wait for its exit, start it on the same port."""
    for site in sites:
        began = time.monotonic()
        site.stop(grace=15)
        stopped = time.monotonic()
        site.start()
        steps.append(
            f"{site.name}: exited {stopped - began:.2f} s after SIGTERM,"
            f" listening again {time.monotonic() - stopped:.2f} s later"
        )
        time.sleep(2.0)  # play goes on between the two restarts, as in a paced deploy


def _keep_playing(page: Page) -> None:
    if status(page) == "round_over":
        ready = page.locator("#me-ready")
        if ready.count() and ready.is_visible():
            ready.click(timeout=2_000)
    elif status(page) == "playing":
        play_a_little(page)


@pytest.mark.timeout(300)
def test_a_rolling_deploy_mid_round_loses_nothing_and_pauses_nobody_long(tmp_path: Path):
    # Playwright's sync API keeps a loop running in this thread: the ORM must still work here.
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    assert connection.vendor == "postgresql", "set DATABASE_URL to a PostgreSQL database"
    assert settings.CHANNEL_LAYERS["default"]["BACKEND"].startswith("channels_redis"), "REDIS_URL"
    # Eight rooms of bots (their hosts left: bots play every seat), one of two API players.
    bot_rooms = []
    for n in range(BOT_ROOMS):
        host = make_user(f"host{n}")
        room = started_room(host, [], game="ligretto", bots=3, rounds=50)
        Player.objects.filter(match__room=room, seat=0).update(left=True, bot_level="normal")
        bot_rooms.append(room.pk)
    alice, bob = make_user("alice"), make_user("bob")
    api_room = started_room(alice, [bob], game="ligretto", bots=2, rounds=50).pk
    tokens = [ApiToken.objects.issue(user, "deploy")[1] for user in (alice, bob)]
    connections.close_all()

    with (
        site_processes(_env(), tmp_path / "sites") as sites,
        running_proxy([site.port for site in sites], tmp_path / "nginx") as proxy,
        sync_playwright() as playwright,
    ):
        browser = playwright.chromium.launch(
            executable_path=shutil.which("chromium"), args=CHROMIUM_ARGS
        )
        pages = []
        for name in ("carla", "dario"):
            context = browser.new_context(base_url=proxy.url)
            context.set_default_timeout(15_000)
            page = context.new_page()
            sign_up(page, name)
            pages.append(page)
        carla, dario = pages
        page_room = open_room(carla, "ligretto-mini", 2, rounds=50)
        join(dario, page_room)
        carla.click("#start-button")
        for page in pages:
            at_table(page)
            page.evaluate(PAUSES)
        players = [ApiPlayer(proxy.port, api_room, token) for token in tokens]
        for player in players:
            player.__enter__()
        time.sleep(2.0)  # every room plays
        before = _fresh(lambda: dict(Match.objects.values_list("room_id", "version")))

        steps: list[str] = []
        deploy = threading.Thread(target=_deploy, args=(sites, steps), daemon=True)
        deploy.start()
        while deploy.is_alive():  # the people play on all along
            for page in pages:
                _keep_playing(page)
            carla.wait_for_timeout(300)
        deploy.join()
        for _ in range(10):  # and a little after
            for page in pages:
                _keep_playing(page)
            carla.wait_for_timeout(300)
        for player in players:
            player.__exit__()
        for page in pages:
            expect(page.locator('#live-status[data-connected="true"]')).to_be_visible()
        page_pauses = [page.evaluate("window.pauses") for page in pages]
        reloaded = [not page.evaluate("window.notReloaded === true") for page in pages]
        browser.close()
        errors = proxy.errors()

    rooms = [*bot_rooms, api_room, int(page_room)]
    after = _fresh(lambda: dict(Match.objects.values_list("room_id", "version")))
    logged = _fresh(
        lambda: set(
            ActionLog.objects.filter(match__room_id=api_room, refused="").values_list(
                "version", flat=True
            )
        )
    )
    statuses = _fresh(
        lambda: list(Match.objects.filter(room_id__in=rooms).values_list("status", flat=True))
    )
    stand_ins = _fresh(
        lambda: list(
            Player.objects.filter(match__room_id__in=rooms, stand_in=True).values_list(
                "match__room_id", "seat"
            )
        )
    )
    pauses = {
        "carla (page)": max(page_pauses[0], default=0.0),
        "dario (page)": max(page_pauses[1], default=0.0),
        "alice (API moves)": players[0].longest,
        "bob (API moves)": players[1].longest,
        "alice (API stream)": players[0].longest_stream,
        "bob (API stream)": players[1].longest_stream,
    }
    print("\n" + "\n".join(steps))
    print(
        "longest pause each player saw: " + ", ".join(f"{k} {v:.2f} s" for k, v in pauses.items())
    )
    print(f"API moves accepted: {len(players[0].acked)} + {len(players[1].acked)}")
    for player in players:
        print(f"answers in the longest wait between two accepted moves: {player.gap}")

    # 0 acknowledged moves lost.
    assert players[0].acked and players[1].acked
    lost = [v for p in players for v in p.acked if v not in logged]
    assert not lost, lost
    # 0 rounds aborted: every match still plays, and every room went on after the deploy.
    assert statuses == ["playing"] * len(rooms), statuses
    assert all(after[room] > before[room] for room in rooms), (before, after)
    # 0 stand-ins caused by the deploy.
    assert not stand_ins, stand_ins
    # Every frame a stream got was a message it could read (an empty one came once).
    assert [p.broken for p in players] == ["", ""]
    # Every page and stream came back by itself: no reload; each stream was told first.
    assert reloaded == [False, False]
    assert all(player.restarts >= 1 for player in players), [p.restarts for p in players]
    assert "no live upstreams" not in errors, errors[-2000:]
    # Every API answer was the API's JSON, those of a call cut by a stop included.
    assert [r for p in players for r in p.refused if r == "not_json"] == []
    # The longest pause a player saw.
    assert max(pauses.values()) <= LONGEST_PAUSE, pauses
