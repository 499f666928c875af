"""The inbox pager: one request per page, a bounded page cache, the real server's sort fallback."""

from __future__ import annotations

import json
from datetime import date

import httpx
import pytest

from jmapclient import JmapClient
from tests.support.console import make_world
from tui.reports.pager import InboxPager, Page, position_text
from tui.reports.query import InboxQuery, QueryInputError, parse_comparison


async def test_each_page_is_one_request_and_few_pages_are_kept() -> None:
    world = make_world("spec", reports=300)
    client = world.context().client
    await client.session()
    pager = InboxPager(client.dmarc_reports, InboxQuery(), page_size=50, keep=2)
    before = world.transport.requests
    first = await pager.page(0)
    assert world.transport.requests - before == 1
    assert (first.first, first.last, first.total) == (1, 50, 300)
    await pager.page(1)
    await pager.page(5)
    assert world.transport.requests - before == 3
    assert pager.cached(0) is None and pager.cached(5) is not None  # only two pages kept
    assert position_text(await pager.page(5)) == "251–300 of 300"
    assert world.transport.requests - before == 3  # page 5 came from the cache


def test_position_text_of_a_large_and_an_empty_inbox() -> None:
    assert position_text(Page(0, 0, 100_000, rows=[object()] * 50)) == "1–50 of 100,000"  # type: ignore[list-item]
    assert position_text(Page(0, 0, 0)) == "0 of 0"


def test_filter_keys_come_from_the_declared_conditions() -> None:
    query = InboxQuery(domain=" example.com ", failed=(">=", 1), passed=("<", 10),
                       expires_before=date(2026, 4, 1), expires_after=date(2026, 3, 31), tenant="t1")
    assert query.filter() == {
        "domain": "example.com",
        "totalFailedSessionsIsGreaterThanOrEqual": 1,
        "totalSuccessfulSessionsIsLessThan": 10,
        "expiresAtIsLessThan": "2026-04-01T00:00:00Z",
        "expiresAtIsGreaterThanOrEqual": "2026-04-01T00:00:00Z",
        "memberTenantId": "t1",
    }
    assert parse_comparison("7") == ("=", 7)
    assert parse_comparison(" <= 3 ") == ("<=", 3)
    assert parse_comparison("") is None
    with pytest.raises(QueryInputError):
        parse_comparison("=> 3")


async def test_unsupported_sort_falls_back_to_id_once() -> None:
    """The real server sorts only by id or expiresAt; the stub allows receivedAt, so fake the refusal."""
    sorts: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        if request.method == "GET":
            return httpx.Response(200, json={"capabilities": {"urn:stalwart:jmap": {}}, "apiUrl": "/jmap/"})
        calls = json.loads(request.content)["methodCalls"]
        prop = calls[0][1]["sort"][0]["property"]
        sorts.append(prop)
        if prop == "receivedAt":
            return httpx.Response(200, json={"methodResponses": [["error", {"type": "unsupportedSort"}, "c0"]]})
        return httpx.Response(200, json={"methodResponses": [
            ["x:DmarcExternalReport/query", {"ids": [], "position": 0, "total": 0}, "c0"],
            ["x:DmarcExternalReport/get", {"list": [], "notFound": []}, "c1"],
        ]})

    client = JmapClient("http://real.test", "t", transport=httpx.MockTransport(handler))
    pager = InboxPager(client.dmarc_reports, InboxQuery())
    await pager.page(0)
    await pager.page(1)
    assert sorts == ["receivedAt", "id", "id"]
    assert "sorted by id" in pager.note
