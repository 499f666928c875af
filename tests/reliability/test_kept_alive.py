"""Kept-alive connections the server closes: a read goes again, a write is never sent twice.

A server closes an idle kept-alive connection after its own idle time (the bundled one after 5 s).
A request that leaves as it closes is reset unanswered: on a loaded CI machine the check a save
makes before its update was, and the form said "the directory may have been saved" of a save that
never went out. Here a proxy on 127.0.0.1, in front of the real bundled server, resets a kept-alive
connection when its next request arrives (that race, every time), or only counts connections.
"""

from __future__ import annotations

import asyncio
import socket
import struct
import threading
from collections.abc import Iterator

import pytest

from jmapclient import JmapClient
from jmapclient.errors import ServerUnreachable
from jmapclient.keepalive import IDLE_REUSE_SECONDS
from jmapclient.models.objects import DIRECTORY
from server_stub.runner import StubServer

DESCRIPTION = "Corporate OpenLDAP (service account)"


class Proxy:
    """Relays each connection to the server; with ``reset_reused``, the second request on a connection
    (bytes from the client after an answer began) resets it before the server sees them."""

    def __init__(self, upstream: str, *, reset_reused: bool) -> None:
        self.host, port = upstream.removeprefix("http://").split(":")
        self.port = int(port)
        self.reset_reused = reset_reused
        self.connections = 0
        self.resets = 0
        self.url = ""
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, name="keepalive-proxy", daemon=True)

    def __enter__(self) -> Proxy:
        self._thread.start()
        assert self._ready.wait(10), "the proxy did not start"
        return self

    def __exit__(self, *exc: object) -> None:
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        server = self._loop.run_until_complete(asyncio.start_server(self._relay, "127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}"
        self._ready.set()
        self._loop.run_forever()
        # Stopped: the relays still open end here, inside their own loop, before it closes.
        pending = asyncio.all_tasks(self._loop)
        for task in pending:
            task.cancel()
        self._loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
        server.close()
        self._loop.run_until_complete(server.wait_closed())
        self._loop.close()

    async def _relay(self, client_in: asyncio.StreamReader, client_out: asyncio.StreamWriter) -> None:
        self.connections += 1
        server_in, server_out = await asyncio.open_connection(self.host, self.port)
        answered = asyncio.Event()

        async def answers() -> None:
            while data := await server_in.read(65536):
                answered.set()
                client_out.write(data)
                await client_out.drain()
            client_out.close()

        relaying = asyncio.ensure_future(answers())
        try:
            while data := await asyncio.wait_for(client_in.read(65536), 30):
                if answered.is_set() and self.reset_reused:
                    self.resets += 1
                    sock = client_out.get_extra_info("socket")
                    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                    client_out.transport.abort()  # an RST, as a server closing with the request unread
                    return
                server_out.write(data)
                await server_out.drain()
        except (OSError, TimeoutError):
            pass
        finally:
            relaying.cancel()
            server_out.close()
            client_out.close()


@pytest.fixture
def stub() -> Iterator[StubServer]:
    with StubServer(profile="stalwart") as server:
        yield server


def stored_descriptions(stub: StubServer) -> dict[str, str]:
    """The server's directories' descriptions, by id."""
    wires = stub.store.get(DIRECTORY, stub.store.all_ids(DIRECTORY))
    return {key: str(wire.get("description")) for key, wire in wires.items()}


async def test_a_read_reset_on_a_kept_alive_connection_goes_again(stub: StubServer) -> None:
    with Proxy(stub.base_url, reset_reused=True) as proxy:
        async with JmapClient(proxy.url, stub.admin_token) as client:
            await client.session()  # (its own requests are reads too: some were reset and went again)
            before = proxy.resets
            # Each request on a kept-alive connection is reset, and goes again on a new one.
            first = await client.directories.get(None)
            second = await client.directories.get(None)
    assert [wire["description"] for wire in first.raw] == [wire["description"] for wire in second.raw]
    assert DESCRIPTION in [wire["description"] for wire in first.raw]
    assert proxy.resets - before == 2, "both reads were reset once, then answered on a new connection"


async def test_a_write_reset_on_a_kept_alive_connection_is_not_sent_again(stub: StubServer) -> None:
    key = next(key for key, said in stored_descriptions(stub).items() if said == DESCRIPTION)
    with Proxy(stub.base_url, reset_reused=True) as proxy:
        async with JmapClient(proxy.url, stub.admin_token) as client:
            await client.session(), await client.permissions()  # the reads a write asks first
            before = (proxy.resets, proxy.connections)
            with pytest.raises(ServerUnreachable) as raised:
                await client.directories.update(key, {"description": "renamed"})
    assert raised.value.sent, "the write left: the caller must say it may have been done"
    assert (proxy.resets, proxy.connections) == (before[0] + 1, before[1]), "sent once, never again"
    assert stored_descriptions(stub)[key] == DESCRIPTION


async def test_a_connection_idle_past_the_reuse_time_is_not_used_again(stub: StubServer) -> None:
    with Proxy(stub.base_url, reset_reused=False) as proxy:
        async with JmapClient(proxy.url, stub.admin_token) as client:
            await client.directories.get(None)
            await client.directories.get(None)
            assert proxy.connections == 1, "requests in a burst share one connection"
            await asyncio.sleep(IDLE_REUSE_SECONDS + 0.5)  # under the server's own 5 s: the client let it go
            await client.directories.get(None)
    assert proxy.connections == 2, "after a pause the request went on a new connection"
