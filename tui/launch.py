"""Entry points the front door calls lazily: ``mailadmin`` and ``mailadmin demo``.

Both return the app's return code (nonzero when it crashed), so ``main()`` can exit with it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Protocol

from jmapclient.config import Config, ConfigError
from tui.app import MailAdminApp
from tui.context import ConsoleContext


class LocalServer(Protocol):
    """A started server the console connects to as admin, and stops when it quits (the demo's stub)."""

    base_url: str
    admin_token: str

    def stop(self) -> None: ...


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


def run_demo(start_server: Callable[[], LocalServer], *, offline: bool = False) -> int:
    """Open the console at once and start the demo server behind it, over HTTP like any server.

    ``start_server`` blocks until the server listens, so it runs in a thread after the first frame.
    """
    started: list[LocalServer] = []

    async def start() -> ConsoleContext:
        server = await asyncio.to_thread(start_server)
        started.append(server)
        from jmapclient.client import JmapClient

        client = JmapClient(server.base_url, server.admin_token)
        return ConsoleContext(client=client, server_label=f"demo {server.base_url}", username="admin",
                              offline=offline or _offline())

    app = MailAdminApp(starter=start, keys=_keys(), demo=True)
    try:
        app.run()
    finally:
        for server in started:
            server.stop()
    return _exit_code(app)


def _offline() -> bool:
    try:
        return Config.load().offline
    except ConfigError:
        return False


def _keys() -> dict[str, str]:
    try:
        return Config.load().keys
    except ConfigError:
        return {}
