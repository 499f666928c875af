"""The one pager and the sort fallback the object API applies once, declared on the type."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from jmapclient import JmapClient
from jmapclient.errors import MethodError
from jmapclient.models.objects import DMARC_EXTERNAL_REPORT
from jmapclient.paging import QueryPager
from server_stub.runner import StubServer

SESSION = {"capabilities": {"urn:stalwart:jmap": {}}, "apiUrl": "/jmap/"}


class RefusesReceivedAt:
    """A server that, like the real one, cannot sort reports by receivedAt; holds ``count`` ids."""

    def __init__(self, count: int = 0) -> None:
        self.ids = [f"r{i:03}" for i in range(count)]
        self.sorts: list[str] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        if request.method == "GET":
            return httpx.Response(200, json=SESSION)
        calls = json.loads(request.content)["methodCalls"]
        arguments = calls[0][1]
        prop = (arguments.get("sort") or [{"property": "-"}])[0]["property"]
        self.sorts.append(prop)
        if prop == "receivedAt":
            return httpx.Response(200, json={"methodResponses": [["error", {"type": "unsupportedSort"}, "c0"]]})
        position, limit = arguments.get("position", 0), arguments.get("limit", len(self.ids))
        page = self.ids[position:position + limit]
        answers: list[Any] = [["x:DmarcExternalReport/query",
                               {"ids": page, "position": position, "total": len(self.ids)}, "c0"]]
        if len(calls) > 1:
            answers.append(["x:DmarcExternalReport/get", {"list": [{"id": i} for i in page], "notFound": []}, "c1"])
        return httpx.Response(200, json={"methodResponses": answers})


def client_of(server: RefusesReceivedAt) -> JmapClient:
    return JmapClient("http://real.test", "t", transport=httpx.MockTransport(server))


NEWEST_FIRST = [{"property": "receivedAt", "isAscending": False}]


async def test_object_api_falls_back_to_the_declared_sort_and_says_so() -> None:
    server = RefusesReceivedAt(3)
    result, got = await client_of(server).dmarc_reports.query_and_get(None, NEWEST_FIRST)
    assert server.sorts == ["receivedAt", "id"]
    assert result.ids == ["r000", "r001", "r002"] and len(got.raw) == 3
    assert [f.fallback for f in result.sort_fallbacks] == ["id"]
    assert result.sort_note == "this server cannot sort by receivedAt; sorted by id (arrival order)"


async def test_a_sort_without_a_declared_fallback_still_fails() -> None:
    assert DMARC_EXTERNAL_REPORT.sort_fallback("expiresAt") is None

    def refuse_all(request: httpx.Request) -> httpx.Response:
        if request.method == "GET":
            return httpx.Response(200, json=SESSION)
        return httpx.Response(200, json={"methodResponses": [["error", {"type": "unsupportedSort"}, "c0"]]})

    client = JmapClient("http://real.test", "t", transport=httpx.MockTransport(refuse_all))
    with pytest.raises(MethodError) as raised:
        await client.dmarc_reports.query(None, [{"property": "expiresAt"}])
    assert raised.value.type == "unsupportedSort"


async def test_the_pager_remembers_the_fallback_so_later_pages_are_not_refused_again() -> None:
    server = RefusesReceivedAt(5)
    pager = QueryPager(client_of(server).dmarc_reports, None, NEWEST_FIRST, page_size=2)
    pages = [page.ids async for page in pager.pages()]
    assert pages == [["r000", "r001"], ["r002", "r003"], ["r004"]]
    assert server.sorts == ["receivedAt", "id", "id", "id"]
    assert "sorted by id" in pager.sort_note and pager.total == 5


async def test_reading_all_pages_stops_at_the_cap() -> None:
    server = RefusesReceivedAt(10)
    pager = QueryPager(client_of(server).dmarc_reports, None, None, ids_only=True, page_size=4)
    pages = [page.ids async for page in pager.pages(cap=6)]
    assert [len(p) for p in pages] == [4, 2]
    assert pager.total == 10 and pager.sort_note == ""


async def test_one_page_at_a_position_is_one_request_against_the_stub() -> None:
    with StubServer(reports=30) as stub:
        async with JmapClient(stub.base_url, stub.admin_token, timeout=10) as client:
            await client.session()
            pager = QueryPager(client.dmarc_reports, None, NEWEST_FIRST, properties=("id", "report"), page_size=10)
            page = await pager.page_at(20)
            assert (page.position, len(page.ids), page.total) == (20, 10, 30)
            assert [item["id"] for item in page.items] == page.ids
            assert set(page.items[0]) == {"id", "report"}
