"""The client against the stand-in's real-server facts (issue 27): what it sends and how it words
what comes back. Each test fails on the client as it was before the issue."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from jmapclient import JmapClient
from jmapclient.auth import BasicLogin
from jmapclient.errors import SecondFactorRequired, SetFailed, TooManyAttempts
from jmapclient.failures import error_lines
from jmapclient.models import OidcDirectory
from jmapclient.models.objects import DIRECTORY, DMARC_EXTERNAL_REPORT
from server_stub.app import StubApp
from server_stub.login_guard import FAILURES_ALLOWED
from tests.support.stub import ADMIN, ADMIN_PASSWORD, BASE, Stub, make_stub


@pytest.fixture
async def real() -> AsyncIterator[tuple[Stub, StubApp]]:
    made, app = await make_stub("stalwart", reports=40)
    async with made.http:
        yield made, app
    made.store.close()


def client_of(app: StubApp, credentials: Any = ADMIN) -> JmapClient:
    return JmapClient(BASE, credentials, transport=httpx.ASGITransport(app=app))


async def test_a_cleared_required_audience_is_stored_as_null_not_the_default(real: tuple[Stub, StubApp]):
    stub, app = real
    async with client_of(app) as client:
        new_id = await client.directories.create(
            OidcDirectory(description="IdP", issuerUrl="https://idp.example", requireAudience=None))
        untouched = await client.directories.create(OidcDirectory(description="IdP2", issuerUrl="https://i2.example"))
    stored = stub.store.get(DIRECTORY, [new_id, untouched])
    assert stored[new_id]["requireAudience"] is None
    assert stored[untouched]["requireAudience"] == "stalwart"


async def test_unanswered_ids_are_failures_not_successes(real: tuple[Stub, StubApp]):
    _, app = real
    async with client_of(app) as client:
        result = await client.directories.destroy(["BAD-ID"])
        assert result.not_destroyed["BAD-ID"].type == "notAnswered" and result.destroyed == []
        with pytest.raises(SetFailed) as caught:
            await client.directories.update("BAD-ID", {"description": "x"})
    assert error_lines(caught.value) == ["BAD-ID: not done: the server did not answer for this id (is it right?)"]


async def test_object_is_linked_is_worded_from_the_real_shape(real: tuple[Stub, StubApp]):
    stub, app = real
    linked = stub.store.all_ids(DIRECTORY)[0]
    async with client_of(app) as client:
        result = await client.directories.destroy([linked])
    assert result.not_destroyed[linked].message == (
        "it is still used by Authentication singleton and Domain e; change or delete those first")


async def test_402_says_to_use_an_app_password_or_an_api_key(real: tuple[Stub, StubApp]):
    _, app = real
    app.guard.second_factor.add("admin")
    async with client_of(app, BasicLogin("admin", ADMIN_PASSWORD)) as client:
        with pytest.raises(SecondFactorRequired) as caught:
            await client.session()
    assert "app password" in str(caught.value) and "API key" in str(caught.value)


async def test_429_says_to_wait_with_the_servers_retry_after(real: tuple[Stub, StubApp]):
    _, app = real
    for _ in range(FAILURES_ALLOWED):
        app.guard.failed("127.0.0.1")
    async with client_of(app) as client:
        with pytest.raises(TooManyAttempts) as caught:
            await client.session()
    assert caught.value.retry_after.isdigit() and f"wait {caught.value.retry_after} seconds" in str(caught.value)


async def test_a_first_page_without_a_total_is_the_newest_not_the_oldest_cut(real: tuple[Stub, StubApp]):
    stub, app = real
    newest = sorted(stub.store.all_ids(DMARC_EXTERNAL_REPORT), key=lambda i: -int(i[1:]))
    async with client_of(app) as client:
        first = await client.dmarc_reports.query(limit=5)
        second = await client.dmarc_reports.query(position=5, limit=5)
    assert first.ids == newest[:5] and second.ids == newest[5:10]
