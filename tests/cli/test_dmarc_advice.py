"""``mailadmin dmarc-advice`` against the stub in both profiles: figures checked against the raw records."""

from __future__ import annotations

import json
import stat
import subprocess
import sys
from collections import defaultdict
from collections.abc import Iterator
from datetime import date, timedelta
from pathlib import Path

import pytest

from jmapclient.config import Config
from jmapclient.dmarc.insight.names import NameCache, NameResolver
from jmapclient.outcome import EXIT_LOGIN
from mailadmin.cli import advice_cmd
from mailadmin.main import main
from server_stub.demo_data import DEMO_NOW
from server_stub.runner import StubServer
from tests.support.env_login import token_in_env
from tests.support.fake_dns import FakeResolver

ROOT = Path(__file__).resolve().parents[2]
REPORTS = 40
TODAY = DEMO_NOW.date()
HOSTILE_PTR = "mx\x1b]0;pwned\x07.evil\u202e.example"


@pytest.fixture(params=["spec", "stalwart"])
def server(request: pytest.FixtureRequest) -> Iterator[StubServer]:
    with StubServer(profile=request.param, reports=REPORTS) as running:
        yield running


@pytest.fixture(autouse=True)
def pinned(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> FakeResolver:
    """The period ends on the demo data's day; names come from a fake resolver; data files go to tmp."""
    monkeypatch.setattr(advice_cmd, "today", lambda: TODAY)
    monkeypatch.setenv("MAILADMIN_DATA", str(tmp_path / "data"))
    fake = FakeResolver(ptr={"192.0.2.10": ["out1.example.com"], "198.51.100.21": ["o1.ptr42.sendgrid.net"],
                             "192.0.2.11": [HOSTILE_PTR]},
                        addresses={"out1.example.com": ["192.0.2.10"], "o1.ptr42.sendgrid.net": ["198.51.100.21"],
                                   HOSTILE_PTR.lower(): ["192.0.2.11"]})

    def resolver(offline: bool) -> NameResolver:
        return NameResolver(fake, NameCache(), offline=offline)

    monkeypatch.setattr(advice_cmd, "name_resolver", resolver)
    return fake


def run(server: StubServer, capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["dmarc-advice", *argv, f"--url={server.base_url}", f"--token={server.admin_token}"])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def by_hand(server: StubServer, capsys: pytest.CaptureFixture[str], days: int) -> dict[str, tuple[int, int, int]]:
    """(reports, messages, passing messages) per policy domain, added up from `query` output."""
    code = main(["query", "DmarcExternalReport", "--json", f"--url={server.base_url}",
                 f"--token={server.admin_token}"])
    assert code == 0
    first = TODAY - timedelta(days=days - 1)
    totals: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    for line in capsys.readouterr().out.splitlines():
        report = json.loads(line)["report"]
        if not first <= date.fromisoformat(report["dateRangeBegin"][:10]) <= TODAY:
            continue
        entry = totals[report["policyDomain"]]
        entry[0] += 1
        for record in report["records"].values() if isinstance(report["records"], dict) else report["records"]:
            entry[1] += record["count"]
            if "pass" in (record["evaluatedDkim"], record["evaluatedSpf"]):
                entry[2] += record["count"]
    return {domain: (a, b, c) for domain, (a, b, c) in totals.items()}


@pytest.mark.parametrize("days", [30, 60])
def test_json_figures_match_the_records(server, capsys, pinned, days) -> None:
    code, out, err = run(server, capsys, "--offline", "--json", f"--days={days}")
    assert code == 0, err
    lines = [json.loads(line) for line in out.splitlines()]
    expected = by_hand(server, capsys, days)
    assert {a["domain"]: (a["reports"], a["messages"], a["passed"]) for a in lines} == expected
    for advice in lines:
        assert advice["affected"] == advice["messages"] - advice["passed"]
        assert sum(c["messages"] for c in advice["byClass"].values()) == advice["messages"]
        assert sum(c["failing"] for c in advice["byClass"].values()) == advice["affected"]
        assert sum(s["messages"] for s in advice["sources"]) == advice["messages"]
        assert advice["verdict"] in {"ready", "not ready", "too little data", "enforced"}
        assert advice["summary"] and advice["policy"]["p"] in {"none", "quarantine", "reject"}
        assert {s["nameStatus"] for s in advice["sources"]} == {"offline"}
    assert pinned.calls == []  # offline: not one lookup


def test_human_output_has_a_table_and_a_verdict_per_domain(server, capsys, pinned) -> None:
    code, out, err = run(server, capsys, "--offline")
    assert code == 0, err
    domains = by_hand(server, capsys, 30)
    assert out.count("verdict: ") == len(domains) == out.count("published: p=")
    for domain, (reports, messages, passed) in domains.items():
        counted = f"{reports} report{'' if reports == 1 else 's'}, {messages:,} messages"
        assert f"{domain}  {TODAY - timedelta(days=29)} .. {TODAY}: {counted}, {passed:,} pass DMARC" in out
    assert "authorised, aligned" in out and "SendGrid" in out  # named offline by the domain its DKIM passed for
    assert "Already at p=reject" in out  # example.com publishes reject in the demo
    assert pinned.calls == []


def test_names_are_looked_up_cached_and_shown_safely(server, capsys, pinned, tmp_path) -> None:
    code, out, err = run(server, capsys, "--domain=example.com")
    assert code == 0, err
    assert "out1.example.com" in out and "o1.ptr42.sendgrid.net" in out
    assert "\x1b" not in out and "\x07" not in out and "\u202e" not in out
    assert "\\u001b]0;pwned\\u0007" in out  # the hostile name is shown escaped, as every outside text
    assert pinned.calls  # looked up this time
    cache = tmp_path / "data" / "dmarc-names.json"
    assert stat.S_IMODE(cache.stat().st_mode) == 0o600
    pinned.calls.clear()
    code, out_again, _ = run(server, capsys, "--domain=example.com", "--json")
    assert code == 0 and pinned.calls == []  # every answer, "no name" too, came from the cache
    [advice] = [json.loads(line) for line in out_again.splitlines()]
    named = {s["ip"]: (s["name"], s["service"]) for s in advice["sources"]}
    assert named["192.0.2.10"] == ("out1.example.com", None)
    assert named["198.51.100.21"] == ("o1.ptr42.sendgrid.net", "SendGrid")


def test_one_domain_and_an_empty_answer(server, capsys) -> None:
    code, out, err = run(server, capsys, "--offline", "--json", "--domain=EXAMPLE.org")
    assert code == 0 and {json.loads(line)["domain"] for line in out.splitlines()} == {"example.org"}
    code, out, err = run(server, capsys, "--offline", "--domain=nobody.example")
    assert code == 0 and out == "" and "no DMARC reports for nobody.example" in err


@pytest.mark.parametrize("days", ["0", "-3", "99999"])
def test_a_bad_period_is_a_usage_error(server, capsys, days) -> None:
    code, _, err = run(server, capsys, "--offline", f"--days={days}")
    assert code == 2 and "--days must be between 1 and" in err


def test_a_refused_token_is_one_error_line(server, capsys) -> None:
    with token_in_env("wrong-token"):  # the careful way: stderr then holds only the error
        code = main(["dmarc-advice", "--offline", f"--url={server.base_url}"])
    err = capsys.readouterr().err
    assert code == EXIT_LOGIN and err.startswith("error: ") and "Traceback" not in err and "wrong-token" not in err


def test_offline_never_loads_dnspython(tmp_path) -> None:
    with StubServer(profile="spec", reports=5) as server:
        code = (
            "import contextlib, io, sys\n"
            "from mailadmin.main import main\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            f"    assert main(['dmarc-advice', '--offline', '--url={server.base_url}',"
            f" '--token={server.admin_token}', '--days=3660']) == 0\n"
            "print('dns' in sys.modules, 'publicsuffixlist' in sys.modules)\n"
        )
        done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60,
                              env={"PATH": "", "MAILADMIN_DATA": str(tmp_path), "HOME": str(tmp_path),
                                   "MAILADMIN_CONFIG": str(tmp_path / "c.toml")})
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False", "True"]  # the suffix list is needed offline too, DNS is not


def test_runs_keep_the_servers_store_and_see_arrivals_and_deletions(server, capsys, monkeypatch, tmp_path) -> None:
    import random

    from jmapclient.dmarc.digest_store import DigestStore
    from jmapclient.models.objects import DMARC_EXTERNAL_REPORT
    from server_stub.demo_data import add_demo_reports

    synced = []
    real_sync = DigestStore.sync

    async def spied(self, *args, **kwargs):
        synced.append(result := await real_sync(self, *args, **kwargs))
        return result

    monkeypatch.setattr(DigestStore, "sync", spied)

    def reports_counted() -> int:
        code, out, err = run(server, capsys, "--offline", "--json", "--days=3660")
        assert code == 0, err
        return sum(json.loads(line)["reports"] for line in out.splitlines())

    assert reports_counted() == REPORTS and synced[-1].fetched == REPORTS
    [kept] = (tmp_path / "data" / "dmarc-digests").glob("*.sqlite")  # the console's file for this server
    assert stat.S_IMODE(kept.stat().st_mode) == 0o600
    assert reports_counted() == REPORTS and synced[-1].fetched == 0  # the second run fetches nothing
    victim = server.store.all_ids(DMARC_EXTERNAL_REPORT)[0]
    assert main(["delete", "DmarcExternalReport", f"--ids={victim}", f"--url={server.base_url}",
                 f"--token={server.admin_token}"]) == 0
    add_demo_reports(server.store, 3, random.Random(99), DEMO_NOW)  # not the seed's reports again: replays
    capsys.readouterr()
    assert reports_counted() == REPORTS - 1 + 3 and synced[-1].fetched == 3


def test_a_damaged_cache_is_fetched_again(server: StubServer, capsys: pytest.CaptureFixture[str],
                                          tmp_path: Path) -> None:
    # A row this version cannot decode (edited, damaged, another version's) ended the run in a traceback.
    import sqlite3

    code, first, _ = run(server, capsys, "--offline")
    assert code == 0
    [cache] = (tmp_path / "data" / "dmarc-digests").glob("*.sqlite")
    with sqlite3.connect(cache) as db:
        db.execute("UPDATE records SET overrides='not json'")
    code, again, err = run(server, capsys, "--offline")
    assert code == 0 and again == first, err
    assert "it has been emptied; fetching the reports again" in err and "Traceback" not in err


def test_the_owner_says_which_shared_providers_send_for_it(server, capsys, tmp_path, monkeypatch) -> None:
    # Which mail they make authorised is in tests/dmarc/insight (the demo data has no such mail).
    config = tmp_path / "config.toml"
    monkeypatch.setenv("MAILADMIN_CONFIG", str(config))
    code, out, err = run(server, capsys, "--offline", "--json", "--add-sender", "bounces.SendGrid.net",
                         "--add-sender", "amazonses.com")
    assert code == 0 and "providers that send for your domains: amazonses.com, sendgrid.net" in err
    assert Config.load().senders == ("amazonses.com", "sendgrid.net")
    assert stat.S_IMODE(config.stat().st_mode) == 0o600
    assert all(json.loads(line)["reporters"] for line in out.splitlines())  # what each verdict rests on
    code, _, err = run(server, capsys, "--offline", "--add-sender", "10.0.0.1")
    assert code == 2 and "not a provider's domain" in err
    code, _, err = run(server, capsys, "--offline", "--json", "--remove-sender", "sendgrid.net")
    assert code == 0 and "providers that send for your domains: amazonses.com" in err
    assert Config.load().senders == ("amazonses.com",)


def test_a_sender_not_stored_as_typed_is_said_before_it_is_stored(server, capsys, tmp_path, monkeypatch) -> None:
    # tester100: --add-sender bounces.mail.sendgrid.net stored sendgrid.net, and s1.example.com example.com, without a
    # word: all of SendGrid (or every host under example.com) trusted while the admin typed one host.
    monkeypatch.setenv("MAILADMIN_CONFIG", str(tmp_path / "config.toml"))
    code, _, err = run(server, capsys, "--offline", "--json", "--add-sender", "bounces.mail.sendgrid.net",
                       "--add-sender", "s1.example.com", "--add-sender", "amazonses.com")
    lines = err.splitlines()
    assert code == 0 and Config.load().senders == ("amazonses.com", "example.com", "sendgrid.net")
    said = [line for line in lines if " stored as " in line]
    assert said == [
        "note: bounces.mail.sendgrid.net stored as sendgrid.net: a provider is matched by its organisational domain,"
        " so all mail SendGrid authenticates (sendgrid.com, sendgrid.net) now counts as authorised",
        "note: s1.example.com stored as example.com: a provider is matched by its organisational domain, so mail"
        " authenticated by any name under example.com now counts as authorised",
    ], err  # amazonses.com is stored as typed: nothing to say
    assert lines.index(said[-1]) < next(i for i, line in enumerate(lines) if line.startswith("providers that send"))
    code, _, err = run(server, capsys, "--offline", "--json", "--remove-sender", "s2.example.com",
                       "--remove-sender", "example.org")
    assert code == 0 and Config.load().senders == ("amazonses.com", "sendgrid.net")
    assert "note: s2.example.com taken as example.com: the list holds organisational domains" in err.splitlines()
    assert "note: example.org was not in the list" in err.splitlines()


def test_a_domains_heading_counts_in_words_with_thousands_separated() -> None:
    # The tester's "1 reports, 4294967296 messages", under a verdict that wrote 4,294,967,296.
    from jmapclient.counted import counted

    assert (counted(1, "report"), counted(4294967296, "message")) == ("1 report", "4,294,967,296 messages")
    assert (counted(0, "file"), counted(2, "more document"), counted(3, "entry", "entries")) == (
        "0 files", "2 more documents", "3 entries")


def test_the_words_tell_the_busiest_domains_and_count_the_others(server, capsys, monkeypatch) -> None:
    # 10,000 forged one-report domains printed 83,957 lines (tester91): the words are bounded, --json is whole.
    from jmapclient.dmarc.insight import advice

    code, out, err = run(server, capsys, "--offline", "--json")
    assert code == 0, err
    every = [json.loads(line) for line in out.splitlines()]
    assert len(every) > 1
    monkeypatch.setattr(advice, "MAX_SHOWN_DOMAINS", 1)
    code, out, err = run(server, capsys, "--offline")
    assert code == 0, err
    assert out.count("verdict: ") == 1 and f"{every[0]['domain']}  " in out  # the one with the most messages
    hidden = every[1:]
    messages = sum(entry["messages"] for entry in hidden)
    more = "domain" if len(hidden) == 1 else "domains"
    assert (f"… and {len(hidden)} more policy {more} with fewer messages ({messages:,} messages in all;"
            in out), out
    assert out.rstrip().endswith(": --json lists every domain")
    code, out, err = run(server, capsys, "--offline", "--json")
    assert [json.loads(line) for line in out.splitlines()] == every
