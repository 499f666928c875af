"""The bundled server stays up (issue #28, item 2): idle-socket floods, lone surrogates, big headers, Host.

All on loopback with a bounded number of sockets; 127.0.0.2 plays the other client.
"""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator

import pytest

from server_stub import limits
from server_stub.runner import StubServer

CORE = "urn:ietf:params:jmap:core"
FLOOD = 100
"""Idle sockets from one address: past the 66 that made every request a 503."""


@pytest.fixture(scope="module")
def stub() -> Iterator[StubServer]:
    with StubServer(reports=0) as running:
        yield running


def address(stub: StubServer) -> tuple[str, int]:
    host, port = stub.base_url.removeprefix("http://").rsplit(":", 1)
    return host, int(port)


def connect(stub: StubServer, source: str = "127.0.0.1") -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.settimeout(5)
    sock.bind((source, 0))
    sock.connect(address(stub))
    return sock


def exchange(stub: StubServer, raw: bytes, source: str = "127.0.0.1") -> bytes:
    """One request on a fresh connection; the whole answer (the server closes or the body ends)."""
    with connect(stub, source) as sock:
        sock.sendall(raw)
        answer = b""
        while True:
            try:
                chunk = sock.recv(65536)
            except (TimeoutError, ConnectionResetError):
                break
            if not chunk:
                break
            answer += chunk
            head, _, body = answer.partition(b"\r\n\r\n")
            length = [int(line.split(b":")[1]) for line in head.split(b"\r\n")
                      if line.lower().startswith(b"content-length")]
            if length and len(body) >= length[0]:
                break
        return answer


def session_request(stub: StubServer, host: bytes = b"x", extra: bytes = b"") -> bytes:
    return (b"GET /jmap/session HTTP/1.1\r\nHost: " + host + b"\r\nAuthorization: Bearer "
            + stub.admin_token.encode() + b"\r\n" + extra + b"\r\n")


def status(answer: bytes) -> int:
    return int(answer.split(b" ", 2)[1]) if answer.startswith(b"HTTP/1.1 ") else 0


def test_idle_sockets_from_one_address_leave_the_others_served(stub) -> None:
    flood = []
    try:
        for _ in range(FLOOD):
            try:
                flood.append(connect(stub))  # connected, and sends nothing
            except OSError:
                break
        other = exchange(stub, session_request(stub), source="127.0.0.2")
        assert status(other) == 200, other[:200]
        # Not a 503 from the flooding address either while it has room: only its extra sockets are refused.
        closed = 0
        for sock in flood:
            sock.settimeout(0.05)
            try:
                closed += sock.recv(1) == b""
            except TimeoutError:
                pass
            except OSError:
                closed += 1
        assert closed >= FLOOD - limits.MAX_CONNECTIONS_PER_CLIENT
    finally:
        for sock in flood:
            sock.close()


def test_a_full_server_gives_a_silent_connections_place_to_a_new_one(stub, monkeypatch) -> None:
    monkeypatch.setattr(limits, "MAX_CONNECTIONS", 20)
    monkeypatch.setattr(limits, "MAX_CONNECTIONS_PER_CLIENT", 5)
    flood = []
    try:
        for n in range(40):  # five each from eight addresses: more than the server holds
            flood.append(connect(stub, f"127.0.1.{n % 8 + 1}"))
        assert status(exchange(stub, session_request(stub), source="127.0.0.2")) == 200
    finally:
        for sock in flood:
            sock.close()


def api_request(stub: StubServer, body: bytes) -> bytes:
    return (b"POST /api HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + stub.admin_token.encode()
            + b"\r\nContent-Type: application/json\r\nContent-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body)


@pytest.mark.parametrize("body", [
    b'{"using":["' + CORE.encode() + b'"],"methodCalls":[["Core/echo",{"x":"\\ud800"},"c0"]]}',
    b'{"using":["' + CORE.encode() + b'"],"methodCalls":[["\\udfff",{},"c0"]]}',
    b'{"using":["' + CORE.encode() + b'"],"methodCalls":[["Core/echo",{},"\\ud83d"]]}',
    b'{"using":["\\ud800"],"methodCalls":[]}',
])
def test_a_lone_surrogate_is_a_bad_request_not_a_500(stub, body) -> None:
    answer = exchange(stub, api_request(stub, body))
    assert status(answer) == 400, answer[:300]
    assert json.loads(answer.partition(b"\r\n\r\n")[2])["type"].endswith("notJSON")


def test_a_pair_of_surrogates_is_a_character(stub) -> None:
    body = b'{"using":["' + CORE.encode() + b'"],"methodCalls":[["Core/echo",{"x":"\\ud83d\\ude00 \\\\ud800"},"c0"]]}'
    answer = exchange(stub, api_request(stub, body))
    assert status(answer) == 200, answer[:300]
    [[_, echoed, _]] = json.loads(answer.partition(b"\r\n\r\n")[2])["methodResponses"]
    assert echoed == {"x": "\U0001f600 \\ud800"}


@pytest.mark.parametrize("size", [limits.MAX_HEADER_BYTES + 1024, 100_000])
def test_headers_over_the_promised_size_are_refused(stub, size) -> None:
    answer = exchange(stub, session_request(stub, extra=b"X-Big: " + b"a" * size + b"\r\n"))
    assert status(answer) == 431, answer[:200]


def test_headers_within_the_promised_size_are_served(stub) -> None:
    answer = exchange(stub, session_request(stub, extra=b"X-Big: " + b"a" * (limits.MAX_HEADER_BYTES - 2048) + b"\r\n"))
    assert status(answer) == 200, answer[:200]


def test_the_session_never_reflects_the_host_header(stub) -> None:
    answer = exchange(stub, session_request(stub, host=b"evil.example:666"))
    session = json.loads(answer.partition(b"\r\n\r\n")[2])
    assert session["apiUrl"].startswith(stub.base_url) and "evil" not in answer.decode()


def test_a_configured_public_url_is_named_instead() -> None:
    with StubServer(reports=0, public_url="https://mail.example.org") as configured:
        answer = exchange(configured, session_request(configured, host=b"evil.example"))
    assert json.loads(answer.partition(b"\r\n\r\n")[2])["apiUrl"].startswith("https://mail.example.org/")


async def test_requests_in_progress_past_the_limit_get_503_and_idle_ones_do_not_count(monkeypatch) -> None:
    import asyncio

    monkeypatch.setattr(limits, "MAX_CONCURRENT", 3)
    release = asyncio.Event()

    async def slow(scope, receive, send) -> None:
        await release.wait()
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b""})

    guarded = limits.GuardedApp(slow)
    statuses: list[int] = []

    async def call() -> None:
        async def send(message) -> None:
            if message["type"] == "http.response.start":
                statuses.append(message["status"])
        await guarded({"type": "http", "method": "GET", "raw_path": b"/", "headers": []}, None, send)

    running = [asyncio.create_task(call()) for _ in range(3)]
    await asyncio.sleep(0)
    await call()  # a fourth while three are in progress
    assert statuses == [503]
    release.set()
    await asyncio.gather(*running)
    await call()  # the three done: room again
    assert statuses == [503, 200, 200, 200, 200]


def test_a_connection_that_sends_nothing_is_closed(monkeypatch) -> None:
    monkeypatch.setattr(limits, "HEADER_TIMEOUT", 0.5)
    with StubServer(reports=0) as fresh, connect(fresh) as silent:
        silent.settimeout(5)
        assert silent.recv(1) == b""  # closed by the server, not by the test's timeout
