"""A database of the schema before the tables app (models in "games") migrates with nothing lost.

The fixture is a SQLite dump made by the code of that time: two users, a Ligretto Mini and an
Allegra match with moves logged. `manage.py migrate` runs on a copy in its own process.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.any_store

ROOT = Path(__file__).resolve().parents[2]
DUMP = Path(__file__).parent / "fixtures" / "schema_before_tables_app.sql"
TABLES = ["match", "player", "presence", "round", "actionlog", "roundscore"]


def _manage(db: Path, *args: str) -> str:
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{db}", "REDIS_URL": ""}
    env.pop("DJANGO_SETTINGS_MODULE", None)
    done = subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def _counts(db: Path) -> dict[str, int]:
    with sqlite3.connect(db) as conn:
        return {t: conn.execute(f"SELECT count(*) FROM games_{t}").fetchone()[0] for t in TABLES}


def test_it_migrates_a_populated_database_of_the_games_app_with_nothing_lost(tmp_path):
    db = tmp_path / "old.sqlite3"
    with sqlite3.connect(db) as conn:
        conn.executescript(DUMP.read_text())
    before = _counts(db)
    assert before["actionlog"] == 11 and before["match"] == 2

    _manage(db, "migrate", "--noinput")

    assert _counts(db) == before
    with sqlite3.connect(db) as conn:
        applied = set(conn.execute("SELECT app, name FROM django_migrations").fetchall())
        labels = set(
            conn.execute("SELECT app_label FROM django_content_type WHERE model = 'match'")
        )
    assert {("tables", "0001_initial"), ("tables", "0002_player_won")} <= applied
    assert labels == {("tables",)}  # renamed, so the moderators' rights on matches follow
    out = _manage(
        db,
        "shell",
        "-c",
        "import json; from tables.live import rooms; from tables.models import Match; "
        "print(json.dumps([rooms.read(m.room_id).view(0)['version'] "
        "for m in Match.objects.order_by('pk')]))",
    )
    assert json.loads(out.strip().splitlines()[-1]) == [7, 6]  # both tables read back whole
    assert "No migrations to apply" in _manage(db, "migrate", "--noinput")
