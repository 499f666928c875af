"""``dmarc-advice --check`` and ``--since-last`` (issue #30): cron can alert, and "new" means since the last run."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import date
from pathlib import Path

import pytest

from jmapclient.dmarc.attention import DomainRun, PreviousRun, attention, read_previous, state_file
from jmapclient.dmarc.digest_store import store_file
from jmapclient.dmarc.insight.advice import DomainAdvice, Verdict
from jmapclient.dmarc.insight.judge import JudgedSource, SourceClass
from jmapclient.outcome import EXIT_ATTENTION, EXIT_OK
from mailadmin.cli import advice_cmd
from mailadmin.main import main
from server_stub.demo_data import DEMO_NOW
from server_stub.runner import StubServer
from tests.support.dmarc_xml import feedback, record


@pytest.fixture(scope="module")
def server() -> Iterator[StubServer]:
    with StubServer(profile="spec", reports=40) as running:
        yield running


@pytest.fixture(autouse=True)
def pinned(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, server: StubServer) -> None:
    monkeypatch.setenv("MAILADMIN_TOKEN", server.admin_token)
    monkeypatch.setattr(advice_cmd, "today", lambda: DEMO_NOW.date())
    monkeypatch.setenv("MAILADMIN_DATA", str(tmp_path / "data"))
    monkeypatch.delenv("MAILADMIN_URL", raising=False)


def run(server: StubServer, capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["dmarc-advice", "--offline", *argv, f"--url={server.base_url}"])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_check_prints_only_what_needs_attention_and_exits_6(server: StubServer, capsys: pytest.CaptureFixture[str],
                                                            monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    code, out, err = run(server, capsys, "--check")
    assert code == EXIT_ATTENTION
    lines = out.splitlines()
    assert lines and all(": new source failing: " in line or ": authorised source failing: " in line
                         for line in lines), lines
    assert "verdict:" not in out and "published:" not in out  # no report, only the findings
    assert "marked new" not in err  # cron mails whatever is printed: no note on a run that found something
    # Only the period's reports are cached, so "new" is since the previous run: a first run elsewhere.
    monkeypatch.setenv("MAILADMIN_DATA", str(tmp_path / "another"))
    code, out, _ = run(server, capsys, "--check", "--json")
    kinds = {json.loads(line)["kind"] for line in out.splitlines()}
    assert kinds <= {"new-failing-source", "authorised-source-failing"} and "new-failing-source" in kinds


def test_since_last_calls_new_only_what_the_previous_run_did_not_see(server: StubServer,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    assert run(server, capsys, "--check", "--since-last")[0] == EXIT_ATTENTION  # the first run: all is new
    assert read_previous(state_file(store_file(server.base_url))) is not None
    code, out, _ = run(server, capsys, "--check", "--since-last")
    assert "new source failing" not in out
    code, out, _ = run(server, capsys, "--json", "--since-last")
    assert code == EXIT_OK
    assert all(not source["new"] for line in out.splitlines() for source in json.loads(line)["sources"])


def test_a_period_longer_than_the_history_calls_no_source_new_run_after_run(server: StubServer,
                                                                            capsys: pytest.CaptureFixture[str]) -> None:
    # Every report held, none older than the period: "new" has nothing to be told from. A daily check must not
    # call each failing source new every day; the previous run says what is new.
    assert run(server, capsys, "--check", "--days", "3650")[0] == EXIT_ATTENTION  # the first run: all is new
    _, out, _ = run(server, capsys, "--check", "--days", "3650")
    assert "new source failing" not in out
    _, out, err = run(server, capsys, "--json", "--days", "3650")
    sources = [source for line in out.splitlines() for source in json.loads(line)["sources"]]
    assert sources and all(source["new"] is None for source in sources)
    assert "no source is marked new" in err


def imported_one(server: StubServer, capsys: pytest.CaptureFixture[str], path: Path, domain: str, ip: str) -> None:
    """A one-record report for ``domain`` from ``ip``, three days old, written to ``path`` and imported."""
    day = int(DEMO_NOW.timestamp()) - 3 * 86400
    path.write_bytes(feedback(records=record(ip=ip), domain=f"<domain>{domain}</domain>",
                              report_id=f"<report_id>{path.stem}-1</report_id>",
                              date_range=f"<date_range><begin>{day}</begin><end>{day + 86399}</end></date_range>"))
    assert main(["import-dmarc", str(path), f"--url={server.base_url}"]) == EXIT_OK
    capsys.readouterr()


def test_a_previous_run_in_a_folder_others_can_write_is_neither_read_nor_recorded(
        server: StubServer, capsys: pytest.CaptureFixture[str]) -> None:
    """Another user's "previous run" in a cache folder others can write silenced ``--check --since-last`` (exit 0
    for sources failing that no run of the person's saw): it is not read, and this run does not record itself there."""
    assert run(server, capsys, "--check", "--since-last")[0] == EXIT_ATTENTION
    last_run = state_file(store_file(server.base_url))
    planted = last_run.read_bytes()  # every source "seen": what a planted record says
    last_run.parent.chmod(0o777)
    code, out, err = run(server, capsys, "--check", "--since-last")
    assert code == EXIT_ATTENTION and "new source failing" in out
    [warning] = [line for line in err.splitlines() if "previous run" in line]
    assert "neither read nor recorded" in warning and "--since-last has no previous run it can trust" in warning
    assert "can be written by group or others" in warning
    assert last_run.read_bytes() == planted


def test_a_local_source_says_so_in_the_text_report(server: StubServer, capsys: pytest.CaptureFixture[str],
                                                   tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Never looked up, so never named: a blank name cell would read as a lookup that found nothing.
    imported_one(server, capsys, tmp_path / "local.xml", "local-source.example", "10.0.0.5")
    _, out, _ = run(server, capsys, "--domain", "local-source.example")
    [row] = [line for line in out.splitlines() if line.startswith("10.0.0.5")]
    assert "local address" in row


def test_a_look_alike_domain_is_headed_by_its_a_label(server: StubServer, capsys: pytest.CaptureFixture[str],
                                                       tmp_path: Path) -> None:
    # A report for victіm.example (a Cyrillic і) had a verdict of its own, headed as if the domain's (the tester's).
    imported_one(server, capsys, tmp_path / "look-alike.xml", "victіm.example", "192.0.2.77")
    _, out, _ = run(server, capsys)
    assert "xn--victm-q2e.example (victіm.example)  " in out
    assert not any(line.startswith("victіm.example") for line in out.splitlines())


def test_check_is_silent_and_0_when_nothing_needs_attention(server: StubServer,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    assert run(server, capsys, "--check", "--domain", "nothing-here.example") == (EXIT_OK, "", "")


def test_a_report_dated_in_year_9999_is_in_no_period_and_ends_no_run(server: StubServer,
                                                                     capsys: pytest.CaptureFixture[str],
                                                                     tmp_path: Path) -> None:
    """A report is unauthenticated mail: one whose period began 9999-12-31 imported fine, then every run ended in
    an OverflowError traceback (exit 1) reading the day it counts on (the tester's). It is in the future: in no
    period, the other domains judged, ``--check`` exiting as a first run does (attention: every source is new)."""
    report = tmp_path / "year-9999.xml"
    report.write_bytes(feedback(domain="<domain>far-future.example</domain>", report_id="<report_id>y9999</report_id>",
                                date_range="<date_range><begin>253402214400</begin><end>253402300799</end></date_range>"))
    assert main(["import-dmarc", str(report), f"--url={server.base_url}"]) == EXIT_OK
    capsys.readouterr()
    code, out, err = run(server, capsys, "--check")
    assert code == EXIT_ATTENTION and out and "far-future.example" not in out
    assert "could not be read" not in err  # not taken for an unreadable report either
    code, out, _ = run(server, capsys, "--json")
    domains = {json.loads(line)["domain"] for line in out.splitlines()}
    assert code == EXIT_OK and domains and "far-future.example" not in domains
    code, out, _ = run(server, capsys)
    assert code == EXIT_OK and "verdict:" in out and "far-future.example" not in out


def _advice(verdict: Verdict, *sources: JudgedSource) -> DomainAdvice:
    return DomainAdvice("example.com", date(2026, 1, 1), date(2026, 1, 30), verdict=verdict, summary="why",
                        sources=list(sources))


def _source(ip: str, *, new: bool, failing: int, klass: SourceClass = SourceClass.ALIGNED) -> JudgedSource:
    return JudgedSource(ip, "example.com", klass=klass, messages=10, passed=10 - failing, new=new,
                        by_class={klass: 10}, failing_by_class={klass: failing} if failing else {})


def test_what_counts_as_attention() -> None:
    quiet = _advice(Verdict.READY, _source("192.0.2.1", new=False, failing=0),
                    _source("192.0.2.2", new=True, failing=0),
                    _source("192.0.2.3", new=False, failing=4, klass=SourceClass.UNKNOWN))
    assert attention([quiet], None) == []
    loud = _advice(Verdict.NOT_READY, _source("192.0.2.4", new=True, failing=1),
                   _source("192.0.2.5", new=False, failing=2))
    before = PreviousRun("", {"example.com": DomainRun("ready", frozenset())})
    assert [a.kind for a in attention([loud], before)] == [
        "new-failing-source", "authorised-source-failing", "verdict-moved-back"]
    assert attention([loud], before)[1].text == (
        "authorised source failing: 192.0.2.5: 2 of 10 authorised messages fail DMARC")
    forward = PreviousRun("", {"example.com": DomainRun("not ready", frozenset())})
    assert attention([_advice(Verdict.READY)], forward) == []
    assert attention([_advice(Verdict.TOO_LITTLE_DATA)], before) == []  # no position: no move


def test_a_failing_source_seen_before_that_grew_tenfold_needs_attention() -> None:
    spoofer = JudgedSource("192.0.2.9", "example.com", klass=SourceClass.UNKNOWN, messages=500, passed=0, new=False,
                           failing_by_class={SourceClass.UNKNOWN: 500})
    advice = _advice(Verdict.NOT_READY, spoofer)

    def seen(failing: dict[str, int] | None) -> PreviousRun:
        return PreviousRun("", {"example.com": DomainRun("not ready", frozenset({"192.0.2.9"}), failing)})

    [found] = attention([advice], seen({"192.0.2.9": 1}))
    assert found.kind == "failing-source-grew"
    assert found.text == ("failing source grew: 192.0.2.9: 500 of 500 messages fail DMARC (1 failed at the previous"
                          " run)")
    assert attention([advice], seen({"192.0.2.9": 60})) == []  # under ten times what it was
    assert [a.kind for a in attention([advice], seen({}))] == ["failing-source-grew"]  # it failed nothing then
    assert attention([advice], seen(None)) == []  # a run that did not record it: nothing to compare


def _import_failing(server: StubServer, folder: Path, ip: str, name: str, reporter: str, count: str, *,
                    days_ago: int) -> None:
    """A one-day report of ``count`` messages from ``ip`` failing DMARC, ``days_ago`` back, imported."""
    day = int(DEMO_NOW.timestamp()) - days_ago * 86400
    path = folder / f"{name}.xml"
    path.write_bytes(feedback(
        records=record(ip=ip, count=count, dkim="fail", spf="fail"),
        org_name=f"<org_name>{reporter}</org_name>", report_id=f"<report_id>{name}</report_id>",
        date_range=f"<date_range><begin>{day}</begin><end>{day + 86399}</end></date_range>"))
    assert main(["import-dmarc", str(path), f"--url={server.base_url}"]) == EXIT_OK


def test_check_alerts_on_a_campaign_from_a_source_a_forged_report_seeded(
        server: StubServer, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    # One forged report of 1 failing message from 203.0.113.66 ("new source failing" once), then another reporter's
    # 500 failing messages from it: the source was no longer new, not authorised, and --check said nothing.
    with StubServer(profile="spec", reports=0, admin_token=server.admin_token) as fresh:
        _import_failing(fresh, tmp_path, "203.0.113.66", "seed", "tiny-isp.example", "1", days_ago=20)
        capsys.readouterr()
        code, out, _ = run(fresh, capsys, "--check", "--days", "60")
        assert code == EXIT_ATTENTION and "new source failing: 203.0.113.66: 1 of 1" in out
        _import_failing(fresh, tmp_path, "203.0.113.66", "campaign", "google.com", "500", days_ago=5)
        capsys.readouterr()
        code, out, _ = run(fresh, capsys, "--check", "--days", "60")
        assert code == EXIT_ATTENTION, out
        assert ("failing source grew: 203.0.113.66: 501 of 501 messages fail DMARC (1 failed at the previous run)"
                in out)


def test_a_source_barely_seen_before_grows_at_ten_times_alone_and_the_reports_before_the_period_count() -> None:
    # A back-dated one-message "seed" report made a source known: a campaign of 99 stayed under the 100 more that
    # "grew" asked for, and on a first --check (no run before) nothing compared it at all (tester81).
    campaign = JudgedSource("203.0.113.88", "example.com", klass=SourceClass.UNKNOWN, messages=99, passed=0, new=False,
                            failing_by_class={SourceClass.UNKNOWN: 99}, before=1)
    [found] = attention([_advice(Verdict.NOT_READY, campaign)], None)
    assert found.kind == "failing-source-grew"
    assert found.text == ("failing source grew: 203.0.113.88: 99 of 99 messages fail DMARC (1 message failed in the"
                          " reports before the period)")
    known = JudgedSource("203.0.113.89", "example.com", klass=SourceClass.UNKNOWN, messages=99, passed=0, new=False,
                         failing_by_class={SourceClass.UNKNOWN: 99}, before=40)
    assert attention([_advice(Verdict.NOT_READY, known)], None) == []  # seen at 40: 99 is not ten times it


def test_check_alerts_on_a_campaign_from_a_source_seeded_by_a_report_before_the_period(
        server: StubServer, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    with StubServer(profile="spec", reports=0, admin_token=server.admin_token) as fresh:
        _import_failing(fresh, tmp_path, "203.0.113.88", "seed", "tiny-isp.example", "1", days_ago=45)
        _import_failing(fresh, tmp_path, "203.0.113.88", "campaign", "outlook.com", "99", days_ago=2)
        capsys.readouterr()
        run(fresh, capsys, "--check", "--days", "60")  # the history held: the seed, 45 days back
        code, out, _ = run(fresh, capsys, "--check", "--days", "30")
        assert code == EXIT_ATTENTION, out
        assert "failing source grew: 203.0.113.88: 99 of 99 messages fail DMARC" in out, out


def test_a_seed_of_passing_messages_before_the_period_hides_no_failing_campaign(
        server: StubServer, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    # One forged report of 5,000 passing messages from the source, 41 days back, hid 49,999 failing ones in the period:
    # the reports before counted every message, not the failing ones (tester84).
    with StubServer(profile="spec", reports=0, admin_token=server.admin_token) as fresh:
        day = int(DEMO_NOW.timestamp()) - 41 * 86400
        seed = tmp_path / "seed.xml"
        seed.write_bytes(feedback(records=record(ip="203.0.113.78", count="5000", dkim="pass", spf="pass"),
                                  org_name="<org_name>made-up.example</org_name>",
                                  report_id="<report_id>seed</report_id>",
                                  date_range=f"<date_range><begin>{day}</begin><end>{day + 86399}</end></date_range>"))
        assert main(["import-dmarc", str(seed), f"--url={fresh.base_url}"]) == EXIT_OK
        _import_failing(fresh, tmp_path, "203.0.113.78", "campaign", "outlook.com", "5000", days_ago=2)
        capsys.readouterr()
        run(fresh, capsys, "--check", "--days", "60")  # the history held
        code, out, _ = run(fresh, capsys, "--check", "--days", "30")
        assert code == EXIT_ATTENTION, out
        assert ("failing source grew: 203.0.113.78: 5,000 of 5,000 messages fail DMARC (0 messages failed in the"
                " reports before the period)") in out, out
