"""A write whose answer never came may have been done; one that never left was not.

The console must tell the two apart (a create told "not saved" after a timeout was stored, and
the retry it offered made a second one): the client's transport errors say which (``sent``).
"""

from __future__ import annotations

import socket

import httpx
import pytest

from jmapclient import JmapClient
from jmapclient.errors import RequestTimeout, ServerUnreachable, TransportError
from tests.support.fault_server import FaultServer

TOKEN = "answer-lost-token-3c9a"


def closed_port_url() -> str:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{probe.getsockname()[1]}"


@pytest.mark.parametrize(("fault", "error"), [("hangs", RequestTimeout), ("dies", ServerUnreachable)])
async def test_an_answer_lost_after_sending_says_the_request_went_out(fault: str, error: type[TransportError]):
    with FaultServer(fault) as server:
        async with JmapClient(server.url, TOKEN, timeout=0.5) as client:
            with pytest.raises(error) as raised:
                await client.directories.create({"@type": "Oidc", "description": "d", "issuerUrl": "https://i"})
        assert server.api_requests == 1
    assert raised.value.sent, "the server read the request: it may have stored the directory"


async def test_a_server_that_is_not_listening_was_sent_nothing():
    async with JmapClient(closed_port_url(), TOKEN, timeout=0.5) as client:
        with pytest.raises(ServerUnreachable) as raised:
            await client.directories.query()
    assert not raised.value.sent


@pytest.mark.parametrize("failure", [httpx.ConnectTimeout, httpx.PoolTimeout])
async def test_a_connection_never_made_in_time_was_sent_nothing(failure: type[httpx.TimeoutException]):
    def refuse(request: httpx.Request) -> httpx.Response:
        raise failure("no connection", request=request)

    async with JmapClient("http://127.0.0.1:9", TOKEN, transport=httpx.MockTransport(refuse)) as client:
        with pytest.raises(RequestTimeout) as raised:
            await client.directories.query()
    assert not raised.value.sent
