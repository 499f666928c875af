"""``mailadmin demo``: the bundled stub on its own database, with the console opened on it.

The console paints first and starts the stub behind it: it receives the start as a
callable, so ``tui`` never imports ``server_stub``.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from jmapclient.config import data_dir
from tui.launch import run_demo as open_console_on

if TYPE_CHECKING:
    from server_stub.runner import StubServer

DEMO_DATABASE = "demo.sqlite3"


def demo_server(fresh: bool, reports: int | None, *, now: datetime | None = None) -> StubServer:
    """The bundled stub on 127.0.0.1 with the demo's own database, not yet started.

    The database is ``data_dir()/demo.sqlite3``, seeded on first run; ``fresh`` reseeds it.
    ``reports`` sets how many DMARC reports a (re)seed creates (the stub's default if None).
    A seed is dated up to ``now`` (default: this hour), so "the last 30 days" in the
    console shows the demo's reports; the tests' fixed anchor is for determinism only.
    """
    # The stub loads here, in the console's starter thread, so it never delays the first frame.
    from server_stub.demo_data import DEFAULT_REPORTS, current_hour
    from server_stub.runner import StubServer

    path = data_dir() / DEMO_DATABASE
    path.parent.mkdir(parents=True, exist_ok=True)
    if fresh:
        # The stub seeds an empty database only, so reseeding means starting from no file.
        for leftover in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
            leftover.unlink(missing_ok=True)
    count = DEFAULT_REPORTS if reports is None else reports
    return StubServer(path, reports=count, now=now or current_hour())


def run_demo(fresh: bool, reports: int | None, *, offline: bool = False) -> int:
    """Open the console at once; it starts the demo stub behind its first frame."""
    return open_console_on(lambda: demo_server(fresh, reports).start(), offline=offline)
