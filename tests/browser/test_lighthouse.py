"""Lighthouse 12.8 (npm, `make axe`) on a phone: a seated table of each game, the lobby and a
how-to page score 100 for accessibility and best practices, shift less than 0.1 (CLS), have
legible text (at least 60 % of it 12 px or more) and a meta description; Chromium itself says
the site can be installed (Lighthouse 12 dropped its installability audit; it asked Chromium
the same question, Page.getInstallabilityErrors).

Lighthouse is slow: four runs in all, each on a page a test prepared. It drives Debian's full
Chromium (the browser a person installs the site in; the other browser flows use its headless
shell), launched by Playwright with a debugging port, in the browser's default context (a
persistent one), so the seated player's cookie reaches the page and its WebSocket.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import BrowserContext, Page, Playwright

from tests.browser.conftest import CHROMIUM_ARGS
from tests.browser.test_lobby_flow import sign_up, wait_live
from tests.browser.test_table_layout import PHONE, fill_with_bots_and_start, play_to_round_end
from tests.devserver import ROOT, free_port

LIGHTHOUSE = ROOT / "node_modules" / ".bin" / "lighthouse"
# The categories whose audits are read, and the one audit of the performance category asked for
# (the layout's shift): the rest of that category (load timings, with no throttling here) is
# neither asserted nor needed, and costs a quarter of each run.
CATEGORIES = ("accessibility", "best-practices", "seo")
AUDITS = ("cumulative-layout-shift",)


@pytest.fixture(scope="module")
def debugged(
    driver: Playwright, live_url: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple]:
    """One Chromium with a debugging port, its default context, and that port."""
    if not LIGHTHOUSE.exists():
        raise RuntimeError("Lighthouse is not installed: run `make axe`.")
    port = free_port()
    context = driver.chromium.launch_persistent_context(
        tmp_path_factory.mktemp("lighthouse-profile"),
        executable_path=shutil.which("chromium"),
        args=[*CHROMIUM_ARGS, f"--remote-debugging-port={port}"],
        base_url=live_url,
        viewport=PHONE,
    )
    context.set_default_timeout(10_000)
    yield context, port
    context.close()


# Lighthouse's own failures to record a page (not findings about it), which its message says
# to answer by running it again: once more, never more than that.
RUN_AGAIN = ("NO_NAVSTART", "NO_FCP", "Please run Lighthouse again")


def lighthouse(url: str, port: int, out: Path) -> dict:
    """Run Lighthouse (mobile) on `url` in the running browser; its report as JSON."""
    command = [
        str(LIGHTHOUSE),
        url,
        f"--port={port}",
        f"--only-categories={','.join(CATEGORIES)}",
        f"--only-audits={','.join(AUDITS)}",  # added to the categories' audits
        # The page was prepared (a seat, a cookie): keep its storage.
        "--disable-storage-reset",
        # The measurements asked for are the page's own, not a simulated slow network.
        "--throttling-method=provided",
        "--output=json",
        f"--output-path={out}",
        "--quiet",
    ]
    for attempt in (1, 2):
        done = subprocess.run(command, capture_output=True, text=True, timeout=240)
        said = done.stderr
        if done.returncode == 0:
            # It can also exit 0 with the failure inside the report: an audit that could not
            # run says so (NO_NAVSTART, on a loaded machine) and its category gets no score.
            report = json.loads(out.read_text())
            said = " ".join(a.get("errorMessage") or "" for a in report["audits"].values())
        tool_error = any(word in said for word in RUN_AGAIN)
        if attempt == 2 or not tool_error:
            break
        print(f"Lighthouse could not record {url} (attempt {attempt}); running it again")
    assert done.returncode == 0, f"Lighthouse failed on {url}: {done.stderr[-2000:]}"
    return report


def failing(report: dict) -> list[str]:
    """What misses the bar, in words: the two categories' audits, CLS, legible text."""
    problems = []
    for name in ("accessibility", "best-practices"):
        score = report["categories"][name]["score"]
        if score != 1:
            weak = [
                f"{ref['id']}: {report['audits'][ref['id']]['title']}"
                for ref in report["categories"][name]["auditRefs"]
                if ref["weight"] and report["audits"][ref["id"]]["score"] not in (None, 1)
            ]
            problems.append(f"{name} {round(score * 100)}: {weak}")
    cls = report["audits"]["cumulative-layout-shift"]["numericValue"]
    if cls >= 0.1:
        problems.append(f"CLS {cls:.3f}")
    for audit in ("font-size", "meta-description"):
        if report["audits"][audit]["score"] != 1:
            shown = report["audits"][audit].get("displayValue", "")
            problems.append(f"{audit}: {report['audits'][audit]['title']} {shown}")
    return problems


def figures(report: dict) -> str:
    cats = ", ".join(
        f"{name} {round(report['categories'][name]['score'] * 100)}" for name in CATEGORIES
    )
    cls = report["audits"]["cumulative-layout-shift"]["numericValue"]
    legible = report["audits"]["font-size"].get("displayValue", "")
    return f"{cats}, CLS {cls:.3f}, {legible}"


def installable(page: Page) -> list:
    """Chromium's own reasons the page cannot be installed (none: it can)."""
    page.evaluate("navigator.serviceWorker.ready.then(() => true)")
    session = page.context.new_cdp_session(page)
    errors = session.send("Page.getInstallabilityErrors")["installabilityErrors"]
    session.detach()
    return errors


# Four Lighthouse runs of 20-60 s each (more on a loaded machine): more than the default bound.
@pytest.mark.timeout(600)
def test_lighthouse_on_a_phone_table_of_each_game_the_lobby_and_a_how_to_page(
    debugged: tuple[BrowserContext, int], live_url: str, tmp_path: Path
):
    context, port = debugged
    page = context.pages[0] if context.pages else context.new_page()
    sign_up(page, "lighthouse")
    wait_live(page)
    assert installable(page) == []

    # The seated tables, each left where it waits for you: Allegra's opening for your two
    # cards, Ligretto's round end (raced to it with the bots) for your "ready", with every
    # pile's owners shown.
    tables = {}
    for game, seats in (("allegra", 4), ("ligretto", 4)):
        room_id = fill_with_bots_and_start(page, game, seats)
        tables[game] = f"{live_url}/rooms/{room_id}/"
    play_to_round_end(page)

    pages = {
        "allegra table": tables["allegra"],
        "ligretto table": tables["ligretto"],
        "lobby": f"{live_url}/",
        "how to play allegra": f"{live_url}/how-to-play/allegra/",
    }
    results, problems = {}, {}
    for name, url in pages.items():
        report = lighthouse(url, port, tmp_path / f"{name.replace(' ', '-')}.json")
        results[name] = figures(report)
        if found := failing(report):
            problems[name] = found
    print("Lighthouse:", json.dumps(results, indent=1))
    assert not problems, problems
