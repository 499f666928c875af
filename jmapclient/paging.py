"""Page through every result of a query, one request per page.

Each page is ``ObjectApi.query_and_get``: a query and a get of its ids by result
reference in ONE request. The loop is bounded: it stops on an empty page, when the
total is reached, on a short page when no total is known, and after MAX_PAGES.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from typing import Any

from jmapclient.objects import ObjectApi, QueryResult

PAGE_SIZE = 500
MAX_PAGES = 20_000
"""10 million objects at 500 a page: a guard against a server that never ends a result."""

PageFetch = Callable[[int, int], Awaitable[tuple[QueryResult, list[Any]]]]
"""(position, size) → the query result and the page's items."""


async def page_size(api: ObjectApi) -> int:
    session = await api.client.session()
    return max(1, min(PAGE_SIZE, session.limits.max_objects_in_get))


def _finished(position: int, got: int, asked: int, limit: int | None, total: int | None) -> bool:
    if got == 0:
        return True
    if total is not None:
        return position >= total
    return got < (limit or asked)


async def _pages(api: ObjectApi, fetch: PageFetch) -> AsyncIterator[list[Any]]:
    size = await page_size(api)
    position = 0
    for _ in range(MAX_PAGES):
        result, page = await fetch(position, size)
        if page:
            yield page
        position = result.position + len(result.ids)
        if _finished(position, len(result.ids), size, result.limit, result.total):
            return


def pages_of_objects(
    api: ObjectApi,
    filter: Mapping[str, Any] | None,
    sort: Sequence[Mapping[str, Any]] | None = None,
    properties: Sequence[str] | None = None,
) -> AsyncIterator[list[dict[str, Any]]]:
    """Raw wire objects, a page at a time, in query order."""

    async def fetch(position: int, size: int) -> tuple[QueryResult, list[Any]]:
        result, fetched = await api.query_and_get(
            filter, sort, position=position, limit=size, calculate_total=True, properties=properties
        )
        by_id = {str(item.get("id")): item for item in fetched.raw}
        return result, [by_id[i] for i in result.ids if i in by_id]

    return _pages(api, fetch)


def pages_of_ids(
    api: ObjectApi, filter: Mapping[str, Any] | None, sort: Sequence[Mapping[str, Any]] | None = None
) -> AsyncIterator[list[str]]:
    """Ids only (no get), a page at a time."""

    async def fetch(position: int, size: int) -> tuple[QueryResult, list[Any]]:
        result = await api.query(filter, sort, position=position, limit=size, calculate_total=True)
        return result, list(result.ids)

    return _pages(api, fetch)
