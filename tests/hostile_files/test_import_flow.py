"""Whole imports with hostile files in them: one summary, and the server holds what it says."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from bench.hostile_corpus import CASES, feedback
from jmapclient import JmapClient
from jmapclient.dmarc import ImportSummary, load_bytes
from jmapclient.dmarc.importing import import_reports
from jmapclient.dmarc.upload import Uploader
from jmapclient.models.objects import DMARC_EXTERNAL_REPORT
from jmapclient.paging import pages_of_objects
from mailadmin.main import main
from server_stub.runner import StubServer
from tests.support.samples import samples_or_skip

NOW = datetime(2026, 3, 1, tzinfo=UTC)


@pytest.fixture(autouse=True)
def isolated_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MAILADMIN_CONFIG", str(tmp_path / "config.toml"))
    monkeypatch.delenv("MAILADMIN_URL", raising=False)
    monkeypatch.delenv("MAILADMIN_TOKEN", raising=False)


def report(report_id: str, extra: str = "") -> bytes:
    return feedback(report_id=report_id, extra=extra)


async def test_a_set_call_failing_as_a_whole_is_retried_report_by_report() -> None:
    # The store breaks on the second report, as a server's storage can: the stub then fails the
    # whole call (serverFail), having stored none of its reports (one transaction a call).
    items = [load_bytes(report(f"whole-{index}"), f"r{index}.xml", now=NOW) for index in range(4)]
    assert all(item.wire is not None for item in items)
    summary = ImportSummary()
    with StubServer(reports=0) as stub:
        insert_many = stub.store.insert_many

        def breaks_on_whole_1(object_type: Any, items: list[tuple[Any, dict[str, Any]]], **options: Any) -> list[str]:
            if any(wire["report"]["reportId"] == "whole-1" for _, wire in items):
                raise OverflowError("storage cannot hold this report")
            return insert_many(object_type, items, **options)

        stub.store.insert_many = breaks_on_whole_1  # type: ignore[method-assign]
        async with JmapClient(stub.base_url, stub.admin_token, timeout=10) as client:
            uploader = await Uploader.for_api(client.dmarc_reports, summary)
            for item in items:
                summary.add(item)
                await uploader.add(item)
            await uploader.flush()
        stored = stub.store.count(DMARC_EXTERNAL_REPORT)
    assert [path.name for path, _ in summary.rejected] == ["r1.xml"]
    assert sorted(path.name for path in summary.imported) == ["r0.xml", "r2.xml", "r3.xml"]
    assert stored == len(summary.imported) == 3
    assert uploader.refused is None


@pytest.mark.parametrize("damaged_name", ["a-damaged.xml", "z-damaged.xml"])
async def test_the_copy_parsed_without_recovery_wins_whatever_the_order(tmp_path: Path, damaged_name: str) -> None:
    (tmp_path / damaged_name).write_bytes(report("same", "<extra_contact_info>AT&T</extra_contact_info>"))
    (tmp_path / "m-clean.xml").write_bytes(report("same"))
    with StubServer(reports=0) as stub:
        async with JmapClient(stub.base_url, stub.admin_token, timeout=10) as client:
            outcome = await import_reports(client.dmarc_reports, [tmp_path], now=NOW)
            held = [wire async for wire in _all_reports(client)]
    assert [path.name for path in outcome.summary.imported] == ["m-clean.xml"]
    assert [path.name for path, _ in outcome.summary.duplicates] == [damaged_name]
    assert len(held) == 1 and held[0]["report"].get("extraContactInfo") is None


async def _all_reports(client: JmapClient) -> AsyncIterator[dict[str, Any]]:
    async for page in pages_of_objects(client.dmarc_reports, None, properties=["id", "report"]):
        for wire in page:
            yield wire


def test_the_corpus_with_the_samples_gives_one_true_summary(
    hostile_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    samples = samples_or_skip()
    with StubServer(reports=0) as stub:
        code = main(["import-dmarc", str(hostile_dir), str(samples),
                     f"--url={stub.base_url}", f"--token={stub.admin_token}"])
        stored = stub.store.count(DMARC_EXTERNAL_REPORT)
    output = capsys.readouterr()
    assert "Traceback" not in output.out + output.err
    found = re.findall(r"^(imported|duplicates|rejected): (\d+)", output.out, re.M)
    counts = {name: int(value) for name, value in found}
    files = len(CASES) + sum(1 for p in samples.iterdir() if not p.name.endswith(".md"))
    assert sum(counts.values()) == files
    assert stored == counts["imported"]
    for case in CASES:
        if case.outcome == "rejected":
            assert re.search(rf"rejected .*{re.escape(case.name)}: .*{re.escape(case.reason)}", output.out), case.name
    rejected_samples = re.findall(r"rejected \S*dmarc-samples/(\S+):", output.out)
    # The samples' own outcomes are unchanged: the same three are rejected as before.
    assert sorted(rejected_samples) == [
        "empty_zero-bytes.xml", "quirky_zero-records.xml", "test-inc_empty-source-ip-count-0.xml"
    ]
    assert code != 0  # some files were rejected, and the exit code says so
