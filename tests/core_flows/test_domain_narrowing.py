"""Narrowing a word search to the policy domain asked for, against a server whose word search
matches other domains' reports (wire-notes.md: ``text: "google.com"`` matches every report
Google sent)."""

from __future__ import annotations

import json
from typing import Any

import httpx

from jmapclient import JmapClient
from jmapclient.paging import QueryPager
from tests.support.fake_jmap import session_body

# Word matches of "example.com", in the server's order: the right domain in any letter case,
# another domain whose reporter is at example.com, and a report with "" where its domain is.
WORD_MATCHES = [
    ("r9", "example.com"), ("r8", "mail.example.com"), ("r7", "EXAMPLE.COM"), ("r6", "example.org"),
    ("r5", ""), ("r4", "example.com"), ("r3", "com.example"), ("r2", "example.com "), ("r1", "other.test"),
]


class WordSearchServer:
    """Refuses ``domain`` like the real server; ``text`` returns every word match."""

    def __init__(self) -> None:
        self.bodies: list[dict[str, Any]] = []

    def handler(self, request: httpx.Request) -> httpx.Response:
        if request.method == "GET":
            return httpx.Response(200, json=session_body("urn:stalwart:jmap", in_account_only=True, api_url="/jmap/"))
        body = json.loads(request.content)
        self.bodies.append(body)
        (name, args, call_id), *rest = body["methodCalls"]
        if "domain" in json.dumps(args.get("filter")):
            return httpx.Response(200, json={"methodResponses": [["error", {"type": "unsupportedFilter"}, call_id]]})
        position, limit = args.get("position", 0), args.get("limit", 500)
        ids = [i for i, _ in WORD_MATCHES][position : position + limit]
        answers = [[name, {"ids": ids, "position": position, "total": len(WORD_MATCHES)}, call_id]]
        if rest:
            get_name, get_args, get_id = rest[0]
            wanted = get_args.get("properties")
            objects = []
            for object_id, domain in WORD_MATCHES:
                if object_id in ids:
                    full = {"id": object_id, "report": {"policyDomain": domain}, "subject": "s"}
                    objects.append({k: v for k, v in full.items() if wanted is None or k in wanted or k == "id"})
            answers.append([get_name, {"list": objects, "notFound": []}, get_id])
        return httpx.Response(200, json={"methodResponses": answers})


def client(server: WordSearchServer) -> JmapClient:
    return JmapClient("http://127.0.0.1:1", "API_k", transport=httpx.MockTransport(server.handler))


async def test_only_that_domain_any_case_survives_across_pages_and_no_total_is_claimed() -> None:
    server = WordSearchServer()
    async with client(server) as jmap:
        pager = QueryPager(jmap.dmarc_reports, {"domain": "Example.com"}, page_size=4)
        pages = [page async for page in pager.pages()]
    assert [i for p in pages for i in p.ids] == ["r9", "r7", "r4", "r2"]
    assert all(p.total is None and p.narrowed for p in pages) and pager.total is None
    assert "searched the words of 'Example.com'" in pager.filter_note
    # refused once; every later page asks for the words directly
    sent = [b["methodCalls"][0][1].get("filter") for b in server.bodies]
    assert sent == [{"domain": "Example.com"}, *[{"text": "Example.com"}] * 3]


async def test_ids_only_fetches_the_policy_domain_to_narrow_and_returns_no_objects() -> None:
    server = WordSearchServer()
    async with client(server) as jmap:
        pager = QueryPager(jmap.dmarc_reports, {"domain": "example.com"}, ids_only=True)
        pages = [page async for page in pager.pages()]
    assert [i for p in pages for i in p.ids] == ["r9", "r7", "r4", "r2"] and all(not p.items for p in pages)
    assert server.bodies[-1]["methodCalls"][1][1]["properties"] == ["id", "report"]


async def test_asked_properties_come_back_without_the_one_fetched_to_narrow() -> None:
    server = WordSearchServer()
    async with client(server) as jmap:
        pager = QueryPager(jmap.dmarc_reports, {"domain": "example.com"}, properties=("id", "subject"))
        items = [item async for page in pager.pages() for item in page.items]
    assert [i["id"] for i in items] == ["r9", "r7", "r4", "r2"]
    assert all(set(i) == {"id", "subject"} for i in items)


async def test_under_or_a_fallback_is_not_narrowed_since_that_would_drop_right_answers() -> None:
    async with client(WordSearchServer()) as jmap:
        found = jmap.dmarc_reports.fallback_filter(
            {"operator": "OR", "conditions": [{"domain": "a.example"}, {"text": "b"}]})
    assert found == ({"operator": "OR", "conditions": [{"text": "a.example"}, {"text": "b"}]}, ())


async def test_a_filter_without_domain_is_neither_widened_nor_narrowed() -> None:
    server = WordSearchServer()
    async with client(server) as jmap:
        pager = QueryPager(jmap.dmarc_reports, {"text": "example.com"}, ids_only=True)
        ids = [i async for page in pager.pages() for i in page.ids]
    assert len(ids) == len(WORD_MATCHES) and pager.total == len(WORD_MATCHES) and pager.filter_note == ""
    assert all(len(b["methodCalls"]) == 1 for b in server.bodies)  # ids alone: no get
