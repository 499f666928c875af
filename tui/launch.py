"""Entry points the CLI calls lazily: ``mailadmin`` and ``mailadmin demo``.

Both return the app's return code (nonzero when it crashed), so ``main()`` can exit with it.
"""

from __future__ import annotations

from jmapclient import JmapClient
from jmapclient.config import Config, ConfigError, data_dir
from tui.app import MailAdminApp
from tui.context import ConsoleContext

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


def run_demo(fresh: bool, reports: int | None) -> int:
    """Start the bundled stub on 127.0.0.1 with its own database and open the console on it.

    The database is ``data_dir()/demo.sqlite3``, seeded on first run; ``fresh`` reseeds it.
    ``reports`` sets how many DMARC reports a (re)seed creates (the stub's default if None).
    """
    from server_stub.runner import StubServer  # the stub is only needed for the demo

    path = data_dir() / DEMO_DATABASE
    with StubServer(database=path, fresh=fresh, reports=reports) as server:
        client = JmapClient(server.base_url, server.admin_token)
        context = ConsoleContext(client=client, server_label=f"demo {server.base_url}", username="admin")
        app = MailAdminApp(context, keys=_keys(), demo=True)
        app.run()
    return _exit_code(app)


def _keys() -> dict[str, str]:
    try:
        return Config.load().keys
    except ConfigError:
        return {}
