"""The cast (alice, bob, carol, dave; eve watches) and a guard that no test skips silently."""

from __future__ import annotations

import pytest

PASSWORD = "correct horse battery staple"

_skipped: list[str] = []


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if report.skipped and not hasattr(report, "wasxfail"):
        _skipped.append(report.nodeid)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    # A skipped test proves nothing: in this project a skip is a failure.
    if _skipped and session.exitstatus == 0:
        session.exitstatus = 1


def pytest_terminal_summary(terminalreporter) -> None:  # noqa: ANN001
    if _skipped:
        terminalreporter.write_line(
            f"FAILED: {len(_skipped)} test(s) skipped; skips are not allowed: "
            + ", ".join(_skipped),
            red=True,
        )


@pytest.fixture(autouse=True)
def _fast_password_hashing(settings):
    # Real hashing costs ~0.3 s a user; tests need the behaviour, not the cost.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def make_user(username: str = "alice", password: str = PASSWORD, **kw):
    from django.contrib.auth import get_user_model

    return get_user_model().objects.create_user(username=username, password=password, **kw)


@pytest.fixture
def alice(db):
    return make_user("alice")


@pytest.fixture
def bob(db):
    return make_user("bob")


@pytest.fixture
def carol(db):
    return make_user("carol")


@pytest.fixture
def dave(db):
    return make_user("dave")


@pytest.fixture
def eve(db):
    return make_user("eve")


def client_for(user):
    from django.test import Client

    client = Client()
    client.force_login(user)
    return client
