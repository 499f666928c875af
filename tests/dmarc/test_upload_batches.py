"""The import's set calls: small at both ends, larger between, within the server's limits (issue #33)."""

from __future__ import annotations

from datetime import UTC, datetime
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest

from jmapclient import JmapClient
from jmapclient.dmarc.importing import import_reports
from jmapclient.dmarc.upload import BATCH_CAP, FIRST_BATCH, TAIL_SHARE
from jmapclient.models.objects import DMARC_EXTERNAL_REPORT
from jmapclient.objects import ObjectApi
from server_stub.runner import StubServer
from tests.support.dmarc_xml import write_reports

NOW = datetime(2026, 3, 1, tzinfo=UTC)


async def imported_in_calls(folder: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[list[int], int]:
    """The sizes of the set calls that created the reports (the probe left out), and the reports stored."""
    sizes: list[int] = []
    set_call = ObjectApi.set

    async def counted(self: ObjectApi, **arguments: Any) -> Any:
        create = arguments.get("create") or {}
        if "probe" not in create:
            sizes.append(len(create))
        return await set_call(self, **arguments)

    monkeypatch.setattr(ObjectApi, "set", counted)
    with StubServer(reports=0, directories=False) as stub:
        async with JmapClient(stub.base_url, stub.admin_token, timeout=60) as client:
            outcome = await import_reports(client.dmarc_reports, [folder], now=NOW)
        stored = stub.store.count(DMARC_EXTERNAL_REPORT)
    assert not outcome.summary.rejected and len(outcome.summary.imported) == stored
    return sizes, stored


async def test_batches_grow_from_the_first_and_shrink_towards_the_last_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_reports(tmp_path / "many", 700)
    sizes, stored = await imported_in_calls(tmp_path / "many", monkeypatch)
    assert stored == 700 == sum(sizes)
    assert sizes[:2] == [FIRST_BATCH, 2 * FIRST_BATCH]
    assert max(sizes) <= BATCH_CAP
    assert len(sizes) < stored / FIRST_BATCH  # fewer requests than at a fixed FIRST_BATCH: each costs both sides
    assert sizes[-1] <= FIRST_BATCH  # the server is not left storing a large last batch alone
    # From the largest on, each batch is at least nine tenths of the one before (the last, what is left,
    # aside): the server stores one before the next is parsed, and the import does not end waiting on it.
    top = sizes.index(max(sizes))
    assert all(earlier * (1 - 1 / TAIL_SHARE) - 1 <= later <= earlier for earlier, later in pairwise(sizes[top:-1]))


async def test_a_long_import_reaches_the_largest_batches(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write_reports(tmp_path / "long", 2_400)
    sizes, stored = await imported_in_calls(tmp_path / "long", monkeypatch)
    assert stored == 2_400 == sum(sizes)
    assert sizes[:4] == [FIRST_BATCH, 2 * FIRST_BATCH, 4 * FIRST_BATCH, BATCH_CAP]


async def test_a_few_files_go_in_small_batches(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write_reports(tmp_path / "few", 30)
    sizes, stored = await imported_in_calls(tmp_path / "few", monkeypatch)
    assert stored == 30 == sum(sizes) and max(sizes) <= FIRST_BATCH
