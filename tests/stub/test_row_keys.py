"""Many rows' tally keys counted at once are what each row's keys add up to (``tallies.RowKeys``, issue #33).

Rows stored together share their sort buckets, so their rank keys are made once for each place and bucket;
the counts must not change by it. The totals the counts give are held to the stored reports in
``test_query_tallies``."""

from __future__ import annotations

from collections import Counter
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from server_stub import tallies
from server_stub.schema import REPORT_SCHEMA

TIMES = st.one_of(st.none(), st.sampled_from(["2026-03-01T00:00:00Z", "2026-03-01T00:59:59Z", "2026-03-02T13:05:00Z",
                                              "2025-12-31T23:59:59Z"]))
ROW = st.fixed_dictionaries({
    "received_at": TIMES,
    "expires_at": TIMES,
    "total_failed": st.one_of(st.none(), st.integers(0, 3)),
    "total_successful": st.integers(0, 3),
    "seq": st.integers(1, 10_000),
})
WORDS = st.lists(st.sampled_from(["com", "example", "dmarc", "reporter", "bounce"]), unique=True, max_size=4)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(ROW, WORDS), max_size=40))
def test_rows_counted_together_add_up_to_each_rows_keys(rows: list[tuple[dict[str, Any], list[str]]]) -> None:
    together = tallies.RowKeys(REPORT_SCHEMA.tallied, REPORT_SCHEMA.ranked)
    one_by_one: Counter[tallies.Key] = Counter()
    for values, words in rows:
        together.add(values, words)
        one_by_one.update(tallies.keys(values, REPORT_SCHEMA.tallied, words, REPORT_SCHEMA.ranked))
    assert together.counts() == one_by_one
