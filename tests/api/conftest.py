from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator

import pytest

from cardgames.devserver import ROOT, free_port, start_daphne, stop


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
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"],
        cwd=ROOT,
        env=env,
        check=True,
    )
    log = open(db.with_suffix(".log"), "w")  # noqa: SIM115 - closed after the server stops
    port = free_port()
    process = start_daphne(port, env, log)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        stop(process)
        log.close()
