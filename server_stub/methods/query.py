"""``x:<Type>/query`` (RFC 8620 §5.5), answered from the indexed columns."""

from __future__ import annotations

from typing import Any

from jmapclient.models.objects import ObjectType
from server_stub.filters import QueryProblem, compile_filter, compile_sort, is_json_int
from server_stub.methods.context import (
    QUERY_LIMIT_CAP,
    CallContext,
    MethodFailure,
    check_account,
    check_arguments,
)
from server_stub.schema import schema_for

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


def query(context: CallContext, object_type: ObjectType, arguments: dict[str, Any]) -> dict[str, Any]:
    check_arguments(arguments, ARGUMENTS)
    account = check_account(context, arguments)
    context.require(object_type, "query")
    schema = schema_for(object_type)
    try:
        where = compile_filter(arguments.get("filter"), schema, context.profile)
        order = compile_sort(arguments.get("sort"), schema, context.profile)
    except QueryProblem as problem:
        raise MethodFailure(problem.type, problem.description) from None
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

    store = context.store
    query_state = store.state(object_type)
    table = schema.table
    total: int | None = None
    if calculate_total or (position < 0 and anchor is None):
        total = int(store.scalar(f"SELECT COUNT(*) FROM {table} WHERE {where.text}", where.params))
    if anchor is not None:
        index = store.scalar(
            f"SELECT rn FROM (SELECT id, ROW_NUMBER() OVER (ORDER BY {order.sql}) - 1 AS rn "
            f"FROM {table} WHERE {where.text}) WHERE id = ?",
            (*where.params, anchor),
        )
        if index is None:
            raise MethodFailure("anchorNotFound", f"{anchor!r} is not in the results")
        position = max(0, int(index) + anchor_offset)
    elif position < 0:
        position = max(0, (total or 0) + position)
    ids = store.select_ids(
        f"SELECT id FROM {table} WHERE {where.text} ORDER BY {order.sql} LIMIT ? OFFSET ?",
        (*where.params, limit, position),
    )
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
