"""A fake JMAP server for client tests over ``httpx.MockTransport``: a session body and an
answer per method call, recording every request the client sent."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import httpx

from jmapclient import JmapClient
from jmapclient.session import SPEC_CAPABILITY

BASE = "https://mail.example"
TOKEN = "tok-123"


def session_body(
    capability: str = SPEC_CAPABILITY, *, in_account_only: bool = False, api_url: str = "/api", **core: int
) -> dict[str, Any]:
    limits = {"maxSizeRequest": 10_000_000, "maxCallsInRequest": 16, "maxObjectsInGet": 500,
              "maxObjectsInSet": 500, **core}
    capabilities: dict[str, Any] = {"urn:ietf:params:jmap:core": limits}
    if not in_account_only:
        capabilities[capability] = {}
    return {
        "capabilities": capabilities,
        "accounts": {"a1": {"name": "admin", "accountCapabilities": {capability: {}}}},
        "primaryAccounts": {capability: "a1"},
        "username": "admin",
        "apiUrl": api_url,
        "state": "s1",
    }


class FakeServer:
    """Routes requests to handlers and records what the client sent."""

    def __init__(self, api: Callable[[dict[str, Any]], Any] | None = None, session: Any = None) -> None:
        self.requests: list[httpx.Request] = []
        self.bodies: list[dict[str, Any]] = []
        self.api = api or (lambda body: {"methodResponses": [], "sessionState": "s1"})
        self.session = session if session is not None else session_body()

    def handler(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        if request.url.path == "/.well-known/jmap":
            return httpx.Response(307, headers={"Location": "/jmap/session"})
        if request.url.path == "/jmap/session":
            if isinstance(self.session, httpx.Response):
                return self.session
            return httpx.Response(200, json=self.session)
        if request.method == "GET":  # /api/account and the like: not offered
            return httpx.Response(404)
        body = json.loads(request.content)
        self.bodies.append(body)
        answer = self.api(body)
        return answer if isinstance(answer, httpx.Response) else httpx.Response(200, json=answer)

    def client(self, **kwargs: Any) -> JmapClient:
        return JmapClient(BASE, TOKEN, transport=httpx.MockTransport(self.handler), **kwargs)


def echo_responses(per_call: Callable[[str, dict[str, Any], str], list[Any]]) -> Callable[[dict[str, Any]], Any]:
    def api(body: dict[str, Any]) -> dict[str, Any]:
        out: list[Any] = []
        for name, args, call_id in body["methodCalls"]:
            out.extend(per_call(name, args, call_id))
        return {"methodResponses": out, "sessionState": "s1"}

    return api
