"""Analytics over small hand-made reports; every expected figure is worked out by hand.

The figures are aggregated by the digest store (SQL), fed here directly with digests.
"""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest

from jmapclient.dmarc.analytics import Hint, ReportDigest, classify, digest_record, digest_report, format_rate
from jmapclient.dmarc.digest_store import DigestStore, Figures


def rec(ip: str, count: int, dkim: str, spf: str, header: str = "example.com", **extra: Any) -> dict[str, Any]:
    return {
        "sourceIp": ip, "count": count, "evaluatedDisposition": "none", "evaluatedDkim": dkim,
        "evaluatedSpf": spf, "headerFrom": header, "envelopeFrom": header, **extra,
    }


def report(rid: str, org: str, domain: str, begin: str, end: str, *records: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": rid,
        "report": {
            "orgName": org, "reportId": f"r-{rid}", "policyDomain": domain,
            "dateRangeBegin": begin, "dateRangeEnd": end,
            "records": {str(i): r for i, r in enumerate(records)},
        },
    }


# Report A (example.com, 1 March): 10 pass (DKIM), 5 fail both, 5 pass (SPF only)  -> 15/20 pass
# Report B (example.com, 2 March): 30 pass, 10 fail                                  -> 30/40 pass
# Report C (other.org, 2 March, from another reporter): 3 fail                        -> 0/3 pass
A = report("a", "Google", "example.com", "2026-03-01T00:00:00Z", "2026-03-01T23:59:59Z",
           rec("192.0.2.1", 10, "pass", "fail", dkimResults={"0": {"domain": "example.com", "result": "pass"}},
               spfResults={"0": {"domain": "example.com", "result": "fail"}}),
           rec("198.51.100.7", 5, "fail", "fail"),
           rec("192.0.2.2", 5, "fail", "pass"))
B = report("b", "Yahoo", "Example.COM", "2026-03-02T00:00:00Z", "2026-03-03T00:00:00Z",
           rec("192.0.2.1", 30, "pass", "pass"),
           rec("198.51.100.7", 10, "fail", "fail", header="spoof.example.com"))
C = report("c", "Microsoft", "other.org", "2026-03-02T00:00:00Z", "2026-03-02T23:59:59Z",
           rec("203.0.113.9", 3, "fail", "fail", header="other.org"))
DIGESTS = [digest_report(x) for x in (A, B, C)]
WHOLE = (date(2026, 2, 28), date(2026, 3, 3))


def figures(digests: list[ReportDigest], first: date = WHOLE[0], last: date = WHOLE[1], limit: int = 200) -> Figures:
    store = DigestStore()
    store.put(digests)
    store.mark_listed([d.id for d in digests])
    return store.figures(first, last, limit)


def test_domain_rates_are_weighted_by_messages_not_reports() -> None:
    rates = figures(DIGESTS).domains
    assert [(d.domain, d.messages, d.passed, d.reports) for d in rates] == [
        ("example.com", 60, 45, 2),  # 20 + 40 messages; 15 + 30 passed; domain case-folded
        ("other.org", 3, 0, 1),
    ]
    assert rates[0].rate == pytest.approx(0.75)
    assert format_rate(rates[0].rate) == "75.0%"
    assert rates[1].rate == 0


def test_weighting_differs_from_a_mean_of_report_rates() -> None:
    day = ("2026-03-01T00:00:00Z", "2026-03-01T23:59:59Z")
    small = report("s", "X", "d.test", *day, rec("192.0.2.9", 1, "fail", "fail"))
    big = report("g", "X", "d.test", *day, rec("192.0.2.9", 99, "pass", "pass"))
    (rate,) = figures([digest_report(small), digest_report(big)], date(2026, 3, 1), date(2026, 3, 1)).domains
    assert rate.rate == pytest.approx(0.99)  # 99 / 100, not (0 + 1) / 2


def test_sources_aggregate_across_reports() -> None:
    found = figures(DIGESTS).sources
    by_ip = {s.source_ip: s for s in found}
    first = found[0]
    assert first.source_ip == "192.0.2.1"  # 40 messages, the most
    assert (first.messages, first.passed, first.failed) == (40, 40, 0)
    assert first.reporters == {"Google", "Yahoo"}
    spoofer = by_ip["198.51.100.7"]
    assert (spoofer.messages, spoofer.passed, spoofer.failed) == (15, 0, 15)
    assert spoofer.domains == {"example.com", "spoof.example.com"}
    assert spoofer.main_hint is Hint.SPOOFING
    # 10 of 192.0.2.1's messages had DKIM pass + SPF fail: forwarded, even though they pass DMARC.
    assert first.hints == {Hint.FORWARDED: 10}


def test_daily_series_is_zero_filled_and_uses_the_period_midpoint() -> None:
    series = figures(DIGESTS).daily
    assert [(d.day.isoformat(), d.messages, d.passed) for d in series] == [
        ("2026-02-28", 0, 0),
        ("2026-03-01", 20, 15),
        # B runs from 2 March 00:00 to 3 March 00:00: its midpoint is on 2 March.
        ("2026-03-02", 43, 30),
        ("2026-03-03", 0, 0),
    ]
    assert series[0].rate is None
    assert series[2].rate == pytest.approx(30 / 43)
    assert figures(DIGESTS, date(2026, 3, 2), date(2026, 3, 1)).daily == []


def test_failing_records_only_and_busiest_first() -> None:
    failing = figures(DIGESTS).failing
    assert [(f.report.id, f.record.source_ip, f.record.count) for f in failing] == [
        ("b", "198.51.100.7", 10),
        ("a", "198.51.100.7", 5),
        ("c", "203.0.113.9", 3),
    ]
    assert all(f.hint is Hint.SPOOFING for f in failing)


@pytest.mark.parametrize(
    ("record", "expected"),
    [
        (rec("192.0.2.1", 1, "pass", "pass"), None),
        (rec("192.0.2.1", 1, "pass", "fail"), Hint.FORWARDED),
        # DKIM verified for the sender but not aligned, SPF failed: forwarded mail that failed.
        (rec("192.0.2.1", 1, "fail", "fail", dkimResults={"0": {"domain": "example.com", "result": "pass"}}),
         Hint.FORWARDED),
        (rec("192.0.2.1", 1, "fail", "fail", policyOverrideReasons={"0": {"overrideType": "Forwarded"}}),
         Hint.FORWARDED),
        (rec("192.0.2.1", 1, "fail", "fail", policyOverrideReasons={"0": {"overrideType": "MailingList"}}),
         Hint.MAILING_LIST),
        # The list re-signed with its own domain and sends from its own envelope (SPF passes, unaligned).
        (rec("192.0.2.1", 1, "fail", "fail", dkimResults={"0": {"domain": "lists.test", "result": "pass"}},
             spfResults={"0": {"domain": "lists.test", "result": "pass"}}), Hint.MAILING_LIST),
        (rec("192.0.2.1", 1, "fail", "fail", spfResults={"0": {"domain": "example.com", "result": "softFail"}}),
         Hint.SPOOFING),
        (rec("192.0.2.1", 1, "fail", "pass"), None),
    ],
)
def test_classification_hints(record: dict[str, Any], expected: Hint | None) -> None:
    assert classify(digest_record(record)) is expected


def test_digest_round_trips_through_the_store() -> None:
    store = DigestStore()
    store.put(DIGESTS)
    for item in DIGESTS:
        assert store.get(item.id) == item
    store.mark_listed(["a", "b"])
    assert list(store.digests(*WHOLE)) == DIGESTS[:2]  # only what the server listed


def test_overview_and_empty_input() -> None:
    total = figures(DIGESTS).overview
    assert (total.reports, total.messages, total.passed) == (3, 63, 45)
    empty = figures([])
    assert empty.overview.rate is None
    assert format_rate(None) == "–"
    assert empty.domains == [] and empty.sources == [] and empty.failing == []
    assert [d.messages for d in empty.daily] == [0, 0, 0, 0]


def test_the_period_and_the_limit_cut_the_figures() -> None:
    only_first = figures(DIGESTS, date(2026, 3, 1), date(2026, 3, 1))
    assert (only_first.overview.reports, only_first.overview.messages) == (1, 20)
    assert [d.domain for d in only_first.domains] == ["example.com"]
    cut = figures(DIGESTS, limit=1)
    assert [s.source_ip for s in cut.sources] == ["192.0.2.1"]
    assert [f.record.count for f in cut.failing] == [10]
    assert cut.overview.messages == 63  # the limit cuts lists, never the totals
