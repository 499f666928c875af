"""``x:<Type>/query`` (RFC 8620 §5.5), answered from the indexed columns."""

from __future__ import annotations

from typing import Any

from jmapclient.models.objects import ObjectType
from server_stub import ranks, tallies
from server_stub.filters import Order, QueryProblem, Sql, compile_filter, compile_sort, is_json_int
from server_stub.methods.context import (
    QUERY_LIMIT_CAP,
    CallContext,
    MethodFailure,
    check_account,
    check_arguments,
)
from server_stub.schema import TableSchema, schema_for
from server_stub.storage_order import storage_order_ids
from server_stub.tallies import ALL_ROWS

ARGUMENTS = {"accountId", "filter", "sort", "position", "anchor", "anchorOffset", "limit", "calculateTotal"}


def _int_argument(arguments: dict[str, Any], name: str, default: int | None, *, minimum: int | None = None) -> Any:
    value = arguments.get(name, default)
    if value is None:
        return default
    # Out-of-range numbers are refused here: SQLite cannot bind them (it used to answer serverFail).
    if not is_json_int(value) or (minimum is not None and value < minimum):
        bound = f" from {minimum} to 2^53 - 1" if minimum is not None else " within ±(2^53 - 1)"
        raise MethodFailure("invalidArguments", f"{name} is a whole number{bound}")
    return value


DIRECT_ROWS = 2_000
"""Pages within this many rows of either end are read straight from an index that gives the order
(LIMIT/OFFSET forwards, or backwards in the reversed order); others from the kept ordered id list."""

RANKED_FROM = 200
"""A page further than this from either end, with no ordered list kept, starts where the tally's
bucket counts place it (:mod:`server_stub.ranks`), when they can: a filtered OFFSET tests every row
it skips, so even a page inside DIRECT_ROWS costs its position there."""


def _reads_every_match(step: str) -> bool:
    """A plan step whose cost grows with the matches, whatever the page: a sort of them all, or a
    word subquery's list, which SQLite builds whole before the first row (``text``)."""
    return ("TEMP B-TREE FOR" in step and "ORDER BY" in step) or step.startswith("LIST SUBQUERY")


DENSE_SHARE = 20
"""A filter matched by at least one row in this many is read along the sort's own index, testing each
row: a page then costs at most this many rows per id, at any size. Fewer matches are found through
the filter's index (or search words) and sorted: their cost is their number."""


def _dense(context: CallContext, object_type: ObjectType, total: int | None) -> bool:
    """Whether at least one row in DENSE_SHARE matches (counted: ``total`` is known)."""
    return total is not None and total * DENSE_SHARE >= context.store.tally_total(object_type, ALL_ROWS)


def _source(context: CallContext, object_type: ObjectType, schema: TableSchema, where: Sql, order: Order,
            total: int | None) -> tuple[str, str]:
    """(FROM clause, WHERE text) to read this filter's matches in this order, chosen by how many match."""
    table = schema.table
    indexed = order.leading == "seq" or any(column.name == order.leading for column in schema.columns)
    if where.few is not None and total is not None and not _dense(context, object_type, total):
        # Few rows hold the words: listed from the word index (a walk would ask every row for them).
        return table, where.few
    if where.tally is None or total is None or not indexed:
        return table, where.text
    if not _dense(context, object_type, total):
        if where.tally.column is not None:
            # The bound's own index, named: SQLite guesses a one-sided bound (failed > 6) holds a
            # quarter of the rows and walks the order's index to spare a sort, passing every row.
            return f"{table} INDEXED BY {table}_{where.tally.column}", where.text
        return table, where.for_few
    if where.tally.column is not None and schema.tallied.get(where.tally.column) == "prefix":
        # A time range is not spread evenly along another order: expiry follows receipt, so a walk
        # newest first would pass every later report before the range. It is found by its index.
        return table, where.text
    # Many matches: walk the order's index (the rowid for seq), never the filter's index and a sort.
    return (f"{table} NOT INDEXED" if order.leading == "seq" else f"{table} INDEXED BY {table}_{order.leading}",
            where.text)


def _index_gives_order(context: CallContext, source: str, condition: str, params: tuple[Any, ...],
                       order: Order) -> bool:
    """Whether SQLite reads this filter in this order from an index, without sorting all matches
    first (a page then costs its rows, not the matches). Decided once per statement shape."""
    plans = context.store.results.plans
    key = (source, condition, order.sql)
    known = plans.get(key)
    if known is None:
        with context.store.reading() as db:
            steps = db.execute(f"EXPLAIN QUERY PLAN SELECT id FROM {source} WHERE {condition} "
                               f"ORDER BY {order.sql} LIMIT 1", params).fetchall()
        known = not any(_reads_every_match(str(step[-1])) for step in steps)
        plans.put(key, known)
    return known


def _page(
    context: CallContext, object_type: ObjectType, where: Sql, order: Order, position: int, anchor: str | None,
    anchor_offset: int, limit: int, calculate_total: bool,
) -> tuple[str, int | None, int, list[str]]:
    """(queryState, total or None, the resolved position, the page's ids)."""
    store = context.store
    cache = store.results
    query_state = store.state(object_type)
    schema = schema_for(object_type)
    table = schema.table
    matches = (table, where.text, where.params)

    total = cache.totals.get(matches, query_state)
    if total is None and where.tally is not None:  # counted without reading the matches
        total = store.tally_total(object_type, where.tally)
        cache.totals.put(matches, query_state, total)
    source, condition = _source(context, object_type, schema, where, order, total)

    list_key = (*matches, order.sql)

    def ordered() -> list[str]:
        kept = cache.lists.get(list_key, query_state)
        # Every match is read: search words find them from their index and they are sorted, rather
        # than the order walked whole asking each row whether it holds them (twice the time).
        whole, test = (table, where.few) if where.few is not None else (source, condition)
        return kept if kept is not None else cache.keep_list(list_key, query_state, store.select_ids(
            f"SELECT id FROM {whole} WHERE {test} ORDER BY {order.sql}", where.params))

    direct = _index_gives_order(context, source, condition, where.params, order)
    # No count to start from (two words, OR, a domain): a page past DIRECT_ROWS reads every match
    # anyway, and the total comes with them, rather than from a count that reads them all first. So
    # does one past RANKED_FROM of search words: its OFFSET walk tests each row it passes, many per
    # match when the words are rare. (A domain's OFFSET reads only its own rows, in order.)
    words = where.few is not None
    whole_anyway = where.tally is None and (anchor is not None or position > DIRECT_ROWS
                                            or (words and position > RANKED_FROM))
    if total is None and (not direct or whole_anyway):
        total = len(ordered())  # every match is read to sort them anyway: the count comes free
        cache.totals.put(matches, query_state, total)
    elif total is None and (calculate_total or position < 0 or anchor is not None or position > DIRECT_ROWS):
        total = int(store.scalar(f"SELECT COUNT(*) FROM {table} WHERE {where.for_few}", where.params))
        cache.totals.put(matches, query_state, total)

    if anchor is not None:
        try:
            index = ordered().index(anchor)
        except ValueError:
            raise MethodFailure("anchorNotFound", f"{anchor!r} is not in the results") from None
        position = max(0, index + anchor_offset)
    elif position < 0:
        position = max(0, (total or 0) + position)
    start = None
    kept = cache.lists.get(list_key, query_state) is not None
    # Where many matches would otherwise be read whole and sorted (``not direct``), every page tries
    # the counts; elsewhere only the deep ones: the first and last are read straight from an index.
    # (Few matches cost their number, sorted; read from a bucket on, a page would pass many rows.)
    sorts_many = not direct and _dense(context, object_type, total)
    if total and not kept and (sorts_many or RANKED_FROM < position < total - limit - RANKED_FROM):
        start = cache.starts.get((*list_key, position), query_state)
        if start is None:
            with store.reading() as db:
                start = ranks.locate(db, table, schema.ranked, schema.tallied, where.tally, order.sql, position)
            if start is not None:
                cache.starts.put((*list_key, position), query_state, start)
    if total is not None and position >= total:  # past the end: nothing to read
        ids = []
    elif start is not None:
        leading = order.leading
        by = table if leading == "seq" else f"{table} INDEXED BY {table}_{leading}"
        # A CASE keeps the filter's own bounds out of the index range, so the scan starts at the bucket
        # (a range's lower bound on the same column would otherwise win, and the scan start before it).
        ids = store.select_ids(f"SELECT id FROM {by} WHERE CASE WHEN ({where.text}) THEN 1 ELSE 0 END "
                               f"AND {start.condition} "
                               f"ORDER BY {order.sql} LIMIT ? OFFSET ?",
                               (*where.params, *start.params, limit, start.skip))
    elif kept:  # read already (for the total, or before): the page is a slice of it
        ids = ordered()[position : position + limit]
    elif direct and position <= DIRECT_ROWS:
        ids = store.select_ids(f"SELECT id FROM {source} WHERE {condition} ORDER BY {order.sql} LIMIT ? OFFSET ?",
                               (*where.params, limit, position))
    elif direct and total is not None and total - position - limit <= DIRECT_ROWS:
        # Near the end: the same rows read backwards from the end, then put back in order.
        end = min(total, position + limit)
        backwards = store.select_ids(
            f"SELECT id FROM {source} WHERE {condition} ORDER BY {order.reversed} LIMIT ? OFFSET ?",
            (*where.params, max(0, end - position), total - end))
        ids = backwards[::-1]
    else:
        ids = ordered()[position : position + limit]
    return query_state, (total if calculate_total else None), position, ids


def _rarest_first(context: CallContext, schema: TableSchema, words: list[str]) -> list[str]:
    with context.store.reading() as db:
        return tallies.rarest_first(db, schema.table, words)


def _sorts_by(arguments: dict[str, Any], name: str) -> bool:
    sort = arguments.get("sort")
    return isinstance(sort, list) and bool(sort) and isinstance(sort[0], dict) and sort[0].get("property") == name


def _cut_before_sort(context: CallContext, arguments: dict[str, Any], anchor: str | None, anchor_offset: int,
                     calculate_total: bool) -> bool:
    """Whether the real server would cut this page before sorting it: sorted by id, no total, no
    anchor offset, and no explicit position 0. (With an anchor the stub always sorts first.)"""
    by_id = not arguments.get("sort") or _sorts_by(arguments, "id")
    position = arguments.get("position")
    return (context.profile.page_cut_before_sort and by_id and not calculate_total and anchor is None
            and anchor_offset == 0 and (position is None or position > 0))


def _cut_page(context: CallContext, object_type: ObjectType, where: Sql, order: Order, position: int,
              limit: int) -> list[str]:
    """``limit`` matches from ``position`` in storage order, then sorted as asked."""
    schema = schema_for(object_type)
    cut = storage_order_ids(context, object_type, limit, position, where.text, where.params)
    if not cut:
        return []
    marks = ", ".join("?" * len(cut))
    return context.store.select_ids(f"SELECT id FROM {schema.table} WHERE id IN ({marks}) ORDER BY {order.sql}",
                                    tuple(cut))


def query(context: CallContext, object_type: ObjectType, arguments: dict[str, Any]) -> dict[str, Any]:
    check_arguments(arguments, ARGUMENTS)
    account = check_account(context, arguments)
    context.require(object_type, "query")
    schema = schema_for(object_type)
    try:
        where = compile_filter(arguments.get("filter"), schema, context.profile,
                               rarity=lambda words: _rarest_first(context, schema, words))
        order = compile_sort(arguments.get("sort"), schema, context.profile)
    except QueryProblem as problem:
        raise MethodFailure(problem.type, problem.description) from None
    if context.profile.tenant_sort_only_tenanted and _sorts_by(arguments, "memberTenantId"):
        # The real server reads the tenant index: a directory without a tenant is not in it.
        where = Sql(f"({where.text}) AND member_tenant_id IS NOT NULL", where.params)
    position = _int_argument(arguments, "position", 0)
    anchor_offset = _int_argument(arguments, "anchorOffset", 0)
    requested_limit = _int_argument(arguments, "limit", None, minimum=0)
    limit = QUERY_LIMIT_CAP if requested_limit is None else min(requested_limit, QUERY_LIMIT_CAP)
    calculate_total = arguments.get("calculateTotal", False)
    if not isinstance(calculate_total, bool):
        raise MethodFailure("invalidArguments", "calculateTotal is true or false")
    anchor = arguments.get("anchor")
    if anchor is not None and not isinstance(anchor, str):
        raise MethodFailure("invalidArguments", "anchor is an id")

    with context.store.reading():  # one state, one snapshot: nothing is cached under a stale state
        if _cut_before_sort(context, arguments, anchor, anchor_offset, calculate_total):
            query_state, total = context.store.state(object_type), None
            ids, position = _cut_page(context, object_type, where, order, position, limit), 0
        else:
            query_state, total, position, ids = _page(context, object_type, where, order, position, anchor,
                                                      anchor_offset, limit, calculate_total)
    query_state = context.profile.query_state or query_state  # the real server's is always "n"
    if not ids and position > 0 and context.profile.position_past_end_is_zero:
        position = 0  # the real server answers a position past the end with 0 (wire-notes.md)
    response: dict[str, Any] = {
        "accountId": account,
        "queryState": query_state,
        "canCalculateChanges": False,
        "position": position,
        "ids": ids,
    }
    if calculate_total:
        response["total"] = total
    if requested_limit is None or requested_limit != limit:
        response["limit"] = limit
    return response
