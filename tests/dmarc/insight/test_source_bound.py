"""A flood of forged sources is counted, not judged one by one, and holds the domain back.

Twenty forged mails of 116 KB gzipped each named 400,000 distinct sources of one failing message; judging
each took ``dmarc-advice`` 95 s and 2.6 GB, and the console's Sources tab 110 s and 2 GB (tester86). The
advice now judges the sources with the most messages, :data:`MAX_JUDGED_SOURCES` of a domain and
:data:`MAX_JUDGED_IN_ALL` in all; the others' mail is counted. The bounds are made small here.
"""

from __future__ import annotations

from datetime import date

import pytest

from jmapclient.dmarc.analytics import ReportDigest
from jmapclient.dmarc.attention import attention
from jmapclient.dmarc.digest_store import DigestStore
from jmapclient.dmarc.insight import judge
from jmapclient.dmarc.insight.advice import Verdict
from jmapclient.dmarc.insight.judge import source_bound
from mailadmin.cli.advice_cmd import human_lines
from tests.support.insight_reports import PERIOD, aligned, both_ways, record, report

FLOOD = 20


def reports(flood: int = FLOOD) -> list[ReportDigest]:
    """Two real reporters' reports of the domain's own mail, and one forged report of ``flood`` spoofing sources of
    one failing message each, beside one real spoofer of 5 messages."""
    return [report(aligned("192.0.2.1", 300), day=date(2026, 3, 2), reporter="google.com", rid="g"),
            report(aligned("192.0.2.2", 300), day=date(2026, 3, 3), reporter="yahoo.com", rid="y"),
            report(*(record(f"203.0.113.{n}", 1) for n in range(1, flood + 1)), record("198.51.100.7", 5),
                   day=date(2026, 3, 4), reporter="Flood", rid="f")]


@pytest.fixture
def small_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(judge, "MAX_JUDGED_SOURCES", 4)


async def test_within_the_bound_every_source_is_judged() -> None:
    [advice] = await both_ways(reports())
    assert advice.verdict is Verdict.READY, advice.summary  # spoofed mail is what the next step stops
    assert advice.unjudged is None and len(advice.sources) == FLOOD + 3


@pytest.mark.usefixtures("small_bound")
async def test_sources_past_the_bound_are_counted_not_judged_and_hold_the_domain_back() -> None:
    [advice] = await both_ways(reports())  # the command's way and the console's, held equal
    assert [s.ip for s in advice.sources] == ["192.0.2.1", "192.0.2.2", "198.51.100.7", "203.0.113.1"]
    assert advice.unjudged is not None
    assert (advice.unjudged.sources, advice.unjudged.messages, advice.unjudged.failing) == (FLOOD - 1,) * 3
    assert advice.messages == 600 + FLOOD + 5  # every report's mail is counted
    assert advice.verdict is Verdict.NOT_READY
    assert ("the reports name 23 sources, too many to judge each: the 4 with the most messages are judged one by one,"
            " the other 19 sources sent 19 messages (19 failing DMARC), counted but not judged") in advice.summary
    assert advice.to_json()["unjudged"] == {"sources": 19, "messages": 19, "failing": 19}
    lines = human_lines(advice)
    assert "… and 19 more sources, counted but not judged one by one: 19 messages, 19 failing DMARC" in lines
    assert any(line.split() == ["counted,", "not", "judged", "19", "19"] for line in lines), lines  # in the table


@pytest.mark.usefixtures("small_bound")
async def test_failing_mail_not_judged_needs_attention() -> None:
    [advice] = await both_ways(reports())
    said = [(item.kind, item.text) for item in attention([advice], None)]
    assert ("failing-unjudged", "failing mail not judged: 19 of 19 messages from 19 sources past the 4 judged one by"
            " one fail DMARC (a new source failing among them is not named)") in said


@pytest.mark.usefixtures("small_bound")
async def test_passing_mail_not_judged_needs_no_attention() -> None:
    passing = [*reports(0), report(*(aligned(f"203.0.113.{n}", 1) for n in range(1, 9)), day=date(2026, 3, 5),
                                   reporter="google.com", rid="g2")]
    [advice] = await both_ways(passing)
    assert advice.unjudged is not None and advice.unjudged.failing == 0
    assert not [item for item in attention([advice], None) if item.kind == "failing-unjudged"]


def test_the_bound_holds_over_all_domains(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(judge, "MAX_JUDGED_SOURCES", 3)
    monkeypatch.setattr(judge, "MAX_JUDGED_IN_ALL", 4)
    digests = [report(record("192.0.2.1", 50), record("192.0.2.2", 9), record("192.0.2.3", 8), record("192.0.2.4", 7),
                      rid="a"),
               report(record("198.51.100.1", 10, header_from="example.org"),
                      record("198.51.100.2", 1, header_from="example.org"), domain="example.org", rid="b")]
    store = DigestStore(None)
    store.put(digests)
    store.mark_listed([d.id for d in digests])
    try:
        bound = source_bound(store, *PERIOD)
        assert bound.ips == ("192.0.2.1", "198.51.100.1", "192.0.2.2", "192.0.2.3")  # most messages first
        assert bound.left == {"example.com": 1, "example.org": 1}  # 192.0.2.4 past 3 a domain; .2 past 4 in all
        assert source_bound(store, *PERIOD, "example.org").left == {}
    finally:
        store.close()
