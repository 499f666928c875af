"""One-shot commands on blocking sockets, with no event loop (jmapclient.blocking): the same
client, object API and pager as the console's, and the same bounds and settings as on a loop."""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from jmapclient import JmapClient, blocking
from jmapclient.errors import RequestTimeout, ServerError
from server_stub.runner import StubServer
from tests.support.fault_server import FaultServer

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "blocking-test-token-0c1d"
UNAVAILABLE = b"HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"


def test_run_gives_the_result_or_the_error_of_a_coroutine_that_never_suspends() -> None:
    async def answer() -> int:
        return 42

    async def fails() -> int:
        raise ValueError("refused")

    assert blocking.run(answer()) == 42
    with pytest.raises(ValueError, match="refused"):
        blocking.run(fails())


def test_run_refuses_a_coroutine_that_waits_on_a_loop_and_closes_it() -> None:
    cleaned: list[bool] = []

    async def sleeps() -> None:
        try:
            await asyncio.sleep(0)
        finally:
            cleaned.append(True)

    with pytest.raises(RuntimeError, match="needs an event loop"):
        blocking.run(sleeps())
    assert cleaned == [True]  # closed, not left pending


def test_a_blocking_client_bounds_a_trickling_body_as_a_whole() -> None:
    # httpx times each read on its own; a body that trickles a byte at a time must still end
    # within the timeout, as asyncio.timeout bounds it on a loop.
    with FaultServer("slow") as server:
        client = JmapClient(server.url, TOKEN, timeout=0.5, blocking=True)
        started = time.monotonic()
        with pytest.raises(RequestTimeout):
            blocking.run(client.directories.query())
        assert time.monotonic() - started < 2
        blocking.run(client.aclose())


@pytest.fixture
def recording_proxy() -> Iterator[tuple[str, list[str]]]:
    """An HTTP proxy on 127.0.0.1 that records each request line and answers 503."""
    seen: list[str] = []
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(5)
    finished = threading.Event()

    def serve() -> None:
        for _ in range(4):  # bounded: a session request and an API request at most
            try:
                connection, _ = listener.accept()
            except OSError:
                return
            if finished.is_set():  # the test's own wake-up call
                connection.close()
                return
            with connection:
                head = b""
                while b"\r\n\r\n" not in head and len(head) < 65536:
                    chunk = connection.recv(4096)
                    if not chunk:
                        break
                    head += chunk
                seen.append(head.split(b"\r\n", 1)[0].decode("latin-1"))
                connection.sendall(UNAVAILABLE)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{listener.getsockname()[1]}", seen
    # Closing the socket does not end a blocked accept(); a connection does (else 5 s a test).
    finished.set()
    with contextlib.suppress(OSError), socket.create_connection(listener.getsockname(), timeout=1):
        pass
    thread.join(timeout=5)
    listener.close()


@pytest.mark.parametrize("on_a_loop", [True, False], ids=["loop", "blocking"])
def test_both_ways_send_through_the_proxy_the_environment_names(
    on_a_loop: bool, recording_proxy: tuple[str, list[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    # An async client given a transport ignores proxy variables; the blocking transport must not.
    proxy, seen = recording_proxy
    for name in ("NO_PROXY", "no_proxy", "ALL_PROXY", "all_proxy", "HTTPS_PROXY", "https_proxy"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HTTP_PROXY", proxy)
    # Nothing listens there: only the proxy can answer. Not loopback, which is reached without proxies.
    target = "http://192.0.2.1:9"

    async def session() -> None:
        async with JmapClient(target, TOKEN, timeout=5, blocking=not on_a_loop) as client:
            await client.session()

    with pytest.raises(ServerError):  # the proxy's 503
        asyncio.run(session()) if on_a_loop else blocking.run(session())
    assert seen == [f"GET {target}/.well-known/jmap HTTP/1.1"]


@pytest.mark.parametrize("argv", [["query", "DmarcExternalReport", "--ids-only"], ["export-dmarc", "--format", "csv"]])
def test_a_reader_that_leaves_early_is_no_error(argv: list[str], stub_server: StubServer) -> None:
    # `mailadmin export-dmarc | head -1`: the pipe closes before the command writes; it ends quietly, exit 0.
    command = [sys.executable, "-c", "import sys; from mailadmin.main import main; sys.exit(main())", *argv,
               "--url", stub_server.base_url]
    env = {**os.environ, "MAILADMIN_TOKEN": stub_server.admin_token}
    reader = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT, env=env)
    assert reader.stdout is not None and reader.stderr is not None
    reader.stdout.close()  # the reader leaves before the first line (start-up alone takes longer)
    try:
        _, errors = reader.communicate(timeout=60)
    finally:
        reader.kill()
    assert (reader.returncode, errors.decode()) == (0, "")
