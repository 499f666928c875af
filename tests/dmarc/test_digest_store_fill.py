"""A first fill (a sync into an empty store) writes its rows without the indexes only reads use and builds
them once at its end, whether it ends well or not; a store that holds reports keeps them throughout."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

import httpx
import pytest

from jmapclient.dmarc import digest_store
from jmapclient.dmarc.digest_file import READ_INDEXES
from jmapclient.dmarc.digest_store import DigestStore
from jmapclient.errors import JmapError
from tests.support.console import StubWorld, make_world


@pytest.fixture
def world() -> Iterator[StubWorld]:
    made = make_world("stalwart", reports=60)
    yield made
    made.store.close()


def indexes(db: sqlite3.Connection) -> set[str]:
    return {name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type='index' AND sql IS NOT NULL")}


def watch_puts(store: DigestStore, monkeypatch: pytest.MonkeyPatch) -> list[set[str]]:
    """The indexes there at each put of fetched reports."""
    seen: list[set[str]] = []
    real = DigestStore.put_wires

    def put_wires(self: DigestStore, wires: Iterable[Mapping[str, Any]]) -> tuple[int, list[str]]:
        seen.append(indexes(self._db))
        return real(self, wires)

    monkeypatch.setattr(DigestStore, "put_wires", put_wires)
    return seen


async def test_a_first_fill_builds_the_read_indexes_once_at_its_end(
        world: StubWorld, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(digest_store, "GET_CHUNK", 10)
    store = DigestStore()
    seen = watch_puts(store, monkeypatch)
    assert (await store.sync(world.context().client.dmarc_reports)).fetched == 60
    assert len(seen) == 6 and not any(set(READ_INDEXES) & during for during in seen)
    assert set(READ_INDEXES) <= indexes(store._db)
    plan = " ".join(str(row) for row in store._db.execute(
        "EXPLAIN QUERY PLAN SELECT * FROM records WHERE report = 1"))
    assert "records_report" in plan  # reads find them again


async def test_a_store_that_holds_reports_keeps_its_indexes(
        world: StubWorld, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(digest_store, "GET_CHUNK", 10)
    store = DigestStore()
    client = world.context().client
    await store.sync(client.dmarc_reports)
    store.discard([world.store.all_ids(digest_store_type())[0]])  # one to fetch again
    store.mark_listed([])  # the next sync lists everything again
    seen = watch_puts(store, monkeypatch)
    assert (await store.sync(client.dmarc_reports)).fetched == 1
    assert seen and all(set(READ_INDEXES) <= during for during in seen)


async def test_a_first_fill_that_fails_still_leaves_the_indexes(
        world: StubWorld, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(digest_store, "GET_CHUNK", 10)

    async def refused(request: httpx.Request) -> httpx.Response:
        return httpx.Response(500, json={"detail": "refused"})

    world.transport.intercept = lambda request: refused if b'"report"]' in request.content else None
    store = DigestStore()
    with pytest.raises(JmapError):
        await store.sync(world.context().client.dmarc_reports)
    assert set(READ_INDEXES) <= indexes(store._db)


def test_a_file_left_without_them_gets_them_back_when_opened(tmp_path: Path) -> None:
    path = tmp_path / "d.sqlite"
    DigestStore(path).close()
    with sqlite3.connect(path) as db:  # a fill killed before its end
        for name in READ_INDEXES:
            db.execute(f"DROP INDEX {name}")
    store = DigestStore(path)
    assert set(READ_INDEXES) <= indexes(store._db)
    store.close()


def digest_store_type() -> Any:
    from jmapclient.models.objects import DMARC_EXTERNAL_REPORT

    return DMARC_EXTERNAL_REPORT
