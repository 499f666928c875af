"""Copies and reused ids: a report is counted once per copy that says the same, never swapped for one that does not.

The tester's forged copy of a real report (same reporter and report id, a day later, only passing mail) was kept
and the real one, with its failing authorised mail, left out as "the same report stored again": the advice then
said ready. Reports of another domain under the same id erased a domain's reports from the all-domains advice,
and a real report left out as a repeat of a copy then found implausible counted nowhere.
"""

from __future__ import annotations

import dataclasses
from datetime import date, timedelta

import pytest
from rich.console import Console

from jmapclient.dmarc.analytics import ReportDigest
from jmapclient.dmarc.insight.advice import Verdict
from jmapclient.dmarc.insight.screening import REPEATED, REUSED
from mailadmin.cli.advice_cmd import human_lines
from tests.support.insight_reports import aligned, both_ways, record, report
from tui.reports.insight_render import advice_block

# The domain's own sender (it uses SendGrid) whose mail fails DMARC: authorised, misaligned.
ESP_FAILING = dict(dkim_auth=(("sendgrid.net", "pass"),), spf_auth=(("bounces.sendgrid.net", "pass"),))


def real() -> list[ReportDigest]:
    """Two reporters, three days each; alpha's first report holds 40 failing messages of the domain's own sender."""
    # Each reporter sees the domain's server by another of its addresses: two reporters' reports that say the same
    # to the record are a copy under another name (test_replays_of_real_reports_count_once).
    reports = [report(aligned(ip, 200), day=date(2026, 3, d), reporter=who, report_id=f"{who}-{d}",
                      rid=f"{who}-{d}") for d in (2, 3, 4) for who, ip in (("alpha", "192.0.2.1"),
                                                                            ("beta", "192.0.2.2"))]
    reports[0] = report(aligned("192.0.2.1", 200), record("198.51.100.21", 40, **ESP_FAILING),  # type: ignore[arg-type]
                        day=date(2026, 3, 2), reporter="alpha", report_id="alpha-2", rid="alpha-2")
    return reports


def forged_copy(of: ReportDigest, **changes: object) -> ReportDigest:
    """``of`` under its reporter and report id, a day later, holding only passing mail (or ``changes``)."""
    fields: dict[str, object] = dict(day=date(2026, 3, 3), reporter=of.reporter, report_id=of.report_id,
                                     rid=f"forged-{of.id}")
    fields.update(changes)
    return report(aligned("192.0.2.1", 240), **fields)  # type: ignore[arg-type]


@pytest.mark.parametrize("forged_first", [True, False])
async def test_a_forged_copy_with_other_contents_cannot_push_the_real_report_out(forged_first: bool) -> None:
    honest = real()
    [advice] = await both_ways(honest)
    assert advice.verdict is Verdict.NOT_READY  # the 40 failing messages of the domain's own server
    copy = forged_copy(honest[0])
    [advice] = await both_ways([copy, *honest] if forged_first else [*honest, copy])
    assert advice.verdict is Verdict.NOT_READY, advice.summary
    assert advice.reports == 7 and advice.left_out == []
    assert [(r.reporter, r.report_id, r.why) for r in advice.reused] == [("alpha", "alpha-2", REUSED)]
    assert ("Counted although another report of the same reporter and report id says otherwise: 1 report"
            " (alpha report alpha-2).") in advice.summary
    # The one counted second is named: the forged one, or the real one (200 + 40) when the forged came first.
    assert advice.to_json()["reusedIds"] == [{"reporter": "alpha", "reportId": "alpha-2",
                                              "messages": 240, "why": REUSED}]


async def test_a_copy_that_says_the_same_is_counted_once_whatever_its_order_of_records() -> None:
    honest = real()
    first = honest[0]
    copy = dataclasses.replace(first, id="copy", records=tuple(reversed(first.records)))
    [advice] = await both_ways([*honest, copy])
    assert advice.reports == 6 and [r.why for r in advice.left_out] == [REPEATED] and advice.reused == []


async def test_the_same_id_for_another_domain_leaves_each_domain_its_reports() -> None:
    # The tester's ctl sets reused a1..a3 for four domains: the all-domains advice said "0 reports" for three.
    honest = real()
    elsewhere = [dataclasses.replace(r, id=f"org-{r.id}", policy_domain="example.org",
                                     records=tuple(dataclasses.replace(x, header_from="example.org")
                                                   for x in r.records)) for r in honest]
    every = await both_ways([*honest, *elsewhere])
    assert sorted((a.domain, a.reports, len(a.left_out), len(a.reused)) for a in every) == [
        ("example.com", 6, 0, 0), ("example.org", 6, 0, 0)]
    [alone] = await both_ways([*honest, *elsewhere], domain="example.com")
    assert alone.to_json() == next(a for a in every if a.domain == "example.com").to_json()


async def test_a_real_report_whose_copy_is_implausible_still_counts() -> None:
    # The forged copy claiming 9,000 was kept, then left out as implausible; the real one, left out as its
    # repeat, counted nowhere.
    honest = real()
    huge = forged_copy(honest[0], rid="huge")
    huge = dataclasses.replace(huge, records=(aligned("192.0.2.1", 9000),))
    [advice] = await both_ways([huge, *honest])
    assert advice.reports == 6 and advice.messages == 6 * 200 + 40
    assert [r.report_id for r in advice.left_out] == ["alpha-2"] and "over 20×" in advice.left_out[0].why
    assert [(r.report_id, r.messages) for r in advice.reused] == [("alpha-2", 240)]  # named: another says otherwise
    assert advice.verdict is Verdict.NOT_READY


async def test_a_domain_whose_every_report_is_left_out_says_its_policy_and_next_step_are_unknown() -> None:
    one = report(aligned("192.0.2.1", 2**40), day=date(2026, 3, 2), reporter="forger", p="reject")
    [advice] = await both_ways([one])
    assert advice.reports == 0 and advice.current is None
    console = Console(width=200, record=True, color_system=None)
    console.print(advice_block(advice))
    shown = console.export_text()
    assert "Next step: unknown (no report of the period counted)" in shown and "already p=reject" not in shown
    assert "published: unknown (no report of the period counted)" in human_lines(advice)


def replayed(of: ReportDigest, n: int) -> ReportDigest:
    """``of`` word for word under a new report id, its period moved by ``n`` seconds: a replay, as a forger sends one
    (moved by seconds, tester99's made "Too little data" "Ready for p=quarantine")."""
    moved = timedelta(seconds=n)
    return dataclasses.replace(of, id=f"replay-{n}-{of.id}", report_id=f"{of.report_id}-{n}", begin=of.begin + moved,
                               end=of.end + moved)


async def test_replays_of_real_reports_count_once() -> None:
    # Ten replays of two real reports under new report ids made "Too little data" "Ready for p=reject" (tester91).
    honest = [report(aligned("203.0.113.5", count), day=date(2026, 3, 2), reporter=who, report_id=rid, rid=rid,
                     p="quarantine") for who, rid, count in (("google.com", "1111", 40), ("Yahoo", "2222", 45))]
    [before] = await both_ways(honest)
    assert before.verdict is Verdict.TOO_LITTLE_DATA, before.summary
    replays = [replayed(real_one, n) for real_one in honest for n in range(5)]
    [after] = await both_ways(honest + replays)
    assert after.verdict is Verdict.TOO_LITTLE_DATA, after.summary
    assert (after.reports, after.messages) == (2, 85)
    assert "10 copies of a counted report under another id (google.com report 1111-0 says what google.com report" \
        " 1111 says;" in after.summary
    copies = [(entry["reporter"], entry["copyOf"]) for entry in after.to_json()["leftOut"]]
    assert sorted(original["reportId"] for _, original in copies) == ["1111"] * 5 + ["2222"] * 5
    assert {shown for shown, _ in copies} == {"google.com", "Yahoo"}


@pytest.mark.parametrize(("ip", "reporter"), [("203.0.113.6", "google.com"), ("203.0.113.5", "Yahoo")],
                         ids=["other records", "another reporter"])
async def test_reports_alike_but_for_their_records_or_reporter_both_count(ip: str, reporter: str) -> None:
    # A reporter's two reports of a day from other sources are two words; so are two reporters' that say the same
    # to the record (a small domain's one server, seen alike by both).
    one = report(aligned("203.0.113.5", 40), day=date(2026, 3, 2), reporter="google.com", rid="g")
    other = report(aligned(ip, 40), day=date(2026, 3, 2), reporter=reporter, rid="y")
    [advice] = await both_ways([one, other])
    assert advice.reports == 2 and not advice.left_out
