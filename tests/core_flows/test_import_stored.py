"""The import counts the reports the server said it stored: what an import stopped midway says."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from jmapclient import JmapClient
from jmapclient.dmarc.importing import ImportOutcome, import_reports
from jmapclient.models.objects import DMARC_EXTERNAL_REPORT
from server_stub.runner import StubServer
from tests.support.dmarc_xml import feedback

NOW = datetime(2026, 3, 1, tzinfo=UTC)


def _reports(folder: Path, count: int) -> None:
    for index in range(count):
        (folder / f"report-{index:03}.xml").write_bytes(feedback(report_id=f"<report_id>stored-{index}</report_id>"))


async def test_the_outcome_handed_in_counts_what_the_server_stored(tmp_path: Path) -> None:
    _reports(tmp_path, 12)
    (tmp_path / "report-000-again.xml").write_bytes(feedback(report_id="<report_id>stored-0</report_id>"))
    filled = ImportOutcome()
    with StubServer(reports=0) as stub:
        async with JmapClient(stub.base_url, stub.admin_token, timeout=10) as client:
            returned = await import_reports(client.dmarc_reports, [tmp_path], now=NOW, outcome=filled)
        held = stub.store.count(DMARC_EXTERNAL_REPORT)
    assert returned is filled
    assert (filled.stored, held, len(filled.summary.imported), filled.files) == (12, 12, 12, 13)


async def test_nothing_is_counted_stored_when_the_real_server_refuses_reports(tmp_path: Path) -> None:
    _reports(tmp_path, 3)
    with StubServer(profile="stalwart", reports=0) as stub:
        async with JmapClient(stub.base_url, stub.admin_token, timeout=10) as client:
            outcome = await import_reports(client.dmarc_reports, [tmp_path], now=NOW)
    assert outcome.stored == 0 and outcome.refused_reports


async def test_a_dry_run_stores_nothing_and_says_none(tmp_path: Path) -> None:
    _reports(tmp_path, 2)
    assert (await import_reports(None, [tmp_path], now=NOW)).stored is None
