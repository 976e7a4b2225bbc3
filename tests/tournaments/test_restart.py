"""A server stopped (SIGTERM) between two Swiss rounds and started again: the next round starts
on time, once. The schedule lives in the database (`Tournament.next_action_at`); the new process
runs what is due from its start (cardgames.lifecycle -> tournaments.scheduler)."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import time
from datetime import datetime
from pathlib import Path

import pytest

from tests.devserver import ROOT, TEST_SITE, free_port, migrate, start_daphne, stop_within

BREAK = 8  # seconds between the rounds: the restart falls inside it


def _query(db: Path, sql: str) -> list[tuple]:
    with sqlite3.connect(db) as connection:
        return connection.execute(sql).fetchall()


def _wait(db: Path, sql: str, seconds: float) -> list[tuple]:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        rows = _query(db, sql)
        if rows:
            return rows
        time.sleep(0.2)
    raise AssertionError(f"nothing for {sql!r} within {seconds} s")


def _when(text: str) -> datetime:
    return datetime.fromisoformat(text)


@pytest.mark.timeout(300)
def test_the_next_round_starts_on_time_after_a_restart_between_rounds(tmp_path):
    db = tmp_path / "site.sqlite3"
    env = {
        **os.environ,
        "DATABASE_URL": f"sqlite:///{db}",
        "DJANGO_SETTINGS_MODULE": "cardgames.settings",
        **TEST_SITE,
        "DEBUG": "True",
        "BOT_PACE": "0.02",
        "TABLE_COUNTDOWN": "1",
        "TOURNAMENT_BREAK": str(BREAK),
    }
    env.pop("REDIS_URL", None)
    migrate(env)
    subprocess.run(
        [
            sys.executable,
            "manage.py",
            "shell",
            "--no-imports",
            "-c",
            "from django.contrib.auth import get_user_model; from tournaments import services;"
            "amy = get_user_model().objects.create_user('amy', password='x-Pass-4321');"
            "t = services.create(amy, 'ligretto-mini', 2, 'swiss', rounds=2, starts_in=0);"
            "services.add_bots(t.pk, amy, 4, 'fast')",
        ],
        cwd=ROOT,
        env=env,
        check=True,
    )
    port = free_port()
    with open(tmp_path / "first.log", "w") as log:
        first = start_daphne(port, env, log)
    try:
        # Round 1 plays and is scored; the event waits out its break.
        _wait(
            db,
            "SELECT 1 FROM tournaments_tournamentround WHERE number = 1 AND status = 'scored'",
            90,
        )
        (due,) = _query(db, "SELECT next_action_at FROM tournaments_tournament")[0]
        assert not _query(db, "SELECT 1 FROM tournaments_tournamentround WHERE number = 2")
    finally:
        stop_within(first, 20)
    stopped = time.time()
    with open(tmp_path / "second.log", "w") as log:
        second = start_daphne(port, env, log)
    try:
        (started,) = _wait(
            db, "SELECT started_at FROM tournaments_tournamentround WHERE number = 2", 60
        )[0]
        late = (_when(started) - _when(due)).total_seconds()
        assert -0.5 <= late <= 5, f"round 2 started {late:.1f} s after its time"
        assert time.time() - stopped < BREAK + 10
        # Once: one round 2, its two tables.
        assert _query(db, "SELECT COUNT(*) FROM tournaments_tournamentround WHERE number = 2") == [
            (1,)
        ]
        tables = _query(
            db,
            "SELECT COUNT(*) FROM tournaments_tournamenttable t JOIN tournaments_tournamentround r"
            " ON t.round_id = r.id WHERE r.number = 2",
        )
        assert tables == [(2,)]
        _wait(db, "SELECT 1 FROM tournaments_tournament WHERE status = 'finished'", 90)
    finally:
        stop_within(second, 20)
