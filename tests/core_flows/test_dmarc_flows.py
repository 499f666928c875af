"""The one DMARC import flow and the one export flow, shared by the CLI and the console."""

from __future__ import annotations

import csv
import io
import stat
from datetime import UTC, datetime
from pathlib import Path

import pytest

from jmapclient import JmapClient
from jmapclient.dmarc.exporting import fetch_reports, save_reports
from jmapclient.dmarc.importing import import_reports
from jmapclient.errors import SetError
from jmapclient.models.objects import DMARC_EXTERNAL_REPORT
from jmapclient.refusals import is_write_refusal, write_refusal
from mailadmin.main import main
from server_stub.runner import StubServer

NOW = datetime(2026, 3, 1, tzinfo=UTC)
REPORT = """<?xml version="1.0" encoding="UTF-8"?>
<feedback>
  <report_metadata><org_name>Reporter Inc</org_name><email>dmarc@reporter.example</email>
    <report_id>{report_id}</report_id>
    <date_range><begin>1700000000</begin><end>1700086399</end></date_range></report_metadata>
  <policy_published><domain>example.com</domain><p>reject</p></policy_published>
  <record><row><source_ip>192.0.2.1</source_ip><count>3</count>
    <policy_evaluated><disposition>none</disposition><dkim>pass</dkim><spf>fail</spf></policy_evaluated></row>
    <identifiers><header_from>example.com</header_from></identifiers>
    <auth_results><spf><domain>example.com</domain><result>fail</result></spf></auth_results></record>
</feedback>
"""


def write_reports(folder: Path, count: int) -> None:
    for index in range(count):
        (folder / f"report-{index}.xml").write_text(REPORT.format(report_id=f"flow-{index}"))


@pytest.fixture(autouse=True)
def isolated_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MAILADMIN_CONFIG", str(tmp_path / "config.toml"))
    monkeypatch.delenv("MAILADMIN_URL", raising=False)
    monkeypatch.delenv("MAILADMIN_TOKEN", raising=False)


async def test_import_reports_progress_duplicates_and_server_holdings(tmp_path: Path) -> None:
    write_reports(tmp_path, 3)
    (tmp_path / "report-again.xml").write_text(REPORT.format(report_id="flow-0"))
    (tmp_path / "junk.xml").write_text("not a report")
    calls: list[tuple[int, int]] = []
    with StubServer(reports=0) as stub:
        async with JmapClient(stub.base_url, stub.admin_token, timeout=10) as client:
            outcome = await import_reports(client.dmarc_reports, [tmp_path], now=NOW,
                                           progress=lambda done, total: calls.append((done, total)))
            assert (len(outcome.summary.imported), len(outcome.summary.duplicates)) == (3, 1)
            assert len(outcome.summary.rejected) == 1 and outcome.refused is None and not outcome.capped
            assert calls == [(0, 5), (1, 5), (2, 5), (3, 5), (4, 5), (5, 5)]
            again = await import_reports(client.dmarc_reports, [tmp_path / "report-1.xml"], now=NOW)
            assert len(again.summary.duplicates) == 1 and not again.summary.imported
        assert stub.store.count(DMARC_EXTERNAL_REPORT) == 3


async def test_import_caps_the_files_read_and_a_dry_run_sends_nothing(tmp_path: Path) -> None:
    write_reports(tmp_path, 4)
    outcome = await import_reports(None, [tmp_path], now=NOW, file_cap=3)
    assert outcome.files == 3 and outcome.capped and len(outcome.summary.imported) == 3
    uncapped = await import_reports(None, [tmp_path], now=NOW, file_cap=4)
    assert uncapped.files == 4 and not uncapped.capped


async def test_the_real_servers_refusal_is_recognised_once(tmp_path: Path) -> None:
    write_reports(tmp_path, 2)
    with StubServer(profile="stalwart", reports=0) as stub:
        async with JmapClient(stub.base_url, stub.admin_token, timeout=10) as client:
            outcome = await import_reports(client.dmarc_reports, [tmp_path], now=NOW)
    assert outcome.refused_reports and outcome.refused and "cannot be created" in outcome.refused
    assert len(outcome.summary.rejected) == 2 and not outcome.summary.imported
    assert is_write_refusal(SetError("forbidden", "External reports cannot be updated"))
    assert not is_write_refusal(SetError("forbidden", "missing permission sysDmarcExternalReportUpdate"))
    assert write_refusal([SetError("invalidPatch"), SetError("forbidden", "Reports cannot be created")]) == (
        "Reports cannot be created")


async def test_export_reads_the_filtered_reports_up_to_a_cap_and_writes_a_private_file(tmp_path: Path) -> None:
    seen: list[tuple[int, int | None]] = []
    with StubServer(reports=30) as stub:
        async with JmapClient(stub.base_url, stub.admin_token, timeout=10) as client:
            fetched = await fetch_reports(client.dmarc_reports, None, [{"property": "receivedAt"}], cap=25,
                                          progress=lambda done, total: seen.append((done, total)))
    assert len(fetched.reports) == 25 and fetched.total == 30 and fetched.capped
    assert seen[-1] == (25, 25)
    target = tmp_path / "rows.csv"
    rows = save_reports(fetched.reports, "csv", target)
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    assert rows == len(list(csv.DictReader(io.StringIO(target.read_text())))) > 0


def test_cli_export_file_is_created_owner_only(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Issue #11: `export-dmarc -o` used to create its file 0644, readable by every local user."""
    target = tmp_path / "rows.json"
    with StubServer(reports=5) as stub:
        code = main(["export-dmarc", "--format", "json", "-o", str(target),
                     f"--url={stub.base_url}", f"--token={stub.admin_token}"])
    assert code == 0
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    assert f"records from 5 reports to {target}" in capsys.readouterr().err
