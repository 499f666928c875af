"""Deep and end pages come from other paths than the first ones (the ordered list kept per state,
or the order read backwards): each must give exactly the page LIMIT/OFFSET would give.

The oracle is the full ordering computed here from the stored objects; the paths are forced
by lowering DIRECT_ROWS to a few rows, so 120 reports exercise all three.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from jmapclient.models.objects import DMARC_EXTERNAL_REPORT
from server_stub.methods import query as query_method
from tests.support.report_oracle import failed, holds_words, passed, reports, seq
from tests.support.stub import Stub, running_stub

RANGE_FROM, RANGE_TO = "2026-04-10T07:13:00Z", "2026-05-10T02:41:00Z"
"""An expiry range of about half the demo reports, ending part-way through an hour at both ends."""
FILTERS: dict[str, tuple[Any, Any]] = {
    "none": (None, lambda r: True),
    "failed": ({"totalFailedSessionsIsGreaterThan": 0}, lambda r: failed(r) > 0),
    "text": ({"text": "sendgrid"}, lambda r: holds_words(r, "sendgrid")),
    "expiry range": ({"expiresAtIsGreaterThan": RANGE_FROM, "expiresAtIsLessThan": RANGE_TO},
                     lambda r: RANGE_FROM < r["expiresAt"] < RANGE_TO),
}
PAGED_FILTERS = {**FILTERS, "two words": ({"text": "sendgrid net"}, lambda r: holds_words(r, "sendgrid net"))}
"""Two words have no count (only each word has): their deep pages read the order whole, once."""
SORTS: dict[str, tuple[Any, Any]] = {
    "newest": ([{"property": "receivedAt", "isAscending": False}], lambda r: (r["receivedAt"], seq(r["id"]))),
    "expiry": ([{"property": "expiresAt"}], lambda r: (r["expiresAt"], seq(r["id"]))),
    "default": (None, lambda r: seq(r["id"])),
}
DESCENDING = {"newest", "default"}
QUERY = DMARC_EXTERNAL_REPORT.method("query")
REPORTS = 120


@pytest.fixture(params=["spec", "stalwart"])
async def pstub(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[Stub]:
    monkeypatch.setattr(query_method, "DIRECT_ROWS", 4)
    monkeypatch.setattr(query_method, "RANKED_FROM", 2)
    async with running_stub(request.param, reports=REPORTS) as made:
        yield made


def _ordered(stub: Stub, filter_name: str, sort_name: str) -> list[str]:
    keep = PAGED_FILTERS[filter_name][1]
    key = SORTS[sort_name][1]
    chosen = [r for r in reports(stub).values() if keep(r)]
    return [r["id"] for r in sorted(chosen, key=key, reverse=sort_name in DESCENDING)]


async def _page(stub: Stub, filter_name: str, sort_name: str, **arguments: Any) -> dict[str, Any]:
    filter, sort = PAGED_FILTERS[filter_name][0], SORTS[sort_name][0]
    request = {"calculateTotal": True, **arguments, **({"filter": filter} if filter else {}),
               **({"sort": sort} if sort else {})}
    name, answer = await stub.call(QUERY, request)
    assert name == QUERY, answer
    return answer


@pytest.mark.parametrize("sort_name", SORTS)
@pytest.mark.parametrize("filter_name", PAGED_FILTERS)
async def test_every_page_matches_the_full_order(pstub: Stub, filter_name: str, sort_name: str):
    if sort_name == "newest" and "receivedAt" in pstub.profile.sorts_refused:
        pytest.skip("the real server does not sort by receivedAt")
    ordered = _ordered(pstub, filter_name, sort_name)
    total = len(ordered)
    assert total > 12  # enough for first, deep and end pages to be different paths
    for _ in range(2):  # the second round answers from what the first one kept
        for position in (0, 3, 5, total // 2, total - 7, total - 3, total - 1):
            page = await _page(pstub, filter_name, sort_name, position=position, limit=5)
            assert page["ids"] == ordered[position : position + 5], position
            assert (page["position"], page["total"]) == (position, total)
        for back in (1, 5, 9, total):
            page = await _page(pstub, filter_name, sort_name, position=-back, limit=5)
            assert page["ids"] == ordered[total - back : total - back + 5]
        anchored = await _page(pstub, filter_name, sort_name, anchor=ordered[total // 2], anchorOffset=-1, limit=3)
        assert anchored["ids"] == ordered[total // 2 - 1 : total // 2 + 2]
        beyond = await _page(pstub, filter_name, sort_name, position=total + 10, limit=5)
        assert beyond["ids"] == []


@pytest.mark.parametrize("middle", [False, True], ids=["within DIRECT_ROWS", "half-way"])
@pytest.mark.parametrize("sort_name", SORTS)
async def test_a_deep_page_of_two_words_reads_their_matches_once(pstub: Stub, monkeypatch: pytest.MonkeyPatch,
                                                                 sort_name: str, middle: bool):
    if sort_name == "newest" and "receivedAt" in pstub.profile.sorts_refused:
        pytest.skip("the real server does not sort by receivedAt")
    ordered = _ordered(pstub, "two words", sort_name)
    statements: list[str] = []
    for name in ("select_ids", "scalar"):
        original = getattr(pstub.store, name)
        monkeypatch.setattr(pstub.store, name, lambda sql, params, original=original:
                            statements.append(sql) or original(sql, params))
    position = len(ordered) // 2 if middle else query_method.DIRECT_ROWS
    page = await _page(pstub, "two words", sort_name, position=position, limit=5)
    assert (page["ids"], page["total"]) == (ordered[position : position + 5], len(ordered))
    # One statement: the matches listed from the words' index (the rarest word's rows, asked for the
    # other) and sorted, never the order walked asking each row; the total is their number.
    assert len(statements) == 1 and "COUNT" not in statements[0], statements
    assert statements[0].startswith("SELECT id FROM dmarc_report WHERE (seq IN (SELECT w0.seq "), statements


async def test_a_page_found_from_the_counts_is_found_again_only_after_a_write(pstub: Stub,
                                                                              monkeypatch: pytest.MonkeyPatch):
    from server_stub import ranks

    located: list[int] = []
    locate = ranks.locate
    monkeypatch.setattr(ranks, "locate", lambda *args: located.append(args[-1]) or locate(*args))
    for round in ("as seeded", "after a delete, an update and an insert"):
        if round != "as seeded":
            _write_one_report_each_way(pstub.store)
        ordered = _ordered(pstub, "expiry range", "default")
        for _ in range(3):
            page = await _page(pstub, "expiry range", "default", position=0, limit=5)
            assert (page["ids"], page["total"]) == (ordered[:5], len(ordered)), round
        assert located == [0], round  # the same page at the same state starts where it did
        located.clear()


def _few_failed(stored: list[dict[str, Any]], bound: str) -> tuple[dict[str, int], Any]:
    """A failed-total filter matched by one to five of the reports (fewer than one in DENSE_SHARE)."""
    for value in range(max(failed(r) for r in stored), -1, -1):
        filter, keep = (({"totalFailedSessionsIsGreaterThan": value}, lambda r, v=value: failed(r) > v)
                        if bound == "above" else ({"totalFailedSessions": value}, lambda r, v=value: failed(r) == v))
        if 1 <= sum(map(keep, stored)) <= 5:
            return filter, keep
    raise AssertionError("the demo reports have no such total")


@pytest.mark.parametrize("sort_name", SORTS)
@pytest.mark.parametrize("bound", ["above", "equal"])
async def test_a_few_matches_of_a_bound_are_read_through_its_own_index(pstub: Stub, monkeypatch: pytest.MonkeyPatch,
                                                                      bound: str, sort_name: str):
    if sort_name == "newest" and "receivedAt" in pstub.profile.sorts_refused:
        pytest.skip("the real server does not sort by receivedAt")
    stored = list(reports(pstub).values())
    filter, keep = _few_failed(stored, bound)
    sort, key = SORTS[sort_name]
    ordered = [r["id"] for r in sorted((r for r in stored if keep(r)), key=key, reverse=sort_name in DESCENDING)]
    statements: list[tuple[str, Any]] = []
    select_ids = pstub.store.select_ids
    monkeypatch.setattr(pstub.store, "select_ids", lambda sql, params: statements.append((sql, params))
                        or select_ids(sql, params))
    request = {"calculateTotal": True, "limit": 2, "filter": filter, **({"sort": sort} if sort else {})}
    for position in range(len(ordered)):
        page = await cold_page(pstub, request, position)
        assert (page["ids"], page["total"]) == (ordered[position : position + 2], len(ordered)), position
    with pstub.store.reading() as db:
        plans = [" ".join(str(step[-1]) for step in db.execute(f"EXPLAIN QUERY PLAN {sql}", params))
                 for sql, params in statements]
    # Neither a walk of the order's index testing every row (SQLite's guess for a one-sided bound) nor
    # a scan from a bucket of it on, which passes many rows per match when few match.
    assert plans and all("USING INDEX dmarc_report_total_failed" in plan for plan in plans), plans


async def test_a_page_within_direct_rows_of_a_domain_reads_no_whole_order(pstub: Stub,
                                                                          monkeypatch: pytest.MonkeyPatch):
    stored = list(reports(pstub).values())
    domain = stored[0]["report"]["policyDomain"]
    ordered = [r["id"] for r in sorted(stored, key=lambda r: seq(r["id"]), reverse=True)
               if r["report"]["policyDomain"].lower() == domain.lower()]
    read_whole = whole_order_reads(pstub, monkeypatch)
    position = query_method.DIRECT_ROWS  # past RANKED_FROM: its index gives the order, the rows before it are few
    page = await cold_page(pstub, {"calculateTotal": True, "limit": 2, "filter": {"domain": domain}}, position)
    assert (page["ids"], page["total"]) == (ordered[position : position + 2], len(ordered))
    assert read_whole == []


async def test_a_write_retires_the_kept_totals_and_orders(pstub: Stub):
    ordered = _ordered(pstub, "none", "expiry")
    deep = await _page(pstub, "none", "expiry", position=50, limit=3)
    assert deep["ids"] == ordered[50:53]
    name, _ = await pstub.call(DMARC_EXTERNAL_REPORT.method("set"), {"destroy": [ordered[51]]})
    assert name != "error"
    again = await _page(pstub, "none", "expiry", position=50, limit=3)
    assert again["total"] == REPORTS - 1
    assert again["ids"] == [ordered[50], *ordered[52:54]]
    if pstub.profile.query_state is None:  # the real server's is always "n"
        assert again["queryState"] != deep["queryState"]


KEPT_SHAPES = (("failed", "newest"), ("failed", "expiry"), ("failed", "default"), ("text", "expiry"),
               ("none", "expiry"), ("none", "default"))
"""As many shapes as the cache keeps lists (MAX_LISTS), so none is pushed out by another."""


def _write_one_report_each_way(store: Any) -> list[str]:
    """A delete, an update that moves a report in every order and filter, and an insert in the middle
    of the receipt order: the ids written, for the messages."""
    from server_stub.validation import stored_form

    ids = store.all_ids(DMARC_EXTERNAL_REPORT)
    kept = reports_of(store)
    assert store.delete(DMARC_EXTERNAL_REPORT, ids[len(ids) // 2])
    moved = {key: value for key, value in kept[ids[10]].items() if key != "id"}
    moved["expiresAt"] = "2099-01-02T03:04:05Z"
    for record in moved["report"]["records"].values():
        record["evaluatedDisposition"] = "none"  # failing now, whatever it was
    model = DMARC_EXTERNAL_REPORT.read(moved)
    assert store.replace(DMARC_EXTERNAL_REPORT, ids[10], model, stored_form(model))
    copy = {key: value for key, value in kept[ids[-1]].items() if key != "id"}
    copy["receivedAt"] = kept[ids[len(ids) // 3]]["receivedAt"]  # a tie in the receipt order, broken by id
    model = DMARC_EXTERNAL_REPORT.read(copy)
    return [ids[len(ids) // 2], ids[10], store.insert(DMARC_EXTERNAL_REPORT, model, stored_form(model))]


def reports_of(store: Any) -> dict[str, dict[str, Any]]:
    return store.get(DMARC_EXTERNAL_REPORT, store.all_ids(DMARC_EXTERNAL_REPORT))


def whole_order_reads(pstub: Stub, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The statements from now on that read ids with no LIMIT: a whole order, which a page must not need."""
    read_whole: list[str] = []
    select_ids = pstub.store.select_ids
    monkeypatch.setattr(pstub.store, "select_ids",
                        lambda sql, params: (read_whole.append(sql) if "LIMIT" not in sql else None)
                        or select_ids(sql, params))
    return read_whole


async def cold_page(pstub: Stub, request: dict[str, Any], position: int) -> dict[str, Any]:
    """The page at ``position`` with nothing kept (the first query after a start); a bound the
    profile does not offer skips the test."""
    pstub.store.results.clear()
    name, page = await pstub.call(QUERY, {**request, "position": position})
    if name == "error" and page["type"] == "unsupportedFilter":
        pytest.skip("the profile has no such bound")
    assert name == QUERY, page
    return page


async def test_kept_orders_and_totals_follow_each_write_of_one_report(pstub: Stub, monkeypatch: pytest.MonkeyPatch):
    shapes = [(f, s) for f, s in KEPT_SHAPES if not (s == "newest" and "receivedAt" in pstub.profile.sorts_refused)]
    for filter_name, sort_name in shapes:  # every shape's order is read whole once, and kept
        total = len(_ordered(pstub, filter_name, sort_name))
        await _page(pstub, filter_name, sort_name, position=total // 2, limit=5)
    read_whole = whole_order_reads(pstub, monkeypatch)
    written = _write_one_report_each_way(pstub.store)
    for filter_name, sort_name in shapes:
        ordered = _ordered(pstub, filter_name, sort_name)
        total = len(ordered)
        for position in (0, 3, 9, total // 3, total // 2, total - 7):
            page = await _page(pstub, filter_name, sort_name, position=position, limit=5)
            assert page["ids"] == ordered[position : position + 5], (filter_name, sort_name, position, written)
            assert page["total"] == total
    assert read_whole == []  # each deep page came from the kept order, moved across the writes


async def test_a_write_that_fails_forgets_what_was_kept(pstub: Stub):
    ordered = _ordered(pstub, "none", "default")
    await _page(pstub, "none", "default", position=len(ordered) // 2, limit=5)
    with pytest.raises(RuntimeError), pstub.store._row_write(DMARC_EXTERNAL_REPORT, seq(ordered[7])) as (db, row):
        db.execute("DELETE FROM dmarc_report WHERE seq = ?", (row,))
        raise RuntimeError("the write fails after the kept order was moved")
    page = await _page(pstub, "none", "default", position=len(ordered) // 2, limit=5)
    assert page["ids"] == ordered[len(ordered) // 2 : len(ordered) // 2 + 5]


COUNTED_FILTERS = {
    **FILTERS,  # a failed total above zero: counted as one key
    "passed>1": ({"totalSuccessfulSessionsIsGreaterThan": 1}, lambda r: passed(r) > 1),  # a key per value
    "passed>=1": ({"totalSuccessfulSessionsIsGreaterThanOrEqual": 1}, lambda r: passed(r) >= 1),
    "failed<3": ({"totalFailedSessionsIsLessThan": 3}, lambda r: failed(r) < 3),  # with the zeros
    "failed=2": ({"totalFailedSessions": 2}, lambda r: failed(r) == 2),
    "failed<=4": ({"totalFailedSessionsIsGreaterThan": 1, "totalFailedSessionsIsLessThanOrEqual": 4},
                  lambda r: 1 < failed(r) <= 4),
}


@pytest.mark.parametrize("sort_name", SORTS)
@pytest.mark.parametrize("filter_name", COUNTED_FILTERS)
async def test_cold_deep_pages_start_where_the_counts_say(pstub: Stub, monkeypatch: pytest.MonkeyPatch,
                                                          filter_name: str, sort_name: str):
    await _check_cold_deep_pages(pstub, monkeypatch, filter_name, sort_name)


@pytest.mark.parametrize("bucketed_stub", ["months"], indirect=True)  # hours: the test above
@pytest.mark.parametrize("sort_name", SORTS)
@pytest.mark.parametrize("filter_name", COUNTED_FILTERS)
async def test_cold_deep_pages_inside_wide_buckets(bucketed_stub: Stub, monkeypatch: pytest.MonkeyPatch,
                                                   filter_name: str, sort_name: str):
    await _check_cold_deep_pages(bucketed_stub, monkeypatch, filter_name, sort_name)


async def _check_cold_deep_pages(pstub: Stub, monkeypatch: pytest.MonkeyPatch, filter_name: str, sort_name: str):
    if sort_name == "newest" and "receivedAt" in pstub.profile.sorts_refused:
        pytest.skip("the real server does not sort by receivedAt")
    keep, key = COUNTED_FILTERS[filter_name][1], SORTS[sort_name][1]
    read_whole = whole_order_reads(pstub, monkeypatch)
    filter, sort = COUNTED_FILTERS[filter_name][0], SORTS[sort_name][0]
    request = {"calculateTotal": True, "limit": 4, **({"filter": filter} if filter else {}),
               **({"sort": sort} if sort else {})}
    for round in ("as seeded", "after a delete, an update and an insert"):  # the counts follow each write
        if round != "as seeded":
            _write_one_report_each_way(pstub.store)
        chosen = [r for r in reports(pstub).values() if keep(r)]
        ordered = [r["id"] for r in sorted(chosen, key=key, reverse=sort_name in DESCENDING)]
        for position in range(len(ordered)):  # first and last pages too: some orders would sort them all
            page = await cold_page(pstub, request, position)
            assert page["ids"] == ordered[position : position + 4], (round, position)
    assert read_whole == []  # every page started from the counts, none read the whole order


@pytest.fixture(params=["hours", "months"])
async def bucketed_stub(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[Stub]:
    """The spec stub, counted by the usual buckets or by months (then many rows share one, and the
    range starts inside a bucket; a range along another order is counted by whole months and days,
    and the rows of the days it ends in are read)."""
    from server_stub import ranks, tallies

    monkeypatch.setattr(query_method, "DIRECT_ROWS", 4)
    monkeypatch.setattr(query_method, "RANKED_FROM", 2)
    if request.param == "months":
        monkeypatch.setitem(tallies.RANK_LEVELS, "time", (4, 7))
        monkeypatch.setattr(tallies, "RANGE_LENGTHS", (7, 10))
        monkeypatch.setattr(ranks, "RANGE_LENGTHS", (7, 10))
    async with running_stub("spec", reports=REPORTS) as made:
        yield made


RANGE_SORTS = {
    "expiry": ([{"property": "expiresAt", "isAscending": True}], lambda r: (r["expiresAt"], seq(r["id"])), False),
    "expiry, latest first": ([{"property": "expiresAt", "isAscending": False}],
                             lambda r: (r["expiresAt"], seq(r["id"])), True),
    "newest": ([{"property": "receivedAt", "isAscending": False}], lambda r: (r["receivedAt"], seq(r["id"])), True),
    "oldest": ([{"property": "receivedAt", "isAscending": True}], lambda r: (r["receivedAt"], seq(r["id"])), False),
    "default": (None, lambda r: seq(r["id"]), True),
    "id": ([{"property": "id", "isAscending": True}], lambda r: seq(r["id"]), False),
}


def _expiry_bounds(stored: list[dict[str, Any]], bounds: str) -> tuple[dict[str, str], Any]:
    """A filter on expiry between two stored values (so a bound's own rows test inclusive and
    exclusive), or from or until one, or equal to one; and its oracle."""
    expiry = sorted(r["expiresAt"] for r in stored)
    low, high = expiry[len(expiry) // 5], expiry[len(expiry) * 4 // 5]
    return {
        "open": ({"expiresAtIsGreaterThan": low, "expiresAtIsLessThan": high}, lambda e: low < e < high),
        "closed": ({"expiresAtIsGreaterThanOrEqual": low, "expiresAtIsLessThanOrEqual": high},
                   lambda e: low <= e <= high),
        "from": ({"expiresAtIsGreaterThanOrEqual": low}, lambda e: e >= low),
        "until": ({"expiresAtIsLessThan": high}, lambda e: e < high),
        "equal": ({"expiresAt": low}, lambda e: e == low),
    }[bounds]


@pytest.mark.parametrize("sort_name", RANGE_SORTS)
@pytest.mark.parametrize("bounds", ["open", "closed", "from", "until", "equal"])
async def test_cold_pages_of_an_expiry_range_in_every_order(bucketed_stub: Stub, monkeypatch: pytest.MonkeyPatch,
                                                            bounds: str, sort_name: str):
    pstub = bucketed_stub
    sort, key, descending = RANGE_SORTS[sort_name]
    read_whole = whole_order_reads(pstub, monkeypatch)
    for round in ("as seeded", "after a delete, an update and an insert"):  # the counts follow each write
        if round != "as seeded":
            _write_one_report_each_way(pstub.store)
        stored = list(reports(pstub).values())
        filter, keep = _expiry_bounds(stored, bounds)
        chosen = [r for r in stored if keep(r["expiresAt"])]
        ordered = [r["id"] for r in sorted(chosen, key=key, reverse=descending)]
        assert ordered
        request = {"calculateTotal": True, "limit": 4, "filter": filter, **({"sort": sort} if sort else {})}
        for position in range(len(ordered) + 1):  # first, every deep one, last, and past the end
            page = await cold_page(pstub, request, position)
            assert (page["ids"], page["total"]) == (ordered[position : position + 4], len(ordered)), (round, position)
        # Along its own order the range is one run, found from all rows' counts; along another, from its
        # days' and hours' counts per bucket of that order. No page of many matches sorted them all
        # (a few, one expiry, are found by its index and sorted: their cost is their number).
        if len(ordered) * query_method.DENSE_SHARE >= len(stored):
            assert read_whole == [], round
        read_whole.clear()


async def test_words_are_listed_from_the_rarest_word_whatever_their_order(pstub: Stub,
                                                                          monkeypatch: pytest.MonkeyPatch):
    # "net" is held by most reports, "sendgrid" by few: a search is listed from sendgrid's rows and
    # only those are asked for net, so its cost follows the rarest word, not the store (issue #33).
    statements: list[tuple[str, tuple[Any, ...]]] = []
    for name in ("select_ids", "scalar"):
        original = getattr(pstub.store, name)
        monkeypatch.setattr(pstub.store, name, lambda sql, params, original=original:
                            statements.append((sql, tuple(params))) or original(sql, params))
    want = _ordered(pstub, "two words", "default")
    for text in ("net sendgrid", "sendgrid net", "NET  sendgrid sendgrid"):
        statements.clear()
        name, page = await pstub.call(QUERY, {"filter": {"text": text}, "calculateTotal": True, "position": 0})
        assert name == QUERY, page
        assert (page["ids"], page["total"]) == (want, len(want))
        assert statements and all(params[:2] == ("sendgrid", "net") for _, params in statements), statements
    name, page = await pstub.call(QUERY, {"filter": {"text": "sendgrid nosuchword"}, "calculateTotal": True})
    assert (page["ids"], page["total"]) == ([], 0)
