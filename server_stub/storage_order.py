"""The real server's own storage order: ascending id for directories, the ``expiresAt`` index for
reports. It cuts a query page in it before sorting (wire-notes.md, "query"), and ``get`` with
``ids: null`` answers the first 500 in it."""

from __future__ import annotations

from typing import Any

from jmapclient.models.objects import ObjectType
from server_stub.filters import compile_sort
from server_stub.methods.context import CallContext
from server_stub.schema import schema_for

STORAGE_ORDER = {"Directory": [{"property": "id", "isAscending": True}],
                 "DmarcExternalReport": [{"property": "expiresAt", "isAscending": True}]}


def storage_order_ids(context: CallContext, object_type: ObjectType, limit: int, offset: int = 0,
                      where: str = "1", params: tuple[Any, ...] = ()) -> list[str]:
    """``limit`` ids from ``offset`` of the objects matching ``where``, in storage order."""
    schema = schema_for(object_type)
    order = compile_sort(STORAGE_ORDER[object_type.name], schema, context.profile)
    return context.store.select_ids(f"SELECT id FROM {schema.table} WHERE {where} ORDER BY {order.sql} "
                                    "LIMIT ? OFFSET ?", (*params, limit, max(offset, 0)))
