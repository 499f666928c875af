"""The kept listing: a visit lists only down to what it already knows, and still sees every change.

Pages are made small here (``LIST_PAGE``), so 60 reports are six pages and a listing that
stops early is told from one that reads everything by the requests it sends. Every
scenario ends by comparing the store with the server's own ids: the oracle.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from datetime import date
from pathlib import Path

import pytest

from jmapclient.dmarc import digest_store
from jmapclient.dmarc.analytics import RecordDigest, ReportDigest
from jmapclient.dmarc.digest_store import DigestStore, SyncProgress
from jmapclient.encoding import parse_utc
from jmapclient.models.objects import DMARC_EXTERNAL_REPORT
from jmapclient.objects import ObjectApi
from server_stub.demo_data import add_demo_reports
from tests.support.clock import FROZEN_NOW
from tests.support.console import PROFILES, StubWorld, make_world

EVERYTHING = (date(2000, 1, 1), date(2100, 1, 1))
PAGE = 10
PROBE = 4
"""The first look at a kept listing: fewer ids than a page, so reading on from it is exercised."""
REPORTS = 60


@pytest.fixture(params=PROFILES)
def world(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[StubWorld]:
    monkeypatch.setattr(digest_store, "LIST_PAGE", PAGE)
    monkeypatch.setattr(digest_store, "PROBE", PROBE)
    made = make_world(str(request.param), reports=REPORTS)
    yield made
    made.store.close()


def api(world: StubWorld) -> ObjectApi:
    return world.context().client.dmarc_reports


def server_ids(world: StubWorld) -> set[str]:
    return set(world.store.all_ids(DMARC_EXTERNAL_REPORT))


def counted(store: DigestStore) -> set[str]:
    """The ids the figures count: the listed reports."""
    return {d.id for d in store.digests(*EVERYTHING)}


async def sync_counting(store: DigestStore, world: StubWorld, reports: ObjectApi) -> tuple[int, int]:
    """(other requests, get requests) of one sync; after the client's first, the others are queries."""
    before_requests = world.transport.requests
    result = await store.sync(reports)
    requests = world.transport.requests - before_requests
    gets = -(-result.fetched // digest_store.GET_CHUNK) if result.fetched else 0
    return requests - gets, gets


async def test_an_unchanged_server_costs_one_query_also_after_a_restart(world: StubWorld, tmp_path: Path) -> None:
    path = tmp_path / "d.sqlite"
    store = DigestStore(path)
    reports = api(world)
    queries, gets = await sync_counting(store, world, reports)
    assert queries > REPORTS // PAGE and gets == 1  # the session's discovery, then every page
    assert await sync_counting(store, world, reports) == (1, 0)
    store.close()
    reopened = DigestStore(path)
    assert await sync_counting(reopened, world, reports) == (1, 0)
    assert counted(reopened) == server_ids(world)
    assert reopened.figures(*EVERYTHING, limit=1).overview.reports == REPORTS


async def test_an_arrival_costs_the_pages_down_to_it(world: StubWorld) -> None:
    store = DigestStore()
    reports = api(world)
    await store.sync(reports)
    add_demo_reports(world.store, 3, random.Random(5), FROZEN_NOW)
    assert await sync_counting(store, world, reports) == (1, 1)  # fewer than the first look: one query, one get
    add_demo_reports(world.store, PROBE + PAGE, random.Random(6), FROZEN_NOW)
    assert await sync_counting(store, world, reports) == (3, 1)  # the look, one page, the page reaching known ids
    assert counted(store) == server_ids(world) and len(counted(store)) == REPORTS + 3 + PROBE + PAGE
    assert await sync_counting(store, world, reports) == (1, 0)


@pytest.mark.parametrize(("which", "told", "queries"), [(0, False, 1 + REPORTS // PAGE), (5, True, 1), (-1, False, 1)])
async def test_a_deletion_is_seen_and_the_next_visit_is_one_query_again(world: StubWorld, which: int, told: bool,
                                                                        queries: int) -> None:
    """The oldest (read down to it), one deleted here (the inbox tells the store), the newest (in the first look)."""
    store = DigestStore()
    reports = api(world)
    await store.sync(reports)
    victim = world.store.all_ids(DMARC_EXTERNAL_REPORT)[which]
    await reports.destroy([victim])
    if told:
        store.discard([victim])  # what the inbox does after deleting
    before = world.transport.requests
    result = await store.sync(reports)
    assert world.transport.requests - before == queries
    assert result.forgotten == (0 if told else 1) and victim not in store
    assert counted(store) == server_ids(world)
    assert await sync_counting(store, world, reports) == (1, 0)


def missing_searches(store: DigestStore) -> list[str]:
    """Statements of the store that look for listed reports not stored yet (a scan of the whole listing)."""
    seen: list[str] = []
    store._db.set_trace_callback(lambda sql: seen.append(sql) if "NOT EXISTS" in sql else None)
    return seen


async def test_a_listing_that_changed_nothing_does_not_search_for_missing_reports(world: StubWorld) -> None:
    store = DigestStore()
    reports = api(world)
    await store.sync(reports)
    searches = missing_searches(store)
    assert await sync_counting(store, world, reports) == (1, 0)
    assert searches == []
    add_demo_reports(world.store, 1, random.Random(5), FROZEN_NOW)
    await store.sync(reports)  # an arrival: the listing changed, so what is missing is looked for
    assert searches and counted(store) == server_ids(world)
    searches.clear()
    await store.sync(reports)
    assert searches == []


async def test_a_sync_stopped_while_fetching_fetches_the_rest_next_time(world: StubWorld,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(digest_store, "GET_CHUNK", 10)
    store = DigestStore()

    async def stop_after_a_get(step: SyncProgress) -> None:
        if step.phase == "fetching" and step.done:
            raise RuntimeError("stopped")  # as a cancelled worker would, between two gets

    with pytest.raises(RuntimeError):
        await store.sync(api(world), progress=stop_after_a_get)
    stored = len(store)  # the gets answered before it stopped (some while the listing went on)
    assert 0 < stored < REPORTS
    result = await store.sync(api(world))
    assert result.fetched == REPORTS - stored and counted(store) == server_ids(world)


@pytest.mark.parametrize("change", ["arrival", "deletion", "both"])
async def test_a_change_between_two_pages_is_caught_by_the_next_visit(world: StubWorld, change: str) -> None:
    store = DigestStore()
    reports = api(world)
    await store.sync(reports)
    add_demo_reports(world.store, 1, random.Random(4), FROZEN_NOW)  # so this visit reads past its first page
    done: list[str] = []

    async def change_while_listing(step: SyncProgress) -> None:
        if step.phase == "listing" and not done:  # after the first page, before the second
            done.append(change)
            if change != "deletion":
                add_demo_reports(world.store, 1, random.Random(3), FROZEN_NOW)
            if change != "arrival":
                await api(world).destroy([world.store.all_ids(DMARC_EXTERNAL_REPORT)[2]])

    await store.sync(api(world), progress=change_while_listing)
    assert done
    await store.sync(api(world))
    assert counted(store) == server_ids(world)
    assert await sync_counting(store, world, reports) == (1, 0)


@pytest.mark.parametrize("change", ["arrival", "deletion of a fetched one", "deletion of a listed one"])
async def test_a_change_during_a_first_visit_is_caught_by_the_next(world: StubWorld, change: str) -> None:
    """A first visit fetches each page's reports while it lists the next: a report that arrives, or one
    deleted after it was fetched or listed, is set right by the next visit."""
    store = DigestStore()
    reports = api(world)
    done: list[str] = []

    async def change_while_listing(step: SyncProgress) -> None:
        if step.phase == "listing" and step.done >= 3 * PAGE and not done:
            done.append(change)
            ids = world.store.all_ids(DMARC_EXTERNAL_REPORT)
            if change == "arrival":
                add_demo_reports(world.store, 1, random.Random(3), FROZEN_NOW)
            else:  # the newest pages were fetched meanwhile; the oldest not listed yet
                await api(world).destroy([ids[-1] if change == "deletion of a fetched one" else ids[-2 * PAGE]])

    await store.sync(reports, progress=change_while_listing)
    assert done
    await store.sync(reports)
    assert counted(store) == server_ids(world)
    assert await sync_counting(store, world, reports) == (1, 0)


@pytest.mark.parametrize("seed", [1, 2, 3])
async def test_random_arrivals_and_deletions_always_match_the_server(world: StubWorld, tmp_path: Path,
                                                                      seed: int) -> None:
    rng = random.Random(seed)
    path = tmp_path / "d.sqlite"
    store = DigestStore(path)
    await store.sync(api(world))
    for step in range(8):  # bounded: eight rounds of changes, each checked against the server
        ids = world.store.all_ids(DMARC_EXTERNAL_REPORT)
        doomed = rng.sample(ids, rng.randint(0, min(4, len(ids))))
        if doomed:
            await api(world).destroy(doomed)
            if rng.random() < 0.5:
                store.discard(doomed[:1])  # some deleted from the console, the rest elsewhere
        add_demo_reports(world.store, rng.randint(0, 3), random.Random(seed * 100 + step), FROZEN_NOW)
        if rng.random() < 0.3:
            store.close()
            store = DigestStore(path)  # a restart
        await store.sync(api(world))
        assert counted(store) == server_ids(world)
        figures = store.figures(*EVERYTHING, limit=1)
        assert figures.overview.reports == len(server_ids(world))


async def test_figures_are_kept_in_the_file_for_a_console_started_again(
    world: StubWorld, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "d.sqlite"
    store = DigestStore(path)
    reports = api(world)
    await store.sync(reports)
    shown = store.figures(*EVERYTHING, limit=5)
    store.close()
    reopened = DigestStore(path)
    await reopened.sync(reports)  # nothing changed on the server

    def no_aggregation(*_: object) -> None:
        raise AssertionError("aggregated again")

    monkeypatch.setattr(reopened, "_aggregate", no_aggregation)
    assert reopened.figures(*EVERYTHING, limit=5) == shown
    monkeypatch.undo()
    add_demo_reports(world.store, 2, random.Random(8), FROZEN_NOW)
    await reopened.sync(reports)  # the kept figures no longer hold
    assert reopened.figures(*EVERYTHING, limit=5).overview.reports == REPORTS + 2
    reopened.close()
    assert DigestStore(path).figures(*EVERYTHING, limit=5).overview.reports == REPORTS + 2


def test_kept_figures_that_do_not_read_back_are_aggregated_again(tmp_path: Path) -> None:
    import sqlite3

    path = tmp_path / "d.sqlite"
    store = DigestStore(path)
    begin = parse_utc("2026-03-01T00:00:00Z")
    store.put([ReportDigest(id="a", reporter="r", report_id="x", policy_domain="d.test", begin=begin, end=begin,
                            records=(RecordDigest("192.0.2.1", 3, "none", "fail", "fail", "d.test", "d.test"),))])
    store.mark_listed(["a"])
    first = store.figures(*EVERYTHING, limit=5)
    store.close()
    raw = sqlite3.connect(path)
    raw.execute("UPDATE figures SET body = '{\"not\": \"figures\"}'")
    raw.commit()
    raw.close()
    assert DigestStore(path).figures(*EVERYTHING, limit=5) == first


async def test_a_filtered_listing_is_read_in_full_every_time(world: StubWorld) -> None:
    """A filter's reports may change by an update, unseen by ranks: such a listing is never continued."""
    store = DigestStore()
    reports = api(world)
    everything_after_2000 = {"expiresAtIsGreaterThan": "2000-01-01T00:00:00Z"}  # both profiles accept it
    await store.sync(reports, everything_after_2000)
    before = world.transport.requests
    await store.sync(reports, everything_after_2000)
    assert world.transport.requests - before == REPORTS // PAGE
    assert counted(store) == server_ids(world)
