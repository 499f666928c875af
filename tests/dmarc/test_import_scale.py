"""The importer's cost follows the files in hand, not the server's size (issue #33).

Finding duplicates once read every report the server held, records and all: a re-import into a
server of 50,000 reports took 16 times as long as into one of 1,000. It now asks the server only
for the reports of each reporter and policy domain it meets, and sends batches while it parses.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import httpx

from bench.hostile_corpus import feedback
from jmapclient import JmapClient
from jmapclient.dmarc.importing import import_reports
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
    # The three copies it holds of this reporter's reports, not the 403 the server holds.
    assert counter.reports_read == 3
