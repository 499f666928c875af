"""A JMAP server on 127.0.0.1 that misbehaves on purpose, for the client fault tests.

It speaks just enough HTTP/1.1 by hand (asyncio streams) to control every byte: it serves a
valid session resource, then answers ``POST /api`` with the chosen :data:`FAULTS` entry. It
runs in a background thread, so the CLI under test can run in the main thread (or as a
subprocess) against ``server.url``.
"""

from __future__ import annotations

import asyncio
import json
import threading
from types import TracebackType
from typing import Any

from jmapclient.session import CORE_CAPABILITY, SPEC_CAPABILITY

FAULTS = ("dies", "hangs", "expired", "unavailable", "crashes", "malformed", "slow", "html")
"""What ``POST /api`` gets:

- dies: the server closes its listener and drops the connection with no answer (dies mid-session);
- hangs: the request is read and never answered (a timeout);
- expired: 401 with ``WWW-Authenticate: Bearer error="invalid_token"`` (an expired token);
- unavailable / crashes: 503 with a problem body / 500 with a plain-text body (5xx answers);
- malformed: 200 with a cut-off JSON body;
- slow: headers at once, then the body one byte every ``TRICKLE_SECONDS`` (a very slow response);
- html: 200 with an HTML page (a proxy's error page).
"""
TRICKLE_SECONDS = 0.2
SLOW_BODY = b'{"methodResponses": [], "sessionState": "s"}'


def _response(status: int, body: bytes, content_type: str = "application/json",
              extra: tuple[str, ...] = ()) -> bytes:
    reason = {200: "OK", 401: "Unauthorized", 500: "Internal Server Error", 503: "Service Unavailable"}[status]
    head = [f"HTTP/1.1 {status} {reason}", f"Content-Type: {content_type}", f"Content-Length: {len(body)}",
            "Connection: close", *extra]
    return ("\r\n".join(head) + "\r\n\r\n").encode() + body


class FaultServer:
    """``with FaultServer("hangs") as server: main([... "--url", server.url ...])``

    ``at_session`` makes the session request fail the same way (the first request a client sends).
    """

    def __init__(self, fault: str, *, at_session: bool = False) -> None:
        if fault not in FAULTS:
            raise ValueError(f"unknown fault {fault!r}")
        self.fault = fault
        self.at_session = at_session
        self.url = ""
        self.api_requests = 0
        self._loop = asyncio.new_event_loop()
        self._server: asyncio.Server | None = None
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"fault-{fault}", daemon=True)
        self._release = asyncio.Event()

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        self._server = self._loop.run_until_complete(asyncio.start_server(self._handle, "127.0.0.1", 0))
        port = self._server.sockets[0].getsockname()[1]
        self.url = f"http://127.0.0.1:{port}"
        self._ready.set()
        self._loop.run_forever()

    def __enter__(self) -> FaultServer:
        self._thread.start()
        if not self._ready.wait(10):
            raise RuntimeError("the fault server did not start")
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 trace: TracebackType | None) -> None:
        async def stop() -> None:
            self._release.set()
            if self._server is not None:
                self._server.close()
            handlers = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
            for handler in handlers:
                handler.cancel()
            await asyncio.gather(*handlers, return_exceptions=True)

        asyncio.run_coroutine_threadsafe(stop(), self._loop).result(5)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(5)
        self._loop.close()

    def session(self) -> dict[str, Any]:
        return {
            "capabilities": {CORE_CAPABILITY: {"maxCallsInRequest": 16, "maxObjectsInGet": 500,
                                               "maxObjectsInSet": 500, "maxSizeRequest": 10_000_000},
                             SPEC_CAPABILITY: {}},
            "accounts": {"a": {"name": "fault", "isPersonal": True, "isReadOnly": False,
                               "accountCapabilities": {SPEC_CAPABILITY: {}}}},
            "primaryAccounts": {CORE_CAPABILITY: "a", SPEC_CAPABILITY: "a"},
            "username": "fault", "apiUrl": f"{self.url}/api", "state": "s",
        }

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            request_line = (await reader.readline()).decode("latin-1")
            length = 0
            while (line := await reader.readline()) not in (b"\r\n", b""):
                name, _, value = line.decode("latin-1").partition(":")
                if name.strip().lower() == "content-length":
                    length = int(value.strip())
            if length:
                await reader.readexactly(length)
            if request_line.startswith("POST"):
                self.api_requests += 1
                await self._fail(writer)
            elif self.at_session:
                await self._fail(writer)
            else:
                writer.write(_response(200, json.dumps(self.session()).encode()))
            await writer.drain()
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            if not writer.is_closing():
                writer.close()

    async def _fail(self, writer: asyncio.StreamWriter) -> None:
        fault = self.fault
        if fault == "dies":
            assert self._server is not None
            self._server.close()  # nobody answers any more
            writer.transport.abort()  # and this connection is cut without a word
        elif fault == "hangs":
            await self._release.wait()
        elif fault == "expired":
            writer.write(_response(401, b'{"type":"about:blank","status":401,"detail":"token expired"}',
                                   "application/problem+json",
                                   ('WWW-Authenticate: Bearer error="invalid_token", error_description="expired"',)))
        elif fault == "unavailable":
            writer.write(_response(503, b'{"type":"about:blank","status":503,"detail":"maintenance"}',
                                   "application/problem+json"))
        elif fault == "crashes":
            writer.write(_response(500, b"Internal Server Error", "text/plain"))
        elif fault == "malformed":
            writer.write(_response(200, b'{"methodResponses": [["x:Directory/query", {"ids": ['))
        elif fault == "html":
            writer.write(_response(200, b"<html><body>Bad gateway</body></html>", "text/html"))
        elif fault == "slow":
            head = _response(200, SLOW_BODY)[: -len(SLOW_BODY)]
            writer.write(head)
            for byte in SLOW_BODY:
                await writer.drain()
                if self._release.is_set():
                    return
                await asyncio.sleep(TRICKLE_SECONDS)
                writer.write(bytes([byte]))
