"""``mailadmin demo``: the bundled stub on its own database, with the console opened on it.

The console paints first and starts the stub behind it: it receives the start as a
callable, so ``tui`` never imports ``server_stub``. A seed too large to finish behind the
first frame (more than one batch) runs before the console instead, with its progress on
the terminal, so a person never watches a bare "Starting…" for seconds.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from jmapclient.config import data_dir
from jmapclient.file_safety import make_private_folder
from tui.launch import run_demo as open_console_on

if TYPE_CHECKING:
    from server_stub.runner import StubServer

DEMO_DATABASE = "demo.sqlite3"


def _database(fresh: bool) -> Path:
    """The demo's database path, its folder made; ``fresh`` removes the old database first."""
    path = data_dir() / DEMO_DATABASE
    make_private_folder(path.parent)  # 0700: it holds tokens and report data
    if fresh:
        # The stub seeds an empty database only, so reseeding means starting from no file.
        for leftover in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
            leftover.unlink(missing_ok=True)
    return path


def _report_count(reports: int | None) -> int:
    from server_stub.seed_sizes import DEFAULT_REPORTS  # light: the models load only to seed

    return DEFAULT_REPORTS if reports is None else reports


def demo_server(fresh: bool, reports: int | None, *, now: datetime | None = None) -> StubServer:
    """The bundled stub on 127.0.0.1 with the demo's own database, not yet started.

    The database is ``data_dir()/demo.sqlite3``, seeded on first run; ``fresh`` reseeds it.
    ``reports`` sets how many DMARC reports a (re)seed creates (the stub's default if None).
    A seed is dated up to ``now`` (default: this hour), so "the last 30 days" in the
    console shows the demo's reports; the tests' fixed anchor is for determinism only.
    """
    # The stub loads here, in the console's starter thread, so it never delays the first frame.
    from server_stub.demo_data import current_hour
    from server_stub.runner import StubServer

    return StubServer(_database(fresh), reports=_report_count(reports), now=now or current_hour())


def seed_before_console(fresh: bool, reports: int | None, *, now: datetime | None = None,
                        stream: TextIO | None = None) -> bool:
    """Seed a large demo database on the terminal, with progress; False when nothing needed it.

    What it seeds is what :func:`demo_server` would have: the same generator, in the same order.
    """
    from server_stub.seed_sizes import SEED_BATCH

    count = _report_count(reports)
    if count <= SEED_BATCH or not (fresh or not (data_dir() / DEMO_DATABASE).exists()):
        return False  # decided without loading the models: the console's first frame waits for nothing
    from server_stub.demo_data import current_hour, seed_store
    from server_stub.seed_progress import seeding_progress
    from server_stub.store import Store

    store = Store(_database(fresh))
    try:  # the reports go in one transaction: Ctrl-C leaves none, and the next start seeds them again
        seed_store(store, reports=count, now=now or current_hour(), progress=seeding_progress(count, stream))
    finally:
        store.close()
    return True


DEMO_LOGIN = "demo.env"


def login_file() -> Path:
    return data_dir() / DEMO_LOGIN


def login_hint(path: Path) -> str:
    """How to point the CLI at the running demo: the URL and token come from a 0600 file, never
    from a command line (where ``ps`` and the shell's history would keep the token)."""
    return (f"mailadmin demo: while the console runs, use the CLI on its server from another terminal:\n"
            f"  set -a; . {path}; set +a\n"
            f"  mailadmin query Directory\n"
            f"({path} holds MAILADMIN_URL and MAILADMIN_TOKEN, owner-only; it goes when the demo stops)")


def write_login(path: Path, server: StubServer) -> None:
    from jmapclient.config import write_private

    text = f"MAILADMIN_URL={server.base_url}\nMAILADMIN_TOKEN={server.admin_token}\n"
    write_private(path, text.encode())


def run_demo(fresh: bool, reports: int | None, *, offline: bool = False, stream: TextIO | None = None,
             after_first_frame: Callable[[], None] | None = None, before_run: Callable[[], None] | None = None) -> int:
    """Open the console at once; it starts the demo stub behind its first frame.

    The way to reach the demo from the CLI is printed first (it stays on the terminal once the
    console's screen goes) and again at the end with the URL the server had.
    """
    import sys

    said = stream or sys.stderr
    if seed_before_console(fresh, reports):
        fresh = False  # seeded just now: the console opens on it
    login = login_file()
    print(login_hint(login), file=said, flush=True)
    urls: list[str] = []

    def start() -> StubServer:
        server = demo_server(fresh, reports).start()
        write_login(login, server)
        urls.append(server.base_url)
        return server

    try:
        return open_console_on(start, offline=offline, after_first_frame=after_first_frame, before_run=before_run)
    finally:
        login.unlink(missing_ok=True)  # the token died with the server
        if urls:
            print(f"mailadmin demo: its server at {urls[0]} has stopped", file=said, flush=True)
