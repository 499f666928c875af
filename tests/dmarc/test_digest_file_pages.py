"""The cache file's pages: a new file takes the larger page size the sync writes faster with; a file made
before keeps its own and is used as it is (not emptied, not rebuilt)."""

from __future__ import annotations

import sqlite3
import stat
from pathlib import Path

from jmapclient.dmarc.digest_store import DigestStore


def page_size(path: Path) -> int:
    with sqlite3.connect(path) as db:
        return int(db.execute("PRAGMA page_size").fetchone()[0])


def test_a_new_cache_file_has_the_larger_pages_and_stays_owner_only(tmp_path: Path) -> None:
    path = tmp_path / "d.sqlite"
    DigestStore(path).close()
    assert page_size(path) == 16384
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_a_file_made_with_other_pages_keeps_them_and_what_it_holds(tmp_path: Path) -> None:
    path = tmp_path / "d.sqlite"
    with sqlite3.connect(path) as db:
        db.execute("PRAGMA page_size=4096")
        db.execute("VACUUM")
    store = DigestStore(path)
    store.put([], ["r1"])  # an unreadable report's id: a row to find again
    store.close()
    again = DigestStore(path)
    assert "r1" in again and again.set_aside is None
    again.close()
    assert page_size(path) == 4096
