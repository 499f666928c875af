"""Entry points the front door calls lazily: ``mailadmin`` and ``mailadmin demo``.

Both return the app's return code (nonzero when it crashed), so ``main()`` can exit with it.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
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


def run_console(args: argparse.Namespace, *, after_first_frame: Callable[[], None] | None = None,
                before_run: Callable[[], None] | None = None) -> int:
    """Open the console where the command line says; a connection that cannot be decided is one error line.

    ``after_first_frame`` runs once the console has drawn its first frame (the front door turns its
    cycle collector back on there: mailadmin.startup); ``before_run`` just before the console takes the terminal
    (the front door gives back the terminal's modes it changed: mailadmin.early_keys)."""
    warned: list[str] = []
    try:
        app = build_console(args, warned.append)
        app.after_first_frame = after_first_frame
    except ConfigError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    for line in warned:  # said before the screen is taken, and again inside the console
        print(f"warning: {line}", file=sys.stderr)
    remember_theme(app, app.config)
    _run(app, before_run)
    return _exit_code(app)


def _run(app: MailAdminApp, before_run: Callable[[], None] | None) -> None:
    if before_run is not None:
        before_run()
    app.run()


def build_console(args: argparse.Namespace, warn: Callable[[str], None]) -> MailAdminApp:
    """The console for these arguments, decided as the CLI decides (:func:`resolve_args`).

    Flags and environment (``--url``, ``--token-file``, ``MAILADMIN_URL`` ...) connect at once,
    over any profile; otherwise ``--profile`` or the default profile, from the profile list.
    """
    # Where to connect is decided before the first frame; the connection's modules (secrets, TLS,
    # the connect screen) load only when flags or the environment name one.
    from jmapclient.connection import given_explicitly, resolve_args

    config = Config.load()
    for line in config.profile_refusals:  # skipped: the others can be used
        warn(line)
    if args.token_stdin or args.password_stdin:
        # The console reads its keys from standard input: a piped secret would leave it without a keyboard.
        raise ConfigError("the console reads its keys from standard input: give the secret with --token-file, "
                          "--password-file, the environment, or at the prompt")
    if not given_explicitly(args):
        return MailAdminApp(config=config, profile=args.profile)
    warned: list[str] = []

    def both(line: str) -> None:
        warned.append(line)
        warn(line)

    target = resolve_args(args, warn=both)

    async def start() -> ConsoleContext:
        from tui.screens.connect import connect

        return await connect(target, tuple(warned))

    return MailAdminApp(config=config, starter=start, target=target.url)


def run_demo(start_server: Callable[[], LocalServer], *, offline: bool = False,
             after_first_frame: Callable[[], None] | None = None, before_run: Callable[[], None] | None = None) -> int:
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
                              offline=offline or _offline(), granted=await client.permissions())

    app = MailAdminApp(starter=start, keys=_keys(), demo=True, target="the demo server")
    app.after_first_frame = after_first_frame
    remember_theme(app)
    try:
        _run(app, before_run)
    finally:
        for server in started:
            server.stop()
    return _exit_code(app)


def remember_theme(app: MailAdminApp, config: Config | None = None) -> None:
    """The console a person starts keeps the theme they choose, and opens in the one kept."""
    from tui.theme_memory import saved_theme

    app.keep_theme = True
    app.saved_theme = saved_theme(config)


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
