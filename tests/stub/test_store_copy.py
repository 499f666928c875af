"""``Store.copy_from``: a store made a page copy of another, as the tests start from seeded data.

``tests/support/seeding.py`` seeds the demo data once per process and copies it into each new
store; these tests hold that a copy is exactly what seeding would have written (also under
narrowed tally buckets), that it is a store of its own, and that it forgets kept query results.
"""

from __future__ import annotations

import pytest

from jmapclient.models.objects import DMARC_EXTERNAL_REPORT
from server_stub import ranks, tallies
from server_stub.demo_data import seed_store
from server_stub.store import Store
from tests.support.fuzz_stub import snapshot
from tests.support.seeding import seed_fresh


def _seeded(reports: int) -> Store:
    store = Store()
    seed_store(store, reports=reports)
    return store


@pytest.mark.parametrize("buckets", ["usual", "months"])
def test_a_copy_holds_every_row_seeding_writes(monkeypatch: pytest.MonkeyPatch, buckets: str):
    if buckets == "months":  # as tests/stub/test_query_paths.py narrows them: other counts are stored
        monkeypatch.setitem(tallies.RANK_LEVELS, "time", (4, 7))
        monkeypatch.setattr(tallies, "RANGE_LENGTHS", (7, 10))
        monkeypatch.setattr(ranks, "RANGE_LENGTHS", (7, 10))
    first, second = Store(), Store()
    summary = seed_fresh(first, reports=25)
    assert seed_fresh(second, reports=25) == summary  # the second one is the copy
    assert summary.reports == 25 and summary.secrets
    expected = _seeded(25)
    assert snapshot(first) == snapshot(second) == snapshot(expected)
    assert second.state(DMARC_EXTERNAL_REPORT) == expected.state(DMARC_EXTERNAL_REPORT)


def test_a_copy_is_a_store_of_its_own():
    template, copy = _seeded(5), Store()
    copy.copy_from(template)
    [gone, *kept] = copy.all_ids(DMARC_EXTERNAL_REPORT)
    copy.delete(DMARC_EXTERNAL_REPORT, gone)
    assert copy.all_ids(DMARC_EXTERNAL_REPORT) == kept
    assert template.all_ids(DMARC_EXTERNAL_REPORT) == [gone, *kept]


def test_a_copy_forgets_what_was_kept_of_earlier_queries():
    """Kept results are found by state: the copied rows may carry the very state number they were kept at."""
    store = _seeded(5)
    state = store.state(DMARC_EXTERNAL_REPORT)
    key = ("dmarc_report", "a filter", "an order")
    store.results.totals.put(key, state, 5)
    store.copy_from(_seeded(3))
    assert store.state(DMARC_EXTERNAL_REPORT) == state
    assert store.results.totals.get(key, state) is None
