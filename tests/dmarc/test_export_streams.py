"""The export writes each page as it comes (issue #33): 100,000 reports were held whole (1 GiB).

The rows of the reports read so far are written before the next page is asked for; the file is
the one an export written whole would be, byte for byte; and a failed export leaves no file.
"""

from __future__ import annotations

import io
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import pytest

from jmapclient import JmapClient
from jmapclient.dmarc import exporting
from jmapclient.dmarc.exporting import export_reports, fetch_reports, write_reports
from jmapclient.errors import JmapError
from server_stub.runner import StubServer

REPORTS = 1100
"""Three pages of the stub's 500."""


@pytest.fixture(scope="module")
def stub() -> Any:
    with StubServer(reports=REPORTS, directories=False, seed=11) as server:
        yield server


@pytest.mark.parametrize("format", ["csv", "json"])
async def test_each_page_is_written_before_the_next_is_read(
    stub: Any, tmp_path: Path, format: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    handed: list[int] = []
    rows_of = exporting.export_rows

    def counted(reports: Iterable[Mapping[str, Any]]) -> Any:
        listed = list(reports)
        handed.append(len(listed))
        return rows_of(listed)

    monkeypatch.setattr(exporting, "export_rows", counted)
    seen: list[tuple[int, int]] = []
    path = tmp_path / f"out.{format}"
    async with JmapClient(stub.base_url, stub.admin_token, timeout=60) as client:
        exported = await export_reports(client.dmarc_reports, None, None, format,  # type: ignore[arg-type]
                                        path=path, progress=lambda read, _: seen.append((read, sum(handed))))
        monkeypatch.setattr(exporting, "export_rows", rows_of)
        whole = await fetch_reports(client.dmarc_reports, None)
    assert len(seen) >= 3 and all(read == written for read, written in seen)  # written as read, page by page
    assert exported.report_count == REPORTS and not exported.reports  # counted, not kept
    expected = io.StringIO(newline="")
    assert write_reports(whole.reports, format, expected) == exported.rows  # type: ignore[arg-type]
    assert path.read_bytes().decode("utf-8") == expected.getvalue()
    assert os.stat(path).st_mode & 0o777 == 0o600


async def test_an_export_that_fails_midway_leaves_the_old_file_and_no_other(stub: Any, tmp_path: Path) -> None:
    path = tmp_path / "out.csv"
    path.write_text("before\n")

    def fail_after_the_first_page(read: int, _: int | None) -> None:
        raise JmapError("the server went away")

    async with JmapClient(stub.base_url, stub.admin_token, timeout=60) as client:
        with pytest.raises(JmapError):
            await export_reports(client.dmarc_reports, None, None, "csv", path=path,
                                 progress=fail_after_the_first_page)
    assert path.read_text() == "before\n"
    assert [p.name for p in tmp_path.iterdir()] == ["out.csv"]
