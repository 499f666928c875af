"""The in-process stub: the ASGI app driven through an ``httpx.AsyncClient`` over ``httpx.ASGITransport``, no socket."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import httpx

from jmapclient.session import CORE_CAPABILITY
from server_stub.app import create_app
from server_stub.auth import standard_registry
from server_stub.demo_data import DemoSummary
from server_stub.profiles import ServerProfile, server_profile
from server_stub.store import Store
from tests.support.seeding import seed_fresh

ADMIN = "admin-token-for-tests"
READONLY = "readonly-token-for-tests"
ADMIN_PASSWORD = "admin-password-for-tests"
BASE = "http://stub.test"
REPORTS = 30


@dataclass
class Stub:
    """One in-process stub: its HTTP client, store, profile and what the demo data put in."""

    http: httpx.AsyncClient
    store: Store
    profile: ServerProfile
    demo: DemoSummary
    responses: list[bytes]
    """Every response body this stub sent, for the no-secret-leaves scan."""

    @property
    def using(self) -> list[str]:
        return [CORE_CAPABILITY, self.profile.capability]

    async def post(self, body: Any, token: str = ADMIN, **kwargs: Any) -> httpx.Response:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        if isinstance(body, bytes | str):
            headers["Content-Type"] = "application/json"
            headers.update(kwargs.pop("headers", {}))
            return await self.http.post(self.profile.api_path, content=body, headers=headers, **kwargs)
        return await self.http.post(self.profile.api_path, json=body, headers=headers, **kwargs)

    async def call(
        self, method: str, arguments: dict[str, Any], token: str = ADMIN
    ) -> tuple[str, dict[str, Any]]:
        """One method call; returns (response name, arguments) — the name is ``error`` on failure."""
        response = await self.post({"using": self.using, "methodCalls": [[method, arguments, "c0"]]}, token)
        assert response.status_code == 200, response.text
        name, result, call_id = response.json()["methodResponses"][0]
        assert call_id == "c0"
        return name, result

    async def calls(self, calls: list[list[Any]], token: str = ADMIN) -> list[list[Any]]:
        response = await self.post({"using": self.using, "methodCalls": calls}, token)
        assert response.status_code == 200, response.text
        return response.json()["methodResponses"]


async def make_stub(
    profile: str, store: Store | None = None, reports: int = REPORTS, *, public_url: str | None = None,
    **app_options: Any,
) -> tuple[Stub, Any]:
    """An in-process stub; ``public_url=None`` gives the profile's own default: the Host header (spec,
    ``BASE``) or the real server's ``https://<hostname>`` (stalwart), which the client reaches by path."""
    store = store or Store()
    demo = seed_fresh(store, reports=reports)
    password = ADMIN_PASSWORD if profile == "stalwart" else None  # Basic login is the real server's
    app = create_app(store, profile=profile, tokens=standard_registry(ADMIN, READONLY, password),
                     public_url=public_url, **app_options)
    responses: list[bytes] = []

    async def record(response: httpx.Response) -> None:
        responses.append(await response.aread())

    http = httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url=BASE, event_hooks={"response": [record]}
    )
    return Stub(http, store, server_profile(profile), demo, responses), app


@asynccontextmanager
async def running_stub(profile: str, reports: int = REPORTS, **options: Any) -> AsyncIterator[Stub]:
    made, _ = await make_stub(profile, reports=reports, **options)
    async with made.http:
        yield made
    made.store.close()
