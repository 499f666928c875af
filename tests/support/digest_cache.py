"""A small DMARC digest cache file for the tests that damage or plant one."""

from __future__ import annotations

from datetime import date, timedelta
from pathlib import Path

from jmapclient.dmarc.analytics import RecordDigest, ReportDigest
from jmapclient.dmarc.digest_store import DigestStore
from jmapclient.encoding import parse_utc

EVERYTHING = (date(2000, 1, 1), date(2100, 1, 1))
"""A period that holds every report the tests store."""


def filled(path: Path) -> None:
    """A cache file at ``path`` holding one listed report of one record of 5 messages."""
    begin = parse_utc("2026-03-01T00:00:00Z")
    record = RecordDigest("192.0.2.1", 5, "none", "pass", "pass", "d.test", "d.test", (), (("d.test", "pass"),), ())
    store = DigestStore(path)
    store.put([ReportDigest(id="a", reporter="r", report_id="x", policy_domain="d.test", begin=begin,
                            end=begin + timedelta(hours=23), records=(record,))])
    store.mark_listed(["a"])
    store.close()
