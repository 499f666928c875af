"""A DMARC cache file whose rows hold what this version never writes: emptied and filled again, never a traceback."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest

from jmapclient.dmarc.digest_store import DamagedStore, DigestStore
from tests.support.digest_cache import EVERYTHING, filled


# Edited by hand, damaged inside a row (SQLite cannot tell), or written by another version under
# the same schema number: each ended `dmarc-advice` (and the Sources tab) in a traceback.
@pytest.mark.parametrize("damage", [
    "UPDATE records SET overrides='not json'",
    "UPDATE records SET dkim_auth='[1]'",
    "UPDATE reports SET begin='garbage'",
    "UPDATE records SET count='many'",
], ids=["json", "pairs", "timestamp", "count"])
def test_a_damaged_row_empties_the_store_and_says_so(tmp_path: Path, damage: str) -> None:
    path = tmp_path / "d.sqlite"
    filled(path)
    with sqlite3.connect(path) as db:
        db.execute(damage)
    store = DigestStore(path)
    with pytest.raises(DamagedStore, match="it has been emptied"):
        list(store.digests(*EVERYTHING))
    assert len(store) == 0 and list(store.digests(*EVERYTHING)) == []  # usable again, a sync fills it
    assert isinstance(DamagedStore("x"), sqlite3.Error)  # what the console's analytics already handles


@pytest.mark.parametrize("damage", [
    "UPDATE records SET overrides='not json'",
    "UPDATE records SET dkim_auth='[1]'",
    "UPDATE records SET spf_auth='[[1]]'",
    "UPDATE records SET count='many'",
], ids=["json", "pairs", "spf", "count"])
def test_records_read_as_stored_still_empty_a_damaged_store(tmp_path: Path, damage: str) -> None:
    # The advice reads a record's lists as stored and each shape once (records_of); a value that does not read
    # must still empty the store there, not end the command in a traceback where the tallies read it.
    path = tmp_path / "d.sqlite"
    filled(path)
    with sqlite3.connect(path) as db:
        db.execute(damage)
    store = DigestStore(path)
    keys = [report.key for report in store.period_reports(*EVERYTHING)]
    with pytest.raises(DamagedStore, match="it has been emptied"):
        list(store.records_of(keys))
    assert len(store) == 0


def test_a_damaged_generation_counts_again(tmp_path: Path) -> None:
    path = tmp_path / "d.sqlite"
    filled(path)
    with sqlite3.connect(path) as db:
        db.execute("UPDATE meta SET value='abc' WHERE key='generation'")
    store = DigestStore(path)
    assert store.figures(*EVERYTHING, limit=10).overview.messages == 5
    store.discard(["a"])  # a change moves the generation on from the damaged value
    assert store.figures(*EVERYTHING, limit=10).overview.reports == 0


def test_a_cache_in_a_folder_others_can_write_is_not_used(tmp_path: Path) -> None:
    # Another user swapped in a cache of their own (a planted file, or a link to a 0777 folder), and
    # dmarc-advice said "0 pass" of a report the server holds as passing (the tester's).
    folder = tmp_path / "shared"
    folder.mkdir()
    path = folder / "d.sqlite"
    filled(path)
    folder.chmod(0o777)
    link = tmp_path / "dmarc-digests"
    link.symlink_to(folder)
    store = DigestStore(link / "d.sqlite")
    assert len(store) == 0  # kept in memory: the planted rows are not read
    assert store.set_aside is not None and "can be written by group or others" in store.set_aside
    assert path.exists()  # left as it was


@pytest.mark.skipif(os.getuid() != 0, reason="giving a file to another user takes root")
def test_a_cache_file_another_user_owns_is_set_aside(tmp_path: Path) -> None:
    path = tmp_path / "d.sqlite"
    filled(path)
    os.chown(path, 65534, 65534)  # nobody
    store = DigestStore(path)
    assert len(store) == 0
    assert store.set_aside is not None and "it belongs to another user" in store.set_aside
    assert (tmp_path / "d.sqlite.damaged").exists() and path.stat().st_uid == os.getuid()
