"""A first visit whose listing finds the period's cut counts what the store already held without listing
the older reports it leaves out: the progress says as many cached as a sync that read them all."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from datetime import timedelta

import httpx
import pytest

from jmapclient.dmarc import digest_store
from jmapclient.dmarc.digest_store import DigestStore, SyncProgress
from jmapclient.models.objects import DMARC_EXTERNAL_REPORT
from jmapclient.paging import QueryPage
from tests.support.clock import FROZEN_NOW
from tests.support.console import PROFILES, StubWorld, make_world, reports_for_period

FIRST = FROZEN_NOW.date() - timedelta(days=6)


@pytest.fixture(params=PROFILES)
def world(request: pytest.FixtureRequest) -> Iterator[StubWorld]:
    made = make_world(str(request.param), reports=200)
    yield made
    made.store.close()


async def test_a_cut_first_visit_counts_the_held_reports_as_cached(
        world: StubWorld, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(digest_store, "LIST_PAGE", 5)  # the cut on the sixth page, 34 more listed after it
    monkeypatch.setattr(digest_store, "GET_CHUNK", 5)

    async def listed_slowly(request: httpx.Request) -> httpx.Response:
        await asyncio.sleep(0.01)  # the gets are answered (and stored) while the listing goes on
        return await world.transport.inner.handle_async_request(request)

    world.transport.intercept = lambda request: listed_slowly if b"/query" in request.content else None
    wanted = reports_for_period(world, FIRST)
    ids = world.store.all_ids(DMARC_EXTERNAL_REPORT)
    held = sorted(wanted)[:7]  # some of the period's reports already stored, no listing kept
    store = DigestStore()
    session = await world.context().client.session()  # bound as the sync binds it, so it keeps what it holds
    store.bind("\n".join((session.api_url, session.capability, session.account_id or "", session.username)))
    store.put_wires([{"id": i, **wire} for i, wire in world.store.get(DMARC_EXTERNAL_REPORT, held).items()])
    steps: list[SyncProgress] = []
    result = await store.sync(world.context().client.dmarc_reports, progress=steps.append, since=FIRST)
    fetching = [step for step in steps if step.phase == "fetching"]
    assert 0 < len(wanted) < len(ids) and result.fetched == len(wanted) - len(held)
    assert fetching and {step.cached for step in fetching} == {len(held)}
    assert fetching[-1].done == fetching[-1].total == len(wanted) - len(held)
    assert len(store) == len(wanted)
    assert fetching[0].done > 0  # some were stored before the listing ended: counted as fetched, not cached


def test_an_unranked_listing_keeps_its_own_order_for_the_reports_it_lacks() -> None:
    """A listing the client narrowed has no ranks: the reports not stored are then fetched (and cut at the
    period) in the listing's order, newest first, not in the order of their ids as text."""
    store = DigestStore()
    ids = ["r10", "r9", "r3", "r21", "r1"]  # newest first; as text: r1 < r10 < r21 < r3 < r9
    listing = digest_store._Listing(store, '{"domain": "example.org"}')
    listing.add(QueryPage(position=0, ids=ids, scanned=5, scanned_total=None, narrowed=True))
    listing.commit(forget_unlisted=False)
    assert [i for (i,) in store._db.execute(digest_store._MISSING)] == ids
    ranked = digest_store._Listing(store, "{}")  # ranked: by rank, whatever the order rows were laid in
    ranked.add(QueryPage(position=0, ids=ids, scanned=5, total=5, scanned_total=5))
    ranked.commit(forget_unlisted=True)
    assert [i for (i,) in store._db.execute(digest_store._MISSING)] == ids
