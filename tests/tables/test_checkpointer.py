"""The writer's WAL file is checkpointed by a thread of its own (tables.store.Checkpointer), not
by whichever commit fills it: what was committed reaches the database file, readers or not."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

import pytest

from tables.live.store import Checkpointer

pytestmark = pytest.mark.any_store


def _in_file_alone(path: Path, scratch: Path) -> int:
    """How many rows the database file holds by itself, without its WAL file beside it."""
    scratch.write_bytes(path.read_bytes())
    alone = sqlite3.connect(scratch)
    try:
        return alone.execute("SELECT count(*) FROM log").fetchone()[0]
    except sqlite3.OperationalError:  # the table itself is still only in the WAL
        return 0
    except sqlite3.DatabaseError:  # copied while a checkpoint wrote it: a torn copy, look again
        return -1
    finally:
        alone.close()


def _until(check, seconds: float = 5.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.02)
    return False


def test_committed_rows_reach_the_database_file_without_a_commit_copying_them(tmp_path):
    path, scratch = tmp_path / "moves.sqlite3", tmp_path / "alone.sqlite3"
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA journal_mode = WAL")
    db.execute("PRAGMA wal_autocheckpoint = 0")  # as the writer's own connection
    db.execute("CREATE TABLE log (version INTEGER, action TEXT)")
    db.executemany("INSERT INTO log VALUES (?, ?)", [(v, "flip" * 50) for v in range(500)])
    assert _in_file_alone(path, scratch) == 0  # every commit so far lies in the WAL only
    checkpointer = Checkpointer(str(path), timeout=5, every=0.05)
    try:
        assert _until(lambda: _in_file_alone(path, scratch) == 500)
        # A reader inside a transaction does not stop it (PASSIVE): what that reader may still
        # need waits in the WAL, and is copied once it is done.
        reader = sqlite3.connect(path, isolation_level=None)
        reader.execute("BEGIN")
        assert reader.execute("SELECT count(*) FROM log").fetchone() == (500,)
        db.execute("INSERT INTO log VALUES (500, 'flip')")
        assert reader.execute("SELECT count(*) FROM log").fetchone() == (500,)
        reader.execute("COMMIT")
        reader.close()
        assert _until(lambda: _in_file_alone(path, scratch) == 501)
    finally:
        checkpointer.stop()
    assert not checkpointer.thread.is_alive()
    db.close()
