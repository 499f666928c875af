"""Each report goes to the server as its parser encoded it (once), and is held to the same rules (issue #33)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bench.hostile_corpus import feedback
from jmapclient import JmapClient
from jmapclient.display import wire_json
from jmapclient.dmarc.importing import import_reports
from jmapclient.dmarc.loader import load_file
from jmapclient.encoding import MASKED_SECRET
from jmapclient.models.objects import DMARC_EXTERNAL_REPORT
from jmapclient.raw_json import RawJson
from server_stub.runner import StubServer

NOW = datetime(2026, 3, 1, tzinfo=UTC)


def test_an_encoded_object_is_written_into_a_body_as_it_is() -> None:
    inner = {"b": [1, "two", None], "c": {"d": "é"}}
    body = {"create": {"x": RawJson(wire_json(inner)), "y": {"plain": True}}, "after": "x"}
    assert wire_json(body) == wire_json({"create": {"x": inner, "y": {"plain": True}}, "after": "x"})
    assert dict(RawJson(wire_json(inner))) == inner  # read as a mapping, it is the object


async def test_imported_reports_are_stored_as_parsed_and_a_masked_value_is_still_refused(tmp_path: Path) -> None:
    (tmp_path / "a.xml").write_bytes(feedback(report_id="once-a"))
    (tmp_path / "b.xml").write_bytes(feedback(report_id="once-b").replace(b"Reporter Inc", MASKED_SECRET.encode()))
    with StubServer(reports=0) as stub:
        async with JmapClient(stub.base_url, stub.admin_token, timeout=30) as client:
            outcome = await import_reports(client.dmarc_reports, [tmp_path], now=NOW)
        stored = stub.store.get(DMARC_EXTERNAL_REPORT, stub.store.all_ids(DMARC_EXTERNAL_REPORT))
    assert outcome.summary.imported == [tmp_path / "a.xml"]
    [(path, reason)] = outcome.summary.rejected
    assert path == tmp_path / "b.xml" and MASKED_SECRET in reason and "type the secret again" in reason
    [report] = stored.values()
    sent = load_file(tmp_path / "a.xml", now=NOW).wire
    assert sent is not None
    assert json.loads(wire_json(report["report"]))["reportId"] == sent["report"]["reportId"] == "once-a"


async def test_the_uploader_encodes_no_report_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The parser's thread encodes each report; the uploader measures and sends those bytes (it encoded
    each report once for its size, again for the mask check and again for the body)."""
    for name in ("a", "b", "c"):
        (tmp_path / f"{name}.xml").write_bytes(feedback(report_id=f"again-{name}"))
    encoded: list[object] = []
    real = RawJson.__init__

    def counted(self: RawJson, data: bytes) -> None:
        encoded.append(data)
        real(self, data)

    def refuse(value: object) -> bytes:
        raise AssertionError("the uploader encoded a report again")

    monkeypatch.setattr("jmapclient.dmarc.upload.wire_json", refuse)
    monkeypatch.setattr(RawJson, "__init__", counted)
    with StubServer(reports=0) as stub:
        async with JmapClient(stub.base_url, stub.admin_token, timeout=30) as client:
            outcome = await import_reports(client.dmarc_reports, [tmp_path], now=NOW)
    assert len(outcome.summary.imported) == 3
    assert len(encoded) == 3  # each report's bytes spliced into the request as they are
