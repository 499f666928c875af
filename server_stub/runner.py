"""StubServer: the stub on a real loopback socket, in a background thread.

For tests, the demo and other engineers::

    with StubServer(reports=50) as server:
        client = JmapClient(server.base_url, server.admin_token)
"""

from __future__ import annotations

import threading
import time
from datetime import datetime
from pathlib import Path
from types import TracebackType

import uvicorn

from server_stub.app import create_app
from server_stub.auth import new_token, standard_registry
from server_stub.limits import server_config
from server_stub.store import MEMORY, Store

START_TIMEOUT = 10.0
STOP_TIMEOUT = 10.0


class StubServer:
    """A running stub on ``127.0.0.1`` and a free port. Start with ``with`` or :meth:`start`."""

    def __init__(
        self,
        db: str | Path = MEMORY,
        *,
        profile: str = "spec",
        reports: int = 0,
        directories: bool = True,
        admin_token: str | None = None,
        readonly_token: str | None = None,
        seed: int | None = None,
        now: datetime | None = None,
        host: str = "127.0.0.1",
        port: int = 0,
        public_url: str | None = None,
        admin_password: str | None = None,
        bootstrap: bool = False,
    ) -> None:
        self.profile = profile
        self.admin_token = admin_token or new_token()
        self.readonly_token = readonly_token or new_token()
        self.store = Store(db)
        if reports or directories:
            from server_stub.demo_data import seed_store

            seed_store(self.store, reports=reports, directories=directories, seed=seed, now=now)
        self.admin_password = admin_password
        self.tokens = tokens = standard_registry(self.admin_token, self.readonly_token, admin_password)
        # None: the profile's own default, as `serve` gives it — the Host header (spec) or, like the
        # real server, ``https://<hostname>`` (stalwart), which the client reaches by its path only.
        self.app = create_app(self.store, profile=profile, tokens=tokens, public_url=public_url,
                              bootstrap=bootstrap)
        config = server_config(self.app, host=host, port=port, lifespan="on")
        self._server = uvicorn.Server(config)
        self._thread: threading.Thread | None = None
        self.base_url = ""

    def __repr__(self) -> str:  # tokens stay out of reprs and test output
        return f"StubServer({self.base_url or 'not started'}, profile={self.profile!r})"

    def start(self) -> StubServer:
        self._thread = threading.Thread(target=self._server.run, name="stub-server", daemon=True)
        self._thread.start()
        deadline = time.monotonic() + START_TIMEOUT
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the stub server did not start")
            time.sleep(0.01)
        host, port = self._server.servers[0].sockets[0].getsockname()[:2]
        self.base_url = f"http://{host}:{port}"
        return self

    def stop(self) -> None:
        if self._thread is not None:
            self._server.should_exit = True
            self._thread.join(STOP_TIMEOUT)
            self._thread = None
        self.store.close()

    def __enter__(self) -> StubServer:
        return self.start()

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.stop()
