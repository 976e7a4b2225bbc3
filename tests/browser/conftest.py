"""Real browsers against a real Daphne: one server per session, two people per test.

The server runs in a subprocess on a free port with its own file-backed SQLite database,
so WebSockets work (pytest-django's live_server is WSGI only) and nothing is shared with
the other test runs. Tests talk to it only through the browser, as people do.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, Playwright, expect, sync_playwright

from tests.devserver import ROOT, TEST_SITE, serve_site

CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


# Two CPU cores run the server, the browsers and the bots: waits get room, never a fixed sleep.
expect.set_options(timeout=20_000)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "tests/browser/" in str(item.fspath).replace(os.sep, "/"):
            item.add_marker(pytest.mark.browser)


@pytest.fixture(scope="session")
def live_env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The environment of the site under test: its file database, its settings."""
    db = tmp_path_factory.mktemp("browser") / "site.sqlite3"
    env = {
        **os.environ,
        "DATABASE_URL": f"sqlite:///{db}",
        "DEBUG": "True",
        "DJANGO_SETTINGS_MODULE": "cardgames.settings",
        **TEST_SITE,
        # Bots at twenty times a person's pace and a short countdown keep the flows quick.
        "BOT_PACE": "0.02",
        "TABLE_COUNTDOWN": "1",
        # Quick play's wait before bots fill a room nobody else came to (20 s by default).
        "QUICK_PLAY_WAIT": "3",
        # Every person here signs up from 127.0.0.1 and acts fast: limits well out of the way.
        "SIGNUPS_PER_ADDRESS": "10000",
        "ROOMS_PER_USER": "1000",
        "ROOM_ACTIONS_PER_USER": "100000",
        "LOGIN_FAILURES_PER_ADDRESS": "10000",
    }
    env.pop("REDIS_URL", None)
    return env


@pytest.fixture(scope="session")
def live_url(live_env: dict[str, str]) -> Iterator[str]:
    with serve_site(live_env) as url:
        yield url


@pytest.fixture(scope="session")
def driver() -> Iterator[Playwright]:
    """The one Playwright of the browser tests' process (a second one cannot start beside it)."""
    with sync_playwright() as playwright:
        yield playwright


@pytest.fixture(scope="session")
def browser(driver: Playwright) -> Iterator[Browser]:
    """Debian's Chromium headless shell: the same Blink as its full browser (pages, scripts,
    sockets, layout and axe read the same), without the GPU process and compositor a person's
    screen needs and a test does not; a fifth less CPU for the browser flows (docs/performance.md).
    Lighthouse and the rolling deploy drive the full browser."""
    executable = shutil.which("chromium-headless-shell")
    if executable is None:
        raise RuntimeError("Debian's chromium-headless-shell is missing: run `make chromium`.")
    browser = driver.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
    yield browser
    browser.close()


@contextmanager
def people(browser: Browser, url: str) -> Iterator[Callable[[], Page]]:
    """Fresh browser contexts (one person each) on the site at `url`, closed at the end."""
    contexts: list[BrowserContext] = []

    def open_page() -> Page:
        context = browser.new_context(base_url=url)
        context.set_default_timeout(10_000)
        contexts.append(context)
        return context.new_page()

    yield open_page
    for context in contexts:
        context.close()


@pytest.fixture
def person(browser: Browser, live_url: str) -> Iterator[Callable[[], Page]]:
    """Open a fresh browser context (one person) per call: person() -> Page."""
    with people(browser, live_url) as open_page:
        yield open_page


def shell(env: dict[str, str], code: str) -> str:
    """Run Python in `manage.py shell` on the database `env` names; its stdout."""
    done = subprocess.run(
        [sys.executable, "manage.py", "shell", "--no-imports", "-c", code],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    # A failure says why (the shell's traceback), not only its exit status.
    assert done.returncode == 0, f"manage.py shell failed:\n{code}\n{done.stderr[-3000:]}"
    return done.stdout


@pytest.fixture
def site_shell(live_env: dict[str, str], live_url: str):  # noqa: ANN201
    """Run Python in `manage.py shell` on the live site's database: site_shell(code) -> stdout.

    For tests that must prepare what a browser cannot (a known deal), through the Django ORM
    of the same database the Daphne subprocess uses.
    """

    def run(code: str) -> str:
        return shell(live_env, code)

    return run
