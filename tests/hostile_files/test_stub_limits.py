"""The stub's own limits: bounded replies, slow clients cut off, connections capped."""

from __future__ import annotations

import json
import socket
import time
from typing import Any

import pytest

from server_stub import limits
from server_stub.limits import MAX_SIZE_RESPONSE, json_size
from server_stub.runner import StubServer
from server_stub.serve import build_parser
from tests.support.stub import READONLY, running_stub

CORE = "urn:ietf:params:jmap:core"


def echo_amplifier(references: int) -> dict[str, Any]:
    """~100 KB asking for a reply of many gigabytes: each call echoes the last one many times over."""
    calls: list[list[Any]] = [["Core/echo", {"blob": "x" * 60_000}, "c0"]]
    for index in range(1, 16):
        arguments = {
            f"#k{n}": {"resultOf": f"c{index - 1}", "name": "Core/echo", "path": ""} for n in range(references)
        }
        calls.append(["Core/echo", arguments, f"c{index}"])
    return {"using": [CORE], "methodCalls": calls}


def test_json_size_counts_shared_values_but_stops_at_the_limit() -> None:
    value: Any = "x" * 1000
    for _ in range(40):  # 2^40 copies once written out
        value = [value, value]
    started = time.monotonic()
    assert json_size(value, 50_000) > 50_000
    assert time.monotonic() - started < 1
    small = {"a": [1, "é", None, True]}
    assert json_size(small, 10_000) >= len(json.dumps(small, separators=(",", ":"), ensure_ascii=False))


async def test_echo_and_references_cannot_build_a_huge_reply() -> None:
    request = echo_amplifier(references=100)
    assert len(json.dumps(request)) < 200_000
    async with running_stub("spec") as stub:
        started = time.monotonic()
        response = await stub.post(request, token=READONLY)
        elapsed = time.monotonic() - started
    assert response.status_code == 200
    assert len(response.content) < MAX_SIZE_RESPONSE + 10_000
    answers = response.json()["methodResponses"]
    assert [a[2] for a in answers] == [f"c{n}" for n in range(16)]  # every call answered
    assert answers[0][0] == "Core/echo"
    refused = [a for a in answers if a[0] == "error"]
    assert refused and refused[0][1]["type"] == "requestTooLarge"
    # Later calls point at an answer that became an error, and say so.
    assert {a[1]["type"] for a in refused} <= {"requestTooLarge", "invalidResultReference"}
    assert elapsed < 5


def open_half(base_url: str, count: int) -> list[socket.socket]:
    host, port = base_url.removeprefix("http://").rsplit(":", 1)
    sockets = []
    for _ in range(count):
        sock = socket.create_connection((host, int(port)), timeout=5)
        sock.sendall(b"POST /api HTTP/1.1\r\nHost: x\r\nX-Slow: ")  # headers never finish
        sockets.append(sock)
    return sockets


def closed_by_server(sock: socket.socket, wait: float) -> bool:
    sock.settimeout(wait)
    try:
        sock.recv(1024)  # data (a 4xx) or EOF: either way the server ended it
        return True
    except TimeoutError:
        return False
    except OSError:
        return True


def test_half_open_connections_are_closed_and_capped(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(limits, "HEADER_TIMEOUT", 0.5)
    with StubServer(reports=0) as stub:
        sockets = open_half(stub.base_url, 200)
        try:
            deadline = time.monotonic() + 10
            still_open = [s for s in sockets if not closed_by_server(s, max(deadline - time.monotonic(), 0.1))]
            assert not still_open
            # And the server still serves a well-behaved client.
            host, port = stub.base_url.removeprefix("http://").rsplit(":", 1)
            with socket.create_connection((host, int(port)), timeout=5) as fresh:
                fresh.sendall(b"GET /.well-known/jmap HTTP/1.1\r\nHost: x\r\n\r\n")
                assert fresh.recv(1024).startswith(b"HTTP/1.1 307")
        finally:
            for sock in sockets:
                sock.close()


def test_a_body_that_never_arrives_gets_408(monkeypatch: pytest.MonkeyPatch) -> None:
    from server_stub import app

    monkeypatch.setattr(app, "BODY_TIMEOUT", 0.5)
    with StubServer(reports=0) as stub:
        host, port = stub.base_url.removeprefix("http://").rsplit(":", 1)
        with socket.create_connection((host, int(port)), timeout=5) as sock:
            sock.sendall(
                b"POST /api HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + stub.admin_token.encode()
                + b"\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"using\""
            )
            started = time.monotonic()
            answer = sock.recv(4096)
            assert answer.startswith(b"HTTP/1.1 408")
            assert time.monotonic() - started < 5


def test_serve_help_lists_the_limits() -> None:
    text = build_parser().format_help()
    for words in ("responses up to", "headers within", "body within", "connections"):
        assert words in " ".join(text.split())
