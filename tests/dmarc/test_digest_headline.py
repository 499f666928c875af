"""The figures' headline (totals, domains, days) told before the records are added up, and only then."""

from __future__ import annotations

from datetime import date, timedelta

import pytest

from jmapclient.dmarc.analytics import RecordDigest, ReportDigest
from jmapclient.dmarc.digest_figures import DigestFigures
from jmapclient.dmarc.digest_store import DigestStore
from jmapclient.dmarc.figures import Headline
from jmapclient.encoding import parse_utc

FIRST, LAST = date(2026, 3, 1), date(2026, 3, 10)


def filled_store() -> DigestStore:
    begin = parse_utc("2026-03-01T00:00:00Z")
    digests = [
        ReportDigest(id=f"r{n}", reporter=("Google", "Yahoo")[n % 2], report_id=f"id{n}",
                     policy_domain=("example.com", "example.org", "example.net")[n % 3],
                     begin=begin + timedelta(days=n % 12), end=begin + timedelta(days=n % 12, hours=23),
                     records=(RecordDigest(f"192.0.2.{n % 7}", 1 + n % 5, "none", ("pass", "fail")[n % 2], "fail",
                                           "example.com", "", (), (), ()),), p="none")
        for n in range(40)
    ]
    store = DigestStore()
    store.put(digests)
    store.mark_listed([d.id for d in digests])
    return store


def test_the_headline_is_told_before_the_records_are_added_up(monkeypatch: pytest.MonkeyPatch) -> None:
    store = filled_store()
    order: list[str] = []
    sources = DigestFigures._sources

    def sources_read(self: DigestFigures) -> object:
        order.append("records")
        return sources(self)

    monkeypatch.setattr(DigestFigures, "_sources", sources_read)
    told: list[Headline] = []
    figures = store.figures(FIRST, LAST, 2, early=lambda headline: (told.append(headline), order.append("headline")))
    assert order == ["headline", "records"]
    assert told == [figures.headline]  # the same totals, domains (cut at the limit) and days
    assert figures.headline.overview.reports == 40 - sum(1 for n in range(40) if n % 12 > 9)
    assert len(figures.headline.domains) == 2 and len(figures.headline.daily) == 10
    # Remembered figures come whole at once: nothing is told early.
    assert store.figures(FIRST, LAST, 2, early=told.append) is figures and told == [figures.headline]


def test_the_figures_are_the_same_told_early_or_not() -> None:
    store, other = filled_store(), filled_store()
    assert store.figures(FIRST, LAST, 200, early=lambda _: None) == other.figures(FIRST, LAST, 200)
