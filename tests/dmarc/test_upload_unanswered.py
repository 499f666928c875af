"""An upload sent and left unanswered is "not known", never "rejected": the server may have stored it.

The tester stopped the server (SIGSTOP) in the middle of ``import-dmarc --timeout 3``: two files read
"rejected: the server failed the upload and could not say what it stored", and the server had stored
them. Here the real stub stores each batch and the answer is lost after it (a timeout, ``sent``), and the
questions that follow time out too; or the request never leaves (nothing stored: rejected).
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from jmapclient import JmapClient
from jmapclient.dmarc.batch import ImportSummary
from jmapclient.dmarc.importing import import_reports
from jmapclient.errors import RequestTimeout, ServerError, ServerUnreachable, TransportError
from jmapclient.models.objects import DMARC_EXTERNAL_REPORT
from jmapclient.objects import ObjectApi
from server_stub.runner import StubServer
from tests.support.dmarc_xml import write_reports

NOW = datetime(2026, 3, 1, tzinfo=UTC)
FILES = 6


async def import_with_lost_answers(folder: Path, monkeypatch: pytest.MonkeyPatch,
                                   lost: TransportError) -> tuple[ImportSummary, int, int]:
    """Import ``folder`` where every create's answer is lost as ``lost`` says (stored first when it was
    sent) and every question after times out; the summary, the reports stored and the questions asked."""
    set_call, query_call, query_and_get_call = ObjectApi.set, ObjectApi.query, ObjectApi.query_and_get
    asked = [0]
    broken = [False]  # the questions before the uploads (is it stored already?) are answered

    async def unanswered_set(self: ObjectApi, **arguments: Any) -> Any:
        create = arguments.get("create") or {}
        if "probe" in create:
            return await set_call(self, **arguments)
        if lost.sent or isinstance(lost, ServerError):
            await set_call(self, **arguments)  # the server stores them; no JMAP answer arrives
        broken[0] = True
        raise lost

    def unanswered(call: Any) -> Any:
        async def query(self: ObjectApi, *args: Any, **kwargs: Any) -> Any:
            if not broken[0]:
                return await call(self, *args, **kwargs)
            asked[0] += 1
            raise RequestTimeout("http://127.0.0.1", 3)
        return query

    monkeypatch.setattr(ObjectApi, "set", unanswered_set)
    monkeypatch.setattr(ObjectApi, "query", unanswered(query_call))
    monkeypatch.setattr(ObjectApi, "query_and_get", unanswered(query_and_get_call))
    with StubServer(reports=0, directories=False) as stub:
        async with JmapClient(stub.base_url, stub.admin_token, timeout=60) as client:
            outcome = await import_reports(client.dmarc_reports, [folder], now=NOW)
        stored = stub.store.count(DMARC_EXTERNAL_REPORT)
    return outcome.summary, stored, asked[0]


@pytest.mark.parametrize("lost", [RequestTimeout("http://127.0.0.1", 3), ServerError("http://127.0.0.1", 502)],
                         ids=["timeout", "HTTP 502"])
async def test_an_upload_sent_and_unanswered_is_not_known(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                          lost: TransportError) -> None:
    write_reports(tmp_path / "r", FILES)
    summary, stored, asked = await import_with_lost_answers(tmp_path / "r", monkeypatch, lost)
    assert stored == FILES  # the server has them all
    assert not summary.rejected and not summary.imported
    assert len(summary.unsure) == FILES and summary.missed == FILES
    assert asked == 1  # one question timed out: the rest of the batch is not asked, a timeout each
    lines = summary.lines()
    assert f"not known: {FILES} (sent, unanswered: the server may have stored them;" in lines[3]
    assert all(line.startswith("  not known ") and "the upload got no answer" in line for line in lines[4:])


async def test_an_upload_that_never_left_is_rejected(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write_reports(tmp_path / "r", FILES)
    never_sent = ServerUnreachable("http://127.0.0.1", "connection refused", sent=False)
    summary, stored, _ = await import_with_lost_answers(tmp_path / "r", monkeypatch, never_sent)
    assert stored == 0
    assert len(summary.rejected) == FILES and not summary.unsure
    assert all(why.startswith("the server failed the upload") for _, why in summary.rejected)
