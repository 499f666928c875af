"""The importer's cost follows the files in hand, not the server's size (issue #33).

Finding duplicates once read every report the server held, records and all: a re-import into a
server of 50,000 reports took 16 times as long as into one of 1,000. It now asks the server only
for the reports of each reporter and policy domain it meets, and sends batches while it parses.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import pytest

from bench.hostile_corpus import RECORD, feedback
from jmapclient import JmapClient
from jmapclient.dmarc.importing import ImportOutcome, import_reports
from jmapclient.models.objects import DMARC_EXTERNAL_REPORT
from server_stub.runner import StubServer

NOW = datetime(2026, 3, 1, tzinfo=UTC)
STORED = 400
"""Demo reports in the server: none from the reporter the test imports."""


class ReadCounter(httpx.AsyncBaseTransport):
    """A real HTTP transport that counts the reports the server returns through get."""

    def __init__(self) -> None:
        self.inner = httpx.AsyncHTTPTransport()
        self.reports_read = 0

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        response = await self.inner.handle_async_request(request)
        body = await response.aread()
        if request.method == "POST":
            for name, arguments, _ in json.loads(body).get("methodResponses", []):
                if name.endswith("DmarcExternalReport/get"):
                    self.reports_read += len(arguments.get("list", []))
        return httpx.Response(response.status_code, headers=response.headers, content=body)

    async def aclose(self) -> None:
        await self.inner.aclose()


async def _import_twice(stored: Path, again: Path) -> tuple[ImportOutcome, int]:
    """Import ``stored`` into an empty stub, then ``again``: its outcome and the reports it read."""
    with StubServer(reports=0) as stub:
        async with JmapClient(stub.base_url, stub.admin_token, timeout=30) as client:
            await import_reports(client.dmarc_reports, [stored], now=NOW)
        counter = ReadCounter()
        async with JmapClient(stub.base_url, stub.admin_token, timeout=30, transport=counter) as client:
            outcome = await import_reports(client.dmarc_reports, [again], now=NOW)
    return outcome, counter.reports_read


async def test_a_reimport_reads_only_the_reporters_reports_not_the_store(tmp_path: Path) -> None:
    for index in range(3):
        (tmp_path / f"r{index}.xml").write_bytes(feedback(report_id=f"scale-{index}"))
    with StubServer(reports=STORED) as stub:
        async with JmapClient(stub.base_url, stub.admin_token, timeout=30) as client:
            first = await import_reports(client.dmarc_reports, [tmp_path], now=NOW)
        counter = ReadCounter()
        async with JmapClient(stub.base_url, stub.admin_token, timeout=30, transport=counter) as client:
            again = await import_reports(client.dmarc_reports, [tmp_path], now=NOW)
        stored = stub.store.count(DMARC_EXTERNAL_REPORT)
    assert len(first.summary.imported) == 3 and len(again.summary.duplicates) == 3
    assert stored == STORED + 3
    # The three copies it holds of this reporter's reports, not the 403 the server holds; then each once more, to
    # compare what it says with the file's (a copy that says otherwise is no duplicate).
    assert counter.reports_read == 3 + 3


async def test_a_reporter_with_many_stored_reports_is_asked_report_by_report(tmp_path: Path) -> None:
    from jmapclient.dmarc.upload import FEW
    from tests.support.dmarc_xml import feedback as feedback_of
    from tests.support.dmarc_xml import record

    def sent_by(index: int) -> bytes:  # one reporter and domain; each day's mail came from another sender
        sender = f"sender{index}.example"
        rows = record(identifiers=f"<header_from>{sender}</header_from>",
                      auth=f"<dkim><domain>{sender}</domain><selector>s</selector><result>pass</result></dkim>")
        return feedback_of(records=rows, report_id=f"<report_id>day-{index}</report_id>")

    stored, again = tmp_path / "stored", tmp_path / "again"
    stored.mkdir()
    again.mkdir()
    for index in range(FEW + 20):
        (stored / f"d{index}.xml").write_bytes(sent_by(index))
    (again / "d3.xml").write_bytes(sent_by(3))
    (again / "new.xml").write_bytes(sent_by(FEW + 50))
    with StubServer(reports=0) as stub:
        async with JmapClient(stub.base_url, stub.admin_token, timeout=30) as client:
            first = await import_reports(client.dmarc_reports, [stored], now=NOW)
        counter = ReadCounter()
        async with JmapClient(stub.base_url, stub.admin_token, timeout=30, transport=counter) as client:
            outcome = await import_reports(client.dmarc_reports, [again], now=NOW)
    assert len(first.summary.imported) == FEW + 20
    assert [p.name for p, _ in outcome.summary.duplicates] == ["d3.xml"]
    assert [p.name for p in outcome.summary.imported] == ["new.xml"]
    assert counter.reports_read == 1 + 1  # its own stored copy (found, then compared), not the reporter's 84 reports


async def test_reports_no_word_tells_apart_are_read_once_not_once_a_report(tmp_path: Path) -> None:
    from jmapclient.dmarc.upload import FEW

    stored, again = tmp_path / "stored", tmp_path / "again"
    stored.mkdir()
    again.mkdir()
    for index in range(FEW + 10):  # one reporter, the same senders every day
        (stored / f"d{index}.xml").write_bytes(feedback(report_id=f"same-{index}"))
    for index in range(6):
        (again / f"d{index}.xml").write_bytes(feedback(report_id=f"same-{index}"))
    outcome, reports_read = await _import_twice(stored, again)
    assert len(outcome.summary.duplicates) == 6
    assert reports_read <= 2 * (FEW + 10)  # the narrowed search once, then all of them once


def _daily(index: int, records: int, *, report_id: str | None = None) -> bytes:
    """One reporter and domain, the same senders every day; days differ only in how many records."""
    rows = "".join(RECORD.format(count=n + 1) for n in range(records))
    return feedback(report_id=report_id or f"day-{index}", records=rows)


async def test_a_reporters_reports_alike_in_words_are_told_apart_by_their_totals(tmp_path: Path) -> None:
    from jmapclient.dmarc.upload import FEW, FIRST_READ

    stored, again = tmp_path / "stored", tmp_path / "again"
    stored.mkdir()
    again.mkdir()
    for index in range(FEW + 16):  # 80 reports: 16 of each size from 1 to 5 records
        (stored / f"d{index}.xml").write_bytes(_daily(index, index % 5 + 1))
    (again / "d7.xml").write_bytes(_daily(7, 3))
    (again / "new.xml").write_bytes(_daily(999, 3))
    # The same reporter, report id and period with other content: no duplicate (a forged copy held first kept the
    # real one out so), stored beside the one held.
    (again / "same-key.xml").write_bytes(_daily(8, 2, report_id="day-8"))  # day 8 held has 4 records
    outcome, reports_read = await _import_twice(stored, again)
    assert sorted(p.name for p, _ in outcome.summary.duplicates) == ["d7.xml"]
    assert sorted(p.name for p in outcome.summary.imported) == ["new.xml", "same-key.xml"]
    # d7: the first of its totals' with their count, then all 16 of three records. new.xml, not among
    # those: its words alone, all 80 (as many as the reporter holds: read once, they answer for the
    # reporter from then on). Then d7's and same-key's copies held, once each, to compare what they say.
    assert reports_read == FIRST_READ + 16 + 80 + 2


@pytest.mark.parametrize("profile", ["spec", "stalwart"])
async def test_stored_reports_are_found_by_conditions_both_servers_offer(profile: str) -> None:
    # The real server refuses to create reports, but it stores those that arrive by mail: what the
    # importer asks (words and session totals, under AND) is what it answers too (wire-notes.md).
    from jmapclient.dmarc.batch import duplicate_key
    from jmapclient.dmarc.upload import StoredKeys

    with StubServer(reports=300, profile=profile) as stub:
        ids = stub.store.all_ids(DMARC_EXTERNAL_REPORT)
        held = list(stub.store.get(DMARC_EXTERNAL_REPORT, ids[:40]).values())
        async with JmapClient(stub.base_url, stub.admin_token, timeout=30) as client:
            stored = StoredKeys(client.dmarc_reports)
            for wire in held:
                assert await stored.holds(wire), duplicate_key(wire)
                other = {**wire, "report": {**wire["report"], "reportId": "never-sent"}}
                assert not await stored.holds(other)


async def test_a_reporters_search_words_are_worked_out_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each file's duplicate check asks by its reporter's words: worked out once a reporter, not once a file."""
    from jmapclient.dmarc import upload

    for index in range(6):
        (tmp_path / f"r{index}.xml").write_bytes(feedback(report_id=f"words-{index}"))
    (tmp_path / "other.xml").write_bytes(feedback(report_id="words-other").replace(b"Reporter Inc", b"Other Inc")
                                         .replace(b"dmarc@reporter.example", b"dmarc@other.example"))
    worked: list[str] = []
    real = upload.reporter_words

    def counted(wire: Any) -> str:
        worked.append(real(wire))
        return worked[-1]

    monkeypatch.setattr(upload, "reporter_words", counted)
    with StubServer(reports=0) as stub:
        async with JmapClient(stub.base_url, stub.admin_token, timeout=30) as client:
            first = await import_reports(client.dmarc_reports, [tmp_path], now=NOW)
            again = await import_reports(client.dmarc_reports, [tmp_path], now=NOW)
    assert len(first.summary.imported) == 7 and len(again.summary.duplicates) == 7
    assert sorted(worked) == sorted(["com dmarc example reporter"] * 2 + ["com dmarc example other"] * 2)
