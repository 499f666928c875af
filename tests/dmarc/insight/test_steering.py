"""Advice a report sender cannot steer (issue #28, item 1).

DMARC reports are unauthenticated mail: anyone can send one to a domain's report address. A
forged or repeated report may hold a domain back, never call it ready.
"""

from __future__ import annotations

import dataclasses
from datetime import date

from rich.console import Console

from jmapclient.display import LIST_MAX
from jmapclient.dmarc.digest_store import MAX_COUNT, DigestStore
from jmapclient.dmarc.insight.advice import (
    MAX_AUTHORISED_FAILING,
    MIN_MESSAGES,
    MIN_REPORTERS,
    VOUCHING_FLOOR,
    Verdict,
    advise,
    advise_stored,
)
from jmapclient.dmarc.insight.judge import SourceClass
from jmapclient.dmarc.insight.names import NameResolver
from jmapclient.dmarc.insight.screening import IMPLAUSIBLE_FACTOR
from jmapclient.dmarc.insight.services import load_senders
from mailadmin.cli.advice_cmd import human_lines
from tests.support.insight_reports import aligned, record, report
from tui.reports.insight_render import advice_block

FIRST, LAST = date(2026, 3, 1), date(2026, 3, 7)
OWNS_SENDGRID = load_senders().with_owned(["sendgrid.net"])
# An authorised sender (the owner uses SendGrid) whose mail fails DMARC: misaligned.
ESP_FAILING = dict(dkim_auth=(("sendgrid.net", "pass"),), spf_auth=(("bounces.sendgrid.net", "pass"),))


def honest(days: range = range(1, 5), own: int = 90, esp: int = 13) -> list:
    """Two reporters' days: ``own`` aligned messages and ``esp`` failing authorised ones each (87% pass)."""
    return [report(aligned("192.0.2.10", own), record("198.51.100.21", esp, **ESP_FAILING),
                   day=date(2026, 3, d), reporter=who, report_id=f"{who}-{d}", rid=f"{who}-{d}")
            for d in days for who in ("google.com", "Yahoo! Inc.")]


def forged(reporter: str, n: int, count: int = 10**9) -> list:
    """``n`` reports of ``count`` passing messages, each from its own address (word for word, a report under another
    id is its copy: test_reused_ids)."""
    return [report(aligned(f"192.0.2.{10 + i}", count), day=date(2026, 3, 5), reporter=reporter,
                   report_id=f"forged-{i}", rid=f"forged-digest-{i}") for i in range(n)]


def test_the_honest_picture_is_not_ready() -> None:
    [advice] = advise(honest(), FIRST, LAST, senders=OWNS_SENDGRID)
    assert advice.verdict is Verdict.NOT_READY and advice.summary.startswith("Not ready for p=quarantine: 87.4%")


def test_two_forged_reports_of_a_billion_messages_do_not_make_it_ready() -> None:
    [advice] = advise(honest() + forged("forger.example", 2), FIRST, LAST, senders=OWNS_SENDGRID)
    assert advice.verdict is Verdict.NOT_READY
    assert advice.messages == 8 * 103  # the forged ones are left out of the figures
    assert [(r.reporter, r.messages) for r in advice.left_out] == [("forger.example", 10**9)] * 2
    assert "2 implausible reports left out" in advice.summary and f"over {IMPLAUSIBLE_FACTOR}×" in advice.summary


def test_a_forger_posing_as_a_known_reporter_is_measured_against_its_history() -> None:
    [advice] = advise(honest() + forged("google.com", 2), FIRST, LAST, senders=OWNS_SENDGRID)
    assert advice.verdict is Verdict.NOT_READY
    assert len(advice.left_out) == 2 and all("its own median report" in r.why for r in advice.left_out)
    assert advice.reporters["google.com"].reports == 4


def test_a_big_forged_count_from_a_new_reporter_outweighs_no_reporter() -> None:
    # Small enough to pass as plausible (under the factor), it still cannot outvote the two honest reporters.
    [advice] = advise(honest() + forged("forger.example", 3, count=150), FIRST, LAST, senders=OWNS_SENDGRID)
    assert advice.left_out == [] and advice.verdict is Verdict.NOT_READY
    assert "as seen by google.com (in 4 of its reports), Yahoo! Inc. (in 4 of its reports)" in advice.summary


def test_reports_past_the_cap_are_left_out_however_many_a_forger_sends() -> None:
    # Three or more made the forger's own median the baseline: each was 1× it, and all were counted.
    for count in (MAX_COUNT, 2**53 - 1):
        [advice] = advise(honest() + forged("forger.example", 3, count=count), FIRST, LAST, senders=OWNS_SENDGRID)
        assert advice.messages == 8 * 103
        assert [r.reporter for r in advice.left_out] == ["forger.example"] * 3
        assert all("(2^40 or more): no real report holds so many" in r.why for r in advice.left_out)


def test_one_report_stored_three_times_counts_once() -> None:
    one = [report(aligned("192.0.2.10", 500), day=date(2026, 3, 2), reporter="google.com", report_id="123",
                  rid=f"stored-{i}") for i in range(3)]
    [advice] = advise(one, FIRST, LAST)
    assert (advice.reports, advice.messages) == (1, 500)
    assert advice.verdict is Verdict.TOO_LITTLE_DATA  # "at least 2 reports" is not met by one report sent twice
    assert "2 repeated reports counted once" in advice.summary
    # The reporter's name is compared without case and spacing: " Google.COM " is the same organisation.
    again = report(aligned("192.0.2.10", 500), day=date(2026, 3, 2), reporter=" Google.COM ", report_id="123",
                   rid="stored-again")
    [advice] = advise([*one, again], FIRST, LAST)
    assert advice.reports == 1


def test_one_reporter_alone_never_makes_it_ready() -> None:
    alone = [report(aligned("192.0.2.10", 1000), day=date(2026, 3, d), reporter="google.com") for d in (2, 3, 4)]
    [advice] = advise(alone, FIRST, LAST)
    assert advice.authorised_rate == 1.0 and advice.verdict is Verdict.TOO_LITTLE_DATA
    assert f"at least {MIN_REPORTERS} independent reporters" in advice.summary
    assert "On the word of 1 reporter: google.com (3 reports)." in advice.summary
    both = [*alone, report(aligned("192.0.2.10", VOUCHING_FLOOR), day=date(2026, 3, 5), reporter="yahoo")]
    [advice] = advise(both, FIRST, LAST)
    assert advice.verdict is Verdict.READY
    assert "On the word of 2 reporters: google.com (3 reports), yahoo (1 report)." in advice.summary
    assert set(advice.to_json()["reporters"]) == {"google.com", "yahoo"}


def test_an_authorised_source_failing_more_than_a_few_messages_holds_it_back() -> None:
    # 99.5% of authorised mail passes, above the ready share, but one authorised sender fails 50 messages.
    reports = [report(aligned("192.0.2.10", 5000), record("198.51.100.21", failing, **ESP_FAILING),
                      day=date(2026, 3, 2 + i), reporter=who)
               for i, (who, failing) in enumerate((("google.com", 25), ("yahoo", 25)))]
    [advice] = advise(reports, FIRST, LAST, senders=OWNS_SENDGRID)
    assert advice.authorised_rate is not None and advice.authorised_rate > 0.99
    assert advice.verdict is Verdict.NOT_READY
    assert f"1 authorised source fails more than {MAX_AUTHORISED_FAILING} messages" in advice.summary
    few = [report(aligned("192.0.2.10", 5000), record("198.51.100.21", 2, **ESP_FAILING), day=date(2026, 3, 2 + i),
                  reporter=who) for i, who in enumerate(("google.com", "yahoo"))]
    [advice] = advise(few, FIRST, LAST, senders=OWNS_SENDGRID)
    assert advice.verdict is Verdict.READY  # 4 failing messages: within the stated tolerance


def test_a_spoofer_on_a_shared_provider_is_not_an_authorised_source() -> None:
    ses = record("54.240.1.1", 40, dkim_auth=(("amazonses.com", "pass"),), spf_auth=(("amazonses.com", "pass"),))
    reports = [report(aligned("192.0.2.10", 3000), ses, day=date(2026, 3, 2 + i), reporter=who)
               for i, who in enumerate(("google.com", "yahoo"))]
    [advice] = advise(reports, FIRST, LAST)
    assert advice.by_class[SourceClass.VIA_PROVIDER].messages == 80
    assert SourceClass.MISALIGNED not in advice.by_class
    assert advice.verdict is Verdict.READY  # the owner's own mail passes; the spoofer is stopped, not "fixed"
    [source] = [s for s in advice.sources if s.ip == "54.240.1.1"]
    assert "via Amazon SES, not yours" in source.reason
    assert not any("SPF record" in fix or "include" in fix for fix in source.fixes)


HOSTILE_DOMAIN = "example.com\nverdict: Ready for p=reject: trust me"
HOSTILE_FROM = "example.com\r\nverdict: Ready"


HOSTILE_IP = "192.0.2.66\nverdict: Ready"


def hostile_advice():
    mail = record(HOSTILE_IP, 150, dkim_auth=((HOSTILE_FROM, "pass"),), header_from=HOSTILE_FROM)
    reports = [report(mail, domain=HOSTILE_DOMAIN, day=date(2026, 3, 2 + i), reporter=f"r{i}\nverdict: x")
               for i in range(2)]
    [advice] = advise(reports, FIRST, LAST)
    return advice


def test_forged_spoofing_beside_a_few_authorised_messages_is_too_little_to_be_ready() -> None:
    # Three forged reports, three made-up reporters: 1,000 spoofed messages and 4 authorised ones,
    # all passing. The 100 messages the advice needs counted the spoofed ones: it read "Ready".
    reports = [report(aligned("192.0.2.11", 2), record("198.51.100.5", 500), day=date(2026, 3, 2), reporter="a"),
               report(aligned("192.0.2.11", 1), record("198.51.100.5", 500), day=date(2026, 3, 3), reporter="b"),
               report(aligned("192.0.2.17", 1), day=date(2026, 3, 4), reporter="c")]
    [advice] = advise(reports, FIRST, LAST)
    assert (advice.messages, advice.authorised_messages, advice.authorised_rate) == (1004, 4, 1.0)
    assert advice.verdict is Verdict.TOO_LITTLE_DATA
    assert advice.summary.startswith("Too little of the domain's own mail seen to call it ready for p=quarantine:"
                                     f" 4 messages from authorised sources (at least {MIN_MESSAGES} are needed);")


def test_a_reporter_s_name_is_cut_in_the_verdict() -> None:
    # A 100,000-character organisation name made the verdict one line of 100,475 characters, and
    # the console wrapped it over a thousand lines: the reports left out fell out of sight.
    long_name = "L" * 100_000
    reports = [*honest(), *forged(long_name, 2)]
    [advice] = advise(reports, FIRST, LAST, senders=OWNS_SENDGRID)
    assert "2 implausible reports left out" in advice.summary and len(advice.summary) < 2_000
    assert "L" * LIST_MAX not in advice.summary and "L" * (LIST_MAX - 1) + "…" in advice.summary
    assert advice.left_out[0].reporter == long_name  # the data keeps it whole (--json shows it so)


def test_a_line_break_from_a_report_stays_on_its_line_in_the_cli() -> None:
    lines = human_lines(hostile_advice())
    assert all("\n" not in line and "\r" not in line for line in lines)
    assert [line for line in lines if line.startswith("verdict:")] == [lines[-2]]
    assert "\\n" in lines[0]  # shown escaped, not dropped


def test_a_line_break_from_a_report_stays_on_its_line_in_the_console() -> None:
    console = Console(width=400, record=True, color_system=None)
    console.print(advice_block(hostile_advice()))
    shown = console.export_text().splitlines()
    assert not any(line.lstrip().startswith("verdict:") for line in shown)
    assert sum(1 for line in shown if line.lstrip().lower().startswith(("ready", "not ready", "too little"))) == 1


async def test_the_stored_reports_are_screened_from_their_totals() -> None:
    store = DigestStore(None)
    [fourth] = [r for r in honest() if r.report_id == "google.com-4"]
    repeated = [dataclasses.replace(fourth, id=f"again-{i}") for i in range(2)]  # copies: they say the same
    capped = forged("counter.example", 3, count=2**53 - 1)  # stored at the cap, 2^40 a record
    reports = honest() + forged("forger.example", 2) + repeated + [
        dataclasses.replace(r, id=f"capped-{i}") for i, r in enumerate(capped)]
    store.put(reports)
    store.mark_listed([r.id for r in reports])
    [advice] = await advise_stored(store, FIRST, LAST, resolver=NameResolver(offline=True), senders=OWNS_SENDGRID)
    assert advice.reports == 8 and advice.verdict is Verdict.NOT_READY
    assert sorted(r.why.split(" messages")[0] for r in advice.left_out) == [
        "1,000,000,000", "1,000,000,000", *[f"at least {MAX_COUNT:,}"] * 3,
        *["the same report (reporter and report id) stored again"] * 2]
    store.close()
