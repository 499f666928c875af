"""A JMAP server on 127.0.0.1 that lies: it answers each path with bytes the test chooses.

``with HostileServer(api=b'...', session=...) as server: main([... "--url", server.url ...])``.
The session resource is valid unless the test gives its own; every answer is sent as it is,
gzip-encoded when ``gzip`` is set (the client must count the bytes after decoding).
"""

from __future__ import annotations

import asyncio
import gzip as gzip_module
import json
import threading
from types import TracebackType

from jmapclient.session import CORE_CAPABILITY, SPEC_CAPABILITY


def session_body(url: str) -> bytes:
    return json.dumps({
        "capabilities": {CORE_CAPABILITY: {}, SPEC_CAPABILITY: {}},
        "accounts": {"a": {"accountCapabilities": {SPEC_CAPABILITY: {}}}},
        "primaryAccounts": {SPEC_CAPABILITY: "a"}, "apiUrl": f"{url}/api", "username": "x", "state": "s",
    }).encode()


def method_answer(name: str, arguments: object, *more: tuple[str, object, str]) -> bytes:
    responses = [[name, arguments, "c0"], *[list(m) for m in more]]
    return json.dumps({"methodResponses": responses, "sessionState": "s"}).encode()


class HostileServer:
    def __init__(self, *, api: bytes, session: bytes | None = None, gzip: bool = False) -> None:
        self.api = gzip_module.compress(api, compresslevel=9) if gzip else api
        self.session = session
        self.gzip = gzip
        self.url = ""
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, name="hostile-server", daemon=True)
        self._server: asyncio.Server | None = None

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        self._server = self._loop.run_until_complete(asyncio.start_server(self._handle, "127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self._server.sockets[0].getsockname()[1]}"
        self._ready.set()
        self._loop.run_forever()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            request_line = await asyncio.wait_for(reader.readline(), 10)
            length = 0
            while (line := await asyncio.wait_for(reader.readline(), 10)) not in (b"\r\n", b""):
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
            if length:
                await asyncio.wait_for(reader.readexactly(length), 10)
            is_session = b"/.well-known/jmap" in request_line
            body = (self.session or session_body(self.url)) if is_session else self.api
            headers = ["HTTP/1.1 200 OK", "Content-Type: application/json", "Connection: close"]
            if self.gzip and not is_session:
                headers.append("Content-Encoding: gzip")
            headers.append(f"Content-Length: {len(body)}")
            writer.write(("\r\n".join(headers) + "\r\n\r\n").encode() + body)
            await writer.drain()
        except (TimeoutError, OSError, asyncio.IncompleteReadError):
            pass
        finally:
            writer.close()

    def __enter__(self) -> HostileServer:
        self._thread.start()
        if not self._ready.wait(10):
            raise RuntimeError("the hostile server did not start")
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 trace: TracebackType | None) -> None:
        async def stop() -> None:
            if self._server is not None:
                self._server.close()
        asyncio.run_coroutine_threadsafe(stop(), self._loop).result(10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)
