from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from tests.devserver import serve_site


@pytest.fixture(scope="session")
def live_api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A real Daphne serving the site (and its bot driver) on a free port: its base URL."""
    db = tmp_path_factory.mktemp("api") / "site.sqlite3"
    env = {
        **os.environ,
        "DATABASE_URL": f"sqlite:///{db}",
        "DEBUG": "True",
        "DJANGO_SETTINGS_MODULE": "cardgames.settings",
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
