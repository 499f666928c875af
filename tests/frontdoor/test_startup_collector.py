"""The cycle collector of a command line (mailadmin.startup): off during its set-up, until the
first request, then on again with nothing frozen for good and a person's own choice kept; at exit,
everything frozen, so that the interpreter's last collection scans nothing."""

from __future__ import annotations

import gc
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from jmapclient.outcome import EXIT_NETWORK
from mailadmin import startup as collector
from mailadmin.main import main
from server_stub.runner import StubServer

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def nothing_frozen() -> Iterator[None]:
    """The test runner freezes what it imported (tests/conftest.py); a CLI process has nothing frozen."""
    gc.unfreeze()
    yield
    gc.freeze()


class _Cycle:
    def __init__(self) -> None:
        self.me = self


def test_pause_then_resume_turns_the_collector_back_on_and_freezes_nothing(nothing_frozen: None) -> None:
    assert gc.isenabled()
    collector.pause_collector()
    assert not gc.isenabled()
    garbage = _Cycle()
    del garbage  # a cycle: only the collector can free it
    collector.resume_collector()
    assert gc.isenabled() and gc.get_freeze_count() == 0
    assert gc.collect() >= 1  # the set-up's garbage is still collected, by a full collection
    collector.resume_collector()  # a second resume does nothing
    assert gc.isenabled()


def test_only_the_first_command_of_a_process_ages_its_set_up(monkeypatch: pytest.MonkeyPatch) -> None:
    # Asking for the frozen count walks every frozen object (the test runner froze its heap):
    # a host running command after command asked it for each one, though only the first built much.
    asked: list[int] = []
    count = gc.get_freeze_count
    monkeypatch.setattr(gc, "get_freeze_count", lambda: asked.append(1) or count())
    monkeypatch.setattr(collector, "_aged", False)
    for _ in range(3):
        collector.pause_collector()
        collector.resume_collector()
        assert gc.isenabled()
    assert len(asked) == 1


def test_a_collector_that_was_off_stays_off() -> None:
    gc.disable()
    try:
        collector.pause_collector()
        collector.resume_collector()
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_what_a_host_process_froze_stays_frozen() -> None:
    frozen = gc.get_freeze_count()  # the test runner's own freeze
    assert frozen > 0
    collector.pause_collector()
    collector.resume_collector()
    assert gc.isenabled() and gc.get_freeze_count() == frozen


def test_a_command_that_fails_before_any_request_turns_the_collector_back_on(nothing_frozen: None) -> None:
    # Nothing listens on port 9: the first request fails, and so does the command.
    assert main(["query", "Directory", "--url", "http://127.0.0.1:9", "--token", "t", "--timeout", "2"]) == EXIT_NETWORK
    assert gc.isenabled()
    assert main(["query", "NoSuchObject", "--url", "http://127.0.0.1:9", "--token", "t"]) != 0  # a usage error
    assert gc.isenabled()


def test_a_query_runs_no_collection_before_its_first_request(stub_server: StubServer) -> None:
    # The set-up (imports, the models' classes) made long-lived objects and almost no garbage:
    # passes over them cost a few percent of the command's start and found next to nothing.
    code = (
        "import contextlib, gc, io, sys\n"
        "import httpx\n"
        "from mailadmin.main import main\n"
        "passes = []\n"
        "gc.callbacks.append(lambda phase, info: phase == 'start' and passes.append(info['generation']))\n"
        "send, at_first_request = httpx.Client.send, []\n"
        "def counting(*args, **kwargs):\n"
        "    at_first_request.append(at_first_request[0] if at_first_request else len(passes))\n"
        "    return send(*args, **kwargs)\n"
        "httpx.Client.send = counting\n"
        "with contextlib.redirect_stdout(io.StringIO()) as printed:\n"
        f"    assert main(['query', 'Directory', '--url', {stub_server.base_url!r}]) == 0\n"
        "assert 'Corporate OpenLDAP' in printed.getvalue()\n"
        "print(at_first_request[0], gc.isenabled(), gc.get_freeze_count())\n"
    )
    env = {"MAILADMIN_TOKEN": stub_server.admin_token}
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60,
                          env={**os.environ, **env})
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["0", "True", "0"]


def test_a_command_line_exits_with_every_object_frozen(stub_server: StubServer) -> None:
    # The interpreter's last collection then scans nothing: what it would free, the system frees.
    code = (
        "import atexit, contextlib, gc, io\n"
        "from mailadmin.main import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    assert main(['query', 'Directory', '--url', {stub_server.base_url!r}]) == 0\n"
        "print(gc.get_freeze_count() == 0)\n"
        "atexit._run_exitfuncs()\n"
        "print(gc.get_freeze_count() > 10_000)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60,
                          env={**os.environ, "MAILADMIN_TOKEN": stub_server.admin_token})
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True", "True"]


def test_the_console_keeps_its_exit_collection(monkeypatch: pytest.MonkeyPatch) -> None:
    # A long-running process's finalizers are left as they were: only a command line skips it.
    registered: list[object] = []
    monkeypatch.setattr("atexit.register", registered.append)
    monkeypatch.setattr(collector, "_exit_collection_skipped", False)
    monkeypatch.setattr("mailadmin.main._console", lambda args: 0)
    assert main([]) == 0
    assert registered == []
    assert main(["describe", "Directory"]) == 0
    assert registered == [gc.freeze]
