"""The store's log copied into its file while the store reads on (``checkpoint_behind``), so the last close on the
way out of ``dmarc-advice`` has nothing left to copy."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

from jmapclient.dmarc.digest_store import DigestStore


def reports_in_file_alone(path: Path, tmp_path: Path) -> int:
    """Reports the database file holds without its write-ahead log (what a checkpoint copied into it)."""
    alone = tmp_path / "alone.sqlite"
    shutil.copyfile(path, alone)
    with sqlite3.connect(alone) as db:
        if db.execute("SELECT 1 FROM sqlite_master WHERE name='reports'").fetchone() is None:
            return 0  # not even the tables are in the file yet
        return int(db.execute("SELECT count(*) FROM reports").fetchone()[0])


def test_the_log_is_copied_into_the_file_while_the_store_is_open(tmp_path: Path) -> None:
    path = tmp_path / "d.sqlite"
    store = DigestStore(path)
    store.put([], [f"r{n}" for n in range(50)])  # unreadable reports' ids: rows, in the log for now
    assert reports_in_file_alone(path, tmp_path) == 0
    store.checkpoint_behind()
    assert store._behind is not None
    store._behind.join()
    assert reports_in_file_alone(path, tmp_path) == 50
    assert len(store) == 0 and "r7" in store  # the store reads on as before (unreadable ones count in no period)
    store.close()
    assert store._behind is None


def test_a_store_in_memory_has_nothing_to_copy(tmp_path: Path) -> None:
    store = DigestStore(None)
    store.checkpoint_behind()
    assert store._behind is None
    store.close()
