"""One pager for every query read a page at a time: the CLI, the inbox and analytics.

A page is ONE request: ``ObjectApi.query_and_get`` (a query and a get of its ids by
result reference), or the query alone when only ids are wanted. Reading every page is
bounded: it stops on an empty page, when the total is reached, on a short page when no
total is known, at an optional cap, and after MAX_PAGES.

When the server refuses a condition and the client falls back to a broader one (the policy
domain searched as words), the pager keeps only the objects that answer the condition asked
for (:class:`~jmapclient.objects.Narrowing`), pages on by what the server returned, and
claims no total it cannot know.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from jmapclient.models.objects import SortFallback
from jmapclient.objects import GetResult, Narrowing, ObjectApi, QueryResult

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
    scanned: int = 0
    """How many ids the server returned for this page; more than ``ids`` when narrowed."""
    scanned_total: int | None = None
    """The server's total of what it matched: ``total`` unless the client narrowed the page."""
    narrowed: bool = False
    """The client kept only what answers the filter asked for; ``total`` is then unknown."""


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

    It remembers the total once the server said it. A sort the server refused (see
    ``ObjectType.sort_fallbacks``) the client remembers (``JmapClient.refused_sorts``), so later
    pages, and later pagers, ask for the fallback order directly instead of being refused again.
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
        self.narrowing: tuple[Narrowing, ...] = ()
        self.left_out_note = ""
        """Words for a person when the sort asked lists only some objects on this server (read at the first page)."""
        self._narrow_properties = api.may_narrow(self.filter)
        """Fetched beside what was asked, in case the server refuses a condition (then dropped)."""

    @property
    def sort_note(self) -> str:
        """Words for a person when the server could not sort as asked; "" when it could."""
        return "; ".join(f.note for f in self.sort_fallbacks)

    @property
    def filter_note(self) -> str:
        """Words for a person when the server only approximated the filter; "" when it did not."""
        return "; ".join(n.note for n in self.narrowing)

    @property
    def notes(self) -> list[str]:
        return [note for note in (self.filter_note, self.sort_note, self.left_out_note) if note]

    async def page_size(self) -> int:
        if self.size is None:
            self.size = await page_size(self.api)
        return self.size

    async def page_at(self, position: int, limit: int | None = None) -> QueryPage:
        """The page starting at ``position`` (0-based), of ``limit`` objects or the page size."""
        asked = limit if limit is not None else await self.page_size()
        if position == 0 and self.sort:
            self.left_out_note = await self._left_out(str(self.sort[0].get("property")))
        result, items = await self._fetch(position, asked)
        if result.sort_fallbacks and not self.sort_fallbacks:
            self.sort_fallbacks = result.sort_fallbacks  # the next pages' sort: the client remembers the refusal
        if result.narrowing and not self.narrowing:
            self.narrowing = result.narrowing
            self.filter = result.filter  # later pages ask for the fallback directly
        scanned = len(result.ids)
        ids = result.ids
        if self.narrowing:
            items = [item for item in items if all(n.matches(item) for n in self.narrowing)]
            ids = [str(item.get("id")) for item in items]
            items = [self._as_asked(item) for item in items]
        elif result.total is not None:
            self.total = result.total
        total = None if self.narrowing else self.total
        return QueryPage(result.position, ids, [] if self.ids_only else items, total, result.limit,
                         scanned=scanned, scanned_total=result.total, narrowed=bool(self.narrowing))

    async def _left_out(self, sorted_by: str) -> str:
        which = self.api.type.sorts_that_leave_out.get(sorted_by)
        if which is None or not (await self.api.client.session()).sorts_leave_out:
            return ""
        # An empty answer said "no directories found" while every directory lacked a tenant (the tester's).
        return f"sorted by {sorted_by}, this server lists {which}"

    def _as_asked(self, item: dict[str, Any]) -> dict[str, Any]:
        """``item`` without the properties fetched only for narrowing."""
        extra = [p for p in self._narrow_properties if self.properties is not None and p not in self.properties]
        if self.ids_only or not extra:
            return item
        return {key: value for key, value in item.items() if key not in extra}

    async def pages(self, *, cap: int | None = None, first: int | None = None) -> AsyncIterator[QueryPage]:
        """Every page from the start, in order; at most ``cap`` objects when given.

        ``first``: the first page holds at most that many, a cheap look before reading on.
        """
        size = await self.page_size()
        position = 0
        for _ in range(MAX_PAGES):
            asked = size if cap is None else min(size, cap - position)
            if position == 0 and first is not None:
                asked = min(asked, first)
            if asked <= 0:
                return
            page = await self.page_at(position, asked)
            if page.ids:
                yield page
            position = page.position + page.scanned
            if _finished(position, page.scanned, asked, page.limit, page.scanned_total):
                return

    async def _fetch(self, position: int, limit: int) -> tuple[QueryResult, list[dict[str, Any]]]:
        if self.ids_only and not self._narrow_properties:
            result = await self.api.query(self.filter, self.sort, position=position, limit=limit, calculate_total=True)
            return result, []
        properties = self.properties
        if self.ids_only:
            properties = ("id", *self._narrow_properties)
        elif properties is not None:
            properties = tuple(dict.fromkeys((*properties, *self._narrow_properties)))
        # A page hands out the wire objects only: validating them into models would build the
        # type's validators (about a twentieth of `mailadmin query`'s start) for objects nobody reads typed.
        result, fetched = await self.api.query_and_get(
            self.filter, self.sort, position=position, limit=limit, calculate_total=True, properties=properties,
            typed=False,
        )
        by_id = {str(item.get("id")): item for item in fetched.raw}
        return result, [by_id[i] for i in result.ids if i in by_id]


OLDEST_FIRST = ({"property": "id", "isAscending": True},)
"""Creation order: a snapshot applied to an empty server creates its objects in the file's order, so a
snapshot of that server lists them in the same order (ids grow with creation)."""


async def read_all(api: ObjectApi) -> list[dict[str, Any]]:
    """Every object of the type, in the server's id order, as read (secrets masked by the server).

    Paged with a query: a get of ``ids: null`` answers at most 500 objects on the real server, silently
    (wire-notes), and the bundled server's ``spec`` profile refuses more than its maxObjectsInGet.
    """
    found: list[dict[str, Any]] = []
    async for page in QueryPager(api, sort=OLDEST_FIRST).pages():
        found.extend(page.items)
    return found


async def get_all(api: ObjectApi) -> GetResult:
    """:func:`read_all`, each object also read by the models (what they cannot read is in ``invalid``)."""
    return api.read_into(GetResult(), await read_all(api))


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
