"""Screenshots of the pages issue 45's last items changed, at 390 and 1280 px in en, de, ru, ko.

Run by hand (not part of `make test`): `.venv/bin/python -m tests.browser.screens [folder]`
(default /work/screens). It serves the site on a database of its own, plays what the pages
need through the site's own code (a Ligretto and an Allegra match of bots with long-named
people, an abandoned practice table, a rematch nobody came to), then saves each page.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from playwright.sync_api import ConsoleMessage, sync_playwright

from tests.browser.conftest import CHROMIUM_ARGS
from tests.devserver import ROOT, TEST_SITE, serve_site

PASSWORD = "correct horse battery staple"
LANGUAGES = ("en", "de", "ru", "ko")
WIDTHS = {"phone": (390, 844), "laptop": (1280, 800)}

PREPARE = """
import json, random
from datetime import timedelta
from django.contrib.auth import get_user_model
from django.utils import timezone
from lobby import services
from lobby.models import Room
from tables import presence
from tables.driver import MatchBots
from tables.live import rooms
from tables.models import ActionLog

User = get_user_model()
ana = User.objects.create_user("anastasia-ivanovna", password={password!r})
bart = User.objects.create_user("bartholomew", password={password!r})
bartosz = User.objects.create_user("bartosz", password={password!r})


def played(game, seats, options, people, bots, level):
    room = services.create_room(people[0], game, seats, options)
    for person in people[1:]:
        services.join_room(room.pk, person)
    services.add_bots(room.pk, people[0], count=bots, level=level)
    services.start_room(room.pk, people[0])
    driver = MatchBots(room.pk, rng=random.Random(3))
    for _ in range(400_000):
        if driver.step() is None:
            break
    return room


ligretto = played("ligretto", 4, {{"rounds": 2, "target": 99}}, [ana, bart, bartosz], 1, "fast")
allegra = played("allegra", 3, {{"rounds": 1}}, [ana, bart], 1, "normal")
refused = (
    ActionLog.objects.filter(match__room=ligretto).exclude(refused="").order_by("version").first()
)
# The replay's step of a refused play (its index among the round's logged rows).
step = None
if refused is not None:
    rows = list(
        ActionLog.objects.filter(match__room=ligretto, round=refused.round)
        .order_by("version", "pk").values_list("pk", flat=True)
    )
    step = rows.index(refused.pk) + 1
round_no = refused.round.number if refused is not None else 1

# A rematch nobody came to: expired by the lobby's sweep.
rematch = services.rematch(allegra.pk, ana)
Room.objects.filter(pk=rematch.pk).update(created_at=timezone.now() - timedelta(hours=1))
services.expire_unopened()

# A practice table its player never opened: ended, abandoned, by the driver's rule.
from lobby import quickplay
practice = quickplay.practise(ana, "ligretto-mini", "easy")
later = timezone.now() + timedelta(seconds=120)
presence.end_unwatched(practice.pk, rooms.read(practice.pk), later)

print(json.dumps({{
    "ligretto": ligretto.pk, "allegra": allegra.pk, "rematch": rematch.pk,
    "practice": practice.pk, "step": step, "round": round_no,
}}))
"""


def prepare(env: dict[str, str]) -> dict[str, int]:
    import json

    done = subprocess.run(
        [
            sys.executable,
            "manage.py",
            "shell",
            "--no-imports",
            "-c",
            PREPARE.format(password=PASSWORD),
        ],
        cwd=ROOT,
        env={
            **env,
            "BOT_PACE": "0",
            "TABLE_COUNTDOWN": "0",
            "LEAVER_GRACE": "0",
            "END_UNWATCHED": "False",
            "BOT_DRIVER": "False",
        },
        check=True,
        capture_output=True,
        text=True,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def pages(ids: dict[str, int]) -> dict[str, str]:
    replay = f"/rooms/{ids['ligretto']}/replay?round={ids['round']}"
    if ids.get("step"):
        replay += f"&step={ids['step']}"
    return {
        "lobby": "/",
        "room-form-mini-target-1": "/rooms/new/?game=ligretto-mini&target=1&rounds=3",
        "ligretto-table": f"/rooms/{ids['ligretto']}/",
        "allegra-table": f"/rooms/{ids['allegra']}/",
        "sheet": f"/rooms/{ids['ligretto']}/sheet/",
        "replay-refused": replay,
        "rematch-expired": f"/rooms/{ids['rematch']}/",
        "practice-abandoned": f"/rooms/{ids['practice']}/",
        "practice-abandoned-sheet": f"/rooms/{ids['practice']}/sheet/",
    }


def main() -> None:
    folder = Path(sys.argv[1] if len(sys.argv) > 1 else "/work/screens")
    folder.mkdir(parents=True, exist_ok=True)
    db = Path(tempfile.mkdtemp()) / "screens.sqlite3"
    env = {
        **os.environ,
        "DATABASE_URL": f"sqlite:///{db}",
        "DEBUG": "True",
        "DJANGO_SETTINGS_MODULE": "cardgames.settings",
        **TEST_SITE,
        "BOT_PACE": "0.02",
        "SIGNUPS_PER_ADDRESS": "10000",
        "LOGIN_FAILURES_PER_ADDRESS": "10000",
    }
    env.pop("REDIS_URL", None)
    with serve_site(env) as url:
        ids = prepare(env)
        print("prepared", ids)
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(
                executable_path=shutil.which("chromium"), args=CHROMIUM_ARGS
            )
            for code in LANGUAGES:
                for width_name, (width, height) in WIDTHS.items():
                    context = browser.new_context(
                        base_url=url,
                        locale=code,
                        viewport={"width": width, "height": height},
                        extra_http_headers={"Accept-Language": code},
                    )
                    page = context.new_page()
                    errors: list[str] = []

                    def note(message: ConsoleMessage, errors: list[str] = errors) -> None:
                        if message.type == "error":
                            errors.append(message.text)

                    page.on("console", note)
                    page.goto("/accounts/login/")
                    page.fill("#id_username", "anastasia-ivanovna")
                    page.fill("#id_password", PASSWORD)
                    page.click("main button[type=submit]")
                    page.wait_for_url(lambda u: "/accounts/login/" not in u)
                    for name, path in pages(ids).items():
                        page.goto(path)
                        page.wait_for_load_state("networkidle")
                        lang = page.evaluate("document.documentElement.lang")
                        shot = folder / f"{name}-{code}-{width_name}.png"
                        page.screenshot(path=str(shot), full_page=True)
                        print(shot.name, "lang", lang)
                    csp = [e for e in errors if re.search("Content Security Policy", e)]
                    print(code, width_name, "console errors:", len(errors), "CSP:", len(csp))
                    for e in errors[:5]:
                        print("   ", e[:200])
                    context.close()
            browser.close()


if __name__ == "__main__":
    main()
