"""The cycle collector rests during an import, but for a pass over what is young every YOUNG_PASS_FILES files
(issue #33): its own passes over the listed paths and the pending reports took about 50 µs a file."""

from __future__ import annotations

import gc
from datetime import UTC, datetime
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from bench.hostile_corpus import feedback
from jmapclient.dmarc import importing
from jmapclient.dmarc.importing import YOUNG_PASS_FILES, import_reports

NOW = datetime(2026, 3, 1, tzinfo=UTC)


async def test_the_collector_rests_while_listing_and_parsing_with_a_young_pass_every_so_many_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    count = 2 * YOUNG_PASS_FILES + 3
    report = feedback(report_id="collector")
    for index in range(count):
        (tmp_path / f"r{index:04}.xml").write_bytes(report.replace(b"collector", f"collector-{index}".encode()))
    enabled: list[bool] = []
    passes: list[Any] = []
    list_files, parse_run = importing.list_report_files, importing.parse_run

    def listing(*args: Any) -> Any:
        enabled.append(gc.isenabled())
        return list_files(*args)

    def parsing(*args: Any) -> Any:
        enabled.append(gc.isenabled())
        return parse_run(*args)

    monkeypatch.setattr(importing, "list_report_files", listing)
    monkeypatch.setattr(importing, "parse_run", parsing)
    monkeypatch.setattr(importing, "gc", SimpleNamespace(collect=passes.append))
    assert gc.isenabled()
    outcome = await import_reports(None, [tmp_path], now=NOW)
    assert len(outcome.summary.imported) == count
    assert enabled and not any(enabled)
    assert passes == [1, 1]  # the two younger generations only, once every YOUNG_PASS_FILES files
    assert gc.isenabled()
