"""Shared fixtures: a real stub server on loopback and a client connected to it.

``stub_server`` is a fresh :class:`server_stub.runner.StubServer` per test (in-memory
database, the three demo directories and ``STUB_REPORTS`` demo reports), so tests may
change data freely. ``stub_client`` is a :class:`jmapclient.JmapClient` holding its admin
token; use ``stub_server.readonly_token`` for a read-only client.

Every test has its own config file and data directory (``private_user_dirs``): the suite
runs in parallel workers, and two tests writing the one ``~/.config/mailadmin`` would see
each other's profiles and tokens, and could touch the real user's. A test that sets
``MAILADMIN_CONFIG`` or ``MAILADMIN_DATA`` itself still wins: its monkeypatch comes later.
"""

from __future__ import annotations

import gc
import os
import signal
import sys
import threading
from collections.abc import AsyncIterator, Iterator

import pytest

from jmapclient import JmapClient
from jmapclient.config import CONFIG_ENV, DATA_ENV
from server_stub.runner import StubServer
from tests.support.seeding import seed_fresh
from tests.support.textual_probe import check_idle_more_often, share_parsed_stylesheets

STUB_REPORTS = 40

YOUNG_COLLECTION_EVERY = 50_000
"""Allocations between two young-generation collections in a test process (Python's default: 700)."""
OLDER_COLLECTION_EVERY = 20
"""Young (then middle) collections between two of the next generation (Python's default: 10)."""


def keep_bytecode() -> None:
    """Let the test processes keep compiled modules in ``__pycache__`` even where the environment says not to.

    With ``PYTHONDONTWRITEBYTECODE`` set (as on these machines), every worker compiled our
    sources and rewrote and compiled every test module again (2.2 s a process, measured), and
    every CLI subprocess compiled what it imports. Python reads the cache either way; only
    writing it was off. Done here, before the workers and subprocesses start, which inherit it.
    """
    sys.dont_write_bytecode = False
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)


keep_bytecode()


WORKERS_PER_CORE = 1.5
"""Test processes per core for ``-n auto``: a console test spends part of its time waiting for the
console (idle checks, timers, the stub's thread), so one worker a core left a core idle in those
waits; at 1.5 the two cores stay busy (suite 226 s -> 189 s wall on 2 cores, measured)."""


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    return max(1, round((os.cpu_count() or 1) * WORKERS_PER_CORE))


def pytest_configure(config: pytest.Config) -> None:
    # The console tests build and tear down thousands of widgets: at Python's default schedule
    # the cycle collector re-scanned the live app over and over, a fifth of the suite's CPU.
    # Collecting less often changes no code path under test; garbage is still collected, and
    # memory stays bounded (about 270 MB a worker at the peak, measured).
    gc.set_threshold(YOUNG_COLLECTION_EVERY, OLDER_COLLECTION_EVERY, OLDER_COLLECTION_EVERY)
    # Two of Textual's internals tuned for the whole test process (tests/support/textual_probe.py).
    check_idle_more_often()
    share_parsed_stylesheets()
    keep_ctrl_c()


def keep_ctrl_c() -> None:
    """Ctrl-C as a terminal gives it, whoever started the suite.

    A shell without job control starts a background command with SIGINT ignored (POSIX), and every
    process under it inherits that: the workers, and each command a test runs. The Ctrl-C tests then
    sent a SIGINT nothing heard (an import ran to its end; a command ran on past 60 s), and failed
    for the way the suite was started, telling nothing of the product.
    """
    if threading.current_thread() is threading.main_thread() and signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


HEAVY_FIRST = (
    "tests/tui/exploration/",
    "tests/reliability/test_fuzz_stub.py",
    "tests/hostile_files/",
    "tests/tui/",
    "tests/reliability/",
    "tests/stub/",
    "tests/hostile/",
    "tests/frontdoor/",
    "tests/cli/",
)
"""Where the long tests are, longest first: they run first and the quick ones last."""


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    # The workers share the tests out and take over each other's queues as they finish; what
    # decides the wall time is the end, where the last tests run while the other workers wait.
    # In collection order the console tests came last (tests/tui sorts last), so a 17 s test could
    # start last; with the heavy folders first, the end is made of tests of a few milliseconds.
    # A stable sort on whole folders and files keeps each module's tests together (its fixtures).
    def heaviness(item: pytest.Item) -> int:
        path = item.nodeid.split("::", 1)[0]
        return next((rank for rank, prefix in enumerate(HEAVY_FIRST) if path.startswith(prefix)), len(HEAVY_FIRST))

    items.sort(key=heaviness)


def pytest_collection_finish(session: pytest.Session) -> None:
    # Every module is imported by now: what they built lives as long as the process, so the
    # collector need not scan it again (gc.freeze).
    gc.collect()
    gc.freeze()


@pytest.fixture(autouse=True)
def private_user_dirs(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path_factory.mktemp("user")
    monkeypatch.setenv(CONFIG_ENV, str(home / "config" / "config.toml"))
    monkeypatch.setenv(DATA_ENV, str(home / "data"))


@pytest.fixture
def stub_server() -> Iterator[StubServer]:
    server = StubServer(reports=0, directories=False)
    seed_fresh(server.store, reports=STUB_REPORTS)  # the demo data, copied from the first seeding
    with server:
        yield server


@pytest.fixture
async def stub_client(stub_server: StubServer) -> AsyncIterator[JmapClient]:
    async with JmapClient(stub_server.base_url, stub_server.admin_token, timeout=10) as client:
        yield client


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session) -> None:
    # The test process ends here. After this hook pytest collects five times over, to report
    # exceptions raised by the finalizers of what is left (as warnings only: none fails a run).
    # With collections as rare as set above, what is left is the cyclic garbage of the whole
    # run: the first of the five took 2.3-2.8 s a worker and the rest 0.3-0.5 s each, all at
    # the run's end where nothing else overlaps them (measured: 700,000-850,000 objects freed).
    # Frozen, it is the system's to free, as at a command line's exit (mailadmin.startup).
    gc.freeze()
