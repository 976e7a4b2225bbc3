"""The cast (alice, bob, carol, dave; eve watches), a real server for the tests that need one,
and a guard that no test skips silently."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck
from hypothesis import settings as hypothesis_settings

from tests import devserver
from tests.devserver import TEST_SITE, serve_site

PASSWORD = "correct horse battery staple"

# The properties check what the code does, not how fast: on two cores with the suite's workers
# beside each other, an example's generation or run may be slow (a loaded run failed
# test_view_encoding's property on Hypothesis's too_slow health check). The number of examples
# and every other check stay as they are.
hypothesis_settings.register_profile(
    "suite", deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
hypothesis_settings.load_profile("suite")

_skipped: list[str] = []


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if report.skipped and not hasattr(report, "wasxfail"):
        _skipped.append(report.nodeid)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    # A skipped test proves nothing: in this project a skip is a failure.
    if _skipped and session.exitstatus == 0:
        session.exitstatus = 1


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    # A test that asks for more time than the default (`@pytest.mark.timeout(N)`) is one of the
    # few long ones (a tournament of 96 bots, Schemathesis, Lighthouse): they start first, so
    # that the two workers end together on short tests instead of one waiting for the other's
    # last long test. Otherwise the order is kept (the sort is stable).
    def asked(item: pytest.Item) -> float:
        marker = item.get_closest_marker("timeout")
        return float(marker.args[0]) if marker and marker.args else 0.0

    items.sort(key=asked, reverse=True)


def pytest_terminal_summary(terminalreporter) -> None:  # noqa: ANN001
    if _skipped:
        terminalreporter.write_line(
            f"FAILED: {len(_skipped)} test(s) skipped; skips are not allowed: "
            + ", ".join(_skipped),
            red=True,
        )


@pytest.fixture(scope="session", autouse=True)
def _one_migrated_database(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    # The sites this run serves start from copies of one migrated SQLite file (tests/devserver.py,
    # migrate): the folder is the run's, shared by its xdist workers, and pytest removes it.
    base = tmp_path_factory.getbasetemp()
    devserver.MIGRATED_DIR = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    yield
    devserver.MIGRATED_DIR = None


@pytest.fixture(autouse=True)
def _fast_password_hashing(settings):
    # Real hashing costs ~0.3 s a user; tests need the behaviour, not the cost.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def _tables_without_clock(settings):
    # No countdown and no background bot driver unless a test asks for them: tests that need
    # bots drive them themselves (tables.driver.MatchBots) so every step is awaited.
    settings.TABLE_COUNTDOWN = 0
    settings.BOT_DRIVER = False
    settings.BOT_PACE = 0
    settings.QUICK_PLAY_TIMER = False


def make_user(username: str = "alice", password: str = PASSWORD, **kw):
    from django.contrib.auth import get_user_model

    return get_user_model().objects.create_user(username=username, password=password, **kw)


def _cast(name: str):  # noqa: ANN202 - a pytest fixture
    @pytest.fixture(name=name)
    def member(db):  # noqa: ANN001, ANN202
        return make_user(name)

    return member


alice, bob, carol, dave = (_cast(n) for n in ("alice", "bob", "carol", "dave"))
eve = _cast("eve")  # the spectator


def client_for(user):
    from django.test import Client

    client = Client()
    client.force_login(user)
    return client


@pytest.fixture(autouse=True)
def _fresh_live_server():
    """Each test gets a live server of its own (tables.server): no room, owner, language
    reading or open socket of an earlier test is seen."""
    from tables import server
    from tables.apps import build_live_server

    fresh = server.install(build_live_server())
    yield fresh
    fresh.shut()


@pytest.fixture(autouse=True)
def _fresh_limits(settings):
    # Users get the same ids from test to test, so counts would carry over and add up. A key
    # prefix of the test's own starts it afresh on the configured cache (Redis on the scale
    # path) without clear(), which on Redis would flush a database other runs share.
    default = settings.CACHES["default"]
    prefix = f"{default.get('KEY_PREFIX', '')}test-{uuid.uuid4().hex}"
    settings.CACHES = {**settings.CACHES, "default": {**default, "KEY_PREFIX": prefix}}
    # What the pushes remember of the cache's language notes goes with it (tables.languages).
    from tables import languages

    languages.forget()


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> None:
    """Before the last test's fixtures end (the test database is dropped then), close the
    room actors' own SQLite connections, and end the PostgreSQL sessions that other threads
    of this process still hold on it (Django's connections are per thread, and only the main
    thread's are closed): PostgreSQL refuses to drop a database someone is connected to."""
    if nextitem is not None:
        return
    from django.db import connection

    from tables.live import rooms

    rooms.shut_sqlite()
    if connection.vendor != "postgresql" or not connection.settings_dict["NAME"].startswith(
        "test_"
    ):
        return
    import psycopg

    # The main thread's own session stays: the last test's teardown still uses it (a
    # transactional test flushes the tables through it), and Django closes it itself.
    mine = connection.connection.info.backend_pid if connection.connection is not None else 0
    params = connection.get_connection_params()
    with psycopg.connect(**params, autocommit=True) as admin:
        admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
            " WHERE datname = current_database() AND pid <> pg_backend_pid() AND pid <> %s",
            (mine,),
        )


@pytest.fixture(scope="session")
def live_api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A real Daphne serving the site (and its bot driver) on a free port: its base URL."""
    db = tmp_path_factory.mktemp("api") / "site.sqlite3"
    env = {
        **os.environ,
        "DATABASE_URL": f"sqlite:///{db}",
        "DEBUG": "True",
        "DJANGO_SETTINGS_MODULE": "cardgames.settings",
        **TEST_SITE,
        # Bots at full speed and a short countdown: the matches take seconds.
        "BOT_PACE": "0",
        "TABLE_COUNTDOWN": "0.2",
        # These clients are the test's own: no limit should stop them.
        "SIGNUPS_PER_ADDRESS": "1000",
        "API_ACTIONS_PER_USER": "1000000",
    }
    env.pop("REDIS_URL", None)
    with serve_site(env) as url:
        yield url
