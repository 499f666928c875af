"""A DMARC cache file whose rows hold what this version never writes: emptied and filled again, never a traceback."""

from __future__ import annotations

import sqlite3
from datetime import date, timedelta
from pathlib import Path

import pytest

from jmapclient.dmarc.analytics import RecordDigest, ReportDigest
from jmapclient.dmarc.digest_store import DamagedStore, DigestStore
from jmapclient.encoding import parse_utc

EVERYTHING = (date(2000, 1, 1), date(2100, 1, 1))


def filled(path: Path) -> None:
    begin = parse_utc("2026-03-01T00:00:00Z")
    record = RecordDigest("192.0.2.1", 5, "none", "pass", "pass", "d.test", "d.test", (), (("d.test", "pass"),), ())
    store = DigestStore(path)
    store.put([ReportDigest(id="a", reporter="r", report_id="x", policy_domain="d.test", begin=begin,
                            end=begin + timedelta(hours=23), records=(record,))])
    store.mark_listed(["a"])
    store.close()


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


def test_a_damaged_generation_counts_again(tmp_path: Path) -> None:
    path = tmp_path / "d.sqlite"
    filled(path)
    with sqlite3.connect(path) as db:
        db.execute("UPDATE meta SET value='abc' WHERE key='generation'")
    store = DigestStore(path)
    assert store.figures(*EVERYTHING, limit=10).overview.messages == 5
    store.discard(["a"])  # a change moves the generation on from the damaged value
    assert store.figures(*EVERYTHING, limit=10).overview.reports == 0
