"""One pager for every query read a page at a time: the CLI, the inbox and analytics.

A page is ONE request: ``ObjectApi.query_and_get`` (a query and a get of its ids by
result reference), or the query alone when only ids are wanted. Reading every page is
bounded: it stops on an empty page, when the total is reached, on a short page when no
total is known, at an optional cap, and after MAX_PAGES.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from jmapclient.models.objects import SortFallback
from jmapclient.objects import ObjectApi, QueryResult, fallback_sort

PAGE_SIZE = 500
MAX_PAGES = 20_000
"""10 million objects at 500 a page: a guard against a server that never ends a result."""


@dataclass(frozen=True)
class QueryPage:
    """One page, in query order. ``items`` holds the wire objects; empty when only ids were asked."""

    position: int
    ids: list[str]
    items: list[dict[str, Any]] = field(default_factory=list)
    total: int | None = None
    limit: int | None = None
    """The server's own page limit when it lowered the one asked for (RFC 8620 §5.5)."""


async def page_size(api: ObjectApi) -> int:
    """The largest page the server's maxObjectsInGet allows, at most PAGE_SIZE."""
    session = await api.client.session()
    return max(1, min(PAGE_SIZE, session.limits.max_objects_in_get))


def _finished(position: int, got: int, asked: int, limit: int | None, total: int | None) -> bool:
    if got == 0:
        return True
    if total is not None:
        return position >= total
    return got < (limit or asked)


class QueryPager:
    """Pages of one query (filter and sort) of one object type; a new query means a new pager.

    It remembers the total once the server said it, and a sort fallback once the server
    refused the sort (see ``ObjectType.sort_fallbacks``), so later pages ask for the
    fallback order directly instead of being refused again.
    """

    def __init__(
        self,
        api: ObjectApi,
        filter: Mapping[str, Any] | None = None,
        sort: Sequence[Mapping[str, Any]] | None = None,
        *,
        properties: Sequence[str] | None = None,
        ids_only: bool = False,
        page_size: int | None = None,
    ) -> None:
        self.api = api
        self.filter = dict(filter) if filter else None
        self.sort = [dict(c) for c in sort] if sort else None
        self.properties = tuple(properties) if properties is not None else None
        self.ids_only = ids_only
        self.size = page_size
        """Objects per page; None: as many as the server's maxObjectsInGet allows (at most PAGE_SIZE)."""
        self.total: int | None = None
        self.sort_fallbacks: tuple[SortFallback, ...] = ()

    @property
    def sort_note(self) -> str:
        """Words for a person when the server could not sort as asked; "" when it could."""
        return "; ".join(f.note for f in self.sort_fallbacks)

    async def page_size(self) -> int:
        if self.size is None:
            self.size = await page_size(self.api)
        return self.size

    async def page_at(self, position: int, limit: int | None = None) -> QueryPage:
        """The page starting at ``position`` (0-based), of ``limit`` objects or the page size."""
        asked = limit if limit is not None else await self.page_size()
        result, items = await self._fetch(position, asked)
        if result.sort_fallbacks and not self.sort_fallbacks:
            self.sort_fallbacks = result.sort_fallbacks
            self.sort = fallback_sort(self.sort or [], result.sort_fallbacks)
        if result.total is not None:
            self.total = result.total
        return QueryPage(result.position, result.ids, items, self.total, result.limit)

    async def pages(self, *, cap: int | None = None) -> AsyncIterator[QueryPage]:
        """Every page from the start, in order; at most ``cap`` objects when given."""
        size = await self.page_size()
        position = 0
        for _ in range(MAX_PAGES):
            asked = size if cap is None else min(size, cap - position)
            if asked <= 0:
                return
            page = await self.page_at(position, asked)
            if page.ids:
                yield page
            position = page.position + len(page.ids)
            if _finished(position, len(page.ids), asked, page.limit, page.total):
                return

    async def _fetch(self, position: int, limit: int) -> tuple[QueryResult, list[dict[str, Any]]]:
        if self.ids_only:
            result = await self.api.query(self.filter, self.sort, position=position, limit=limit, calculate_total=True)
            return result, []
        result, fetched = await self.api.query_and_get(
            self.filter, self.sort, position=position, limit=limit, calculate_total=True, properties=self.properties
        )
        by_id = {str(item.get("id")): item for item in fetched.raw}
        return result, [by_id[i] for i in result.ids if i in by_id]


async def pages_of_objects(
    api: ObjectApi,
    filter: Mapping[str, Any] | None,
    sort: Sequence[Mapping[str, Any]] | None = None,
    properties: Sequence[str] | None = None,
) -> AsyncIterator[list[dict[str, Any]]]:
    """Raw wire objects, a page at a time, in query order."""
    async for page in QueryPager(api, filter, sort, properties=properties).pages():
        if page.items:
            yield page.items


async def pages_of_ids(
    api: ObjectApi, filter: Mapping[str, Any] | None, sort: Sequence[Mapping[str, Any]] | None = None
) -> AsyncIterator[list[str]]:
    """Ids only (no get), a page at a time."""
    async for page in QueryPager(api, filter, sort, ids_only=True).pages():
        yield page.ids
