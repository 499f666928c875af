"""Entry points the CLI calls lazily: ``mailadmin`` and ``mailadmin demo``.

Both return the app's return code (nonzero when it crashed), so ``main()`` can exit with it.
"""

from __future__ import annotations

import asyncio
from datetime import datetime
from typing import TYPE_CHECKING

from jmapclient.config import Config, ConfigError, data_dir
from tui.app import MailAdminApp
from tui.context import ConsoleContext

if TYPE_CHECKING:
    from server_stub.runner import StubServer

DEMO_DATABASE = "demo.sqlite3"


def _exit_code(app: MailAdminApp) -> int:
    return app.return_code or 0


def run_console(profile: str | None) -> int:
    """Open the console on ``profile`` (or the default one) from the config file."""
    try:
        config = Config.load()
    except ConfigError as error:
        print(f"mailadmin: {error}")
        return 2
    app = MailAdminApp(config=config, profile=profile)
    app.run()
    return _exit_code(app)


def demo_server(fresh: bool, reports: int | None, *, now: datetime | None = None) -> StubServer:
    """The bundled stub on 127.0.0.1 with the demo's own database, not yet started.

    The database is ``data_dir()/demo.sqlite3``, seeded on first run; ``fresh`` reseeds it.
    ``reports`` sets how many DMARC reports a (re)seed creates (the stub's default if None).
    A seed is dated up to ``now`` (default: this hour), so "the last 30 days" in the
    console shows the demo's reports; the tests' fixed anchor is for determinism only.
    """
    from server_stub.demo_data import DEFAULT_REPORTS, current_hour  # the stub is only needed for the demo
    from server_stub.runner import StubServer

    path = data_dir() / DEMO_DATABASE
    path.parent.mkdir(parents=True, exist_ok=True)
    if fresh:
        # The stub seeds an empty database only, so reseeding means starting from no file.
        for leftover in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
            leftover.unlink(missing_ok=True)
    count = DEFAULT_REPORTS if reports is None else reports
    return StubServer(path, reports=count, now=now or current_hour())


def run_demo(fresh: bool, reports: int | None) -> int:
    """Open the console at once and start the demo stub behind it, over HTTP like any server."""
    started: list[StubServer] = []

    async def start() -> ConsoleContext:
        server = await asyncio.to_thread(lambda: demo_server(fresh, reports).start())
        started.append(server)
        from jmapclient.client import JmapClient

        client = JmapClient(server.base_url, server.admin_token)
        return ConsoleContext(client=client, server_label=f"demo {server.base_url}", username="admin")

    app = MailAdminApp(starter=start, keys=_keys(), demo=True)
    try:
        app.run()
    finally:
        for server in started:
            server.stop()
    return _exit_code(app)


def _keys() -> dict[str, str]:
    try:
        return Config.load().keys
    except ConfigError:
        return {}
