"""A directory's server that stops answering: each live check ends by its timeout, on this side, and says so.

The peer is real (``stalling_peer``, on 127.0.0.1): it forwards to the fixture's server until the
client sends a query or a search, then answers nothing; or it accepts and never answers at all.
A test that would hang waits in a thread with a generous bound of its own, so it fails, not hangs.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from jmapclient.dirtest import steps
from jmapclient.dirtest.inputs import LiveInput
from jmapclient.dirtest.live import run_live
from jmapclient.dirtest.steps import Outcome, Report
from jmapclient.outcome import EXIT_INTERRUPTED
from tests.support.directory_seeds import ALICE, ALICE_PASSWORD, ldap_settings, sql_settings
from tests.support.directory_servers import Slapd
from tests.support.tls import PrivateCa

HANG_LIMIT = 30.0
"""Seconds a test waits for a check whose own bound is 1 s: far above it on a busy machine; only a hang
reaches it."""
SAID = "the server did not answer within 1 s"


def _ended(wire: dict[str, Any], **inputs: Any) -> Report:
    """The live test's report; fails (not hangs) when it is still running after ``HANG_LIMIT``."""
    found: list[Report] = []
    worker = threading.Thread(target=lambda: found.append(run_live(wire, LiveInput(login=ALICE, timeout=5, **inputs))),
                              daemon=True)
    worker.start()
    worker.join(HANG_LIMIT)
    assert found, f"the live test still waits after {HANG_LIMIT:g} s: nothing bounds it on this side"
    return found[0]


def _silent_at(report: Report, name: str) -> None:
    """``name`` failed with the words of a silent server; every step after it was skipped."""
    at = [s.name for s in report.steps].index(name)
    failed = report.steps[at]
    assert (failed.outcome, failed.reason) == (Outcome.FAILED, SAID), failed
    assert "holds the connection" in failed.fix
    assert all(s.outcome is Outcome.SKIPPED for s in report.steps[at + 1:]), report.steps


def _through(store: dict[str, Any], peer: Any) -> dict[str, Any]:
    return {**store, "host": "127.0.0.1", "port": peer.port, "timeout": 1000}


@pytest.mark.parametrize(("kind", "stall"), [("postgres_store", "postgres query"), ("mariadb_store", "mysql query")])
def test_a_database_that_stops_answering_a_query_fails_that_step_within_its_timeout(
    kind: str, stall: str, stalling_peer: Callable[..., Any], request: pytest.FixtureRequest,
) -> None:
    store = request.getfixturevalue(kind)
    peer = stalling_peer(("127.0.0.1", store["port"]), stall)
    report = _ended(sql_settings(_through(store, peer)))
    assert peer.stalled.is_set()  # the hang was reached: the login went through, the query got no answer
    assert report.step(steps.CONNECT).outcome is Outcome.PASSED
    _silent_at(report, steps.LOGIN_SEARCH)
    assert report.step(steps.ALIASES).reason == "not run: the server stopped answering"


@pytest.mark.parametrize("kind", ["postgres_store", "mariadb_store"])
def test_a_database_port_that_never_answers_fails_the_connect_step_in_words(
    kind: str, stalling_peer: Callable[..., Any], request: pytest.FixtureRequest,
) -> None:
    peer = stalling_peer()
    report = _ended(sql_settings(_through(request.getfixturevalue(kind), peer)))
    assert peer.stalled.is_set()
    _silent_at(report, steps.CONNECT)


@pytest.mark.parametrize(("scheme", "use_tls", "stall", "silent_step"), [
    ("ldap", True, "at once", steps.TLS),  # STARTTLS asked, no answer
    ("ldaps", False, "at once", steps.TLS),  # the handshake gets no answer
    ("ldap", False, "at once", steps.SERVICE_BIND),
    ("ldap", False, "ldap search", steps.LOGIN_SEARCH),  # bound through to slapd, then the search hangs
])
def test_an_ldap_server_that_stops_answering_fails_that_step_in_words(
    scheme: str, use_tls: bool, stall: str, silent_step: str, slapd: Slapd, directory_ca: PrivateCa,
    stalling_peer: Callable[..., Any],
) -> None:
    target = ("127.0.0.1", slapd.port) if stall != "at once" else None
    peer = stalling_peer(target, stall)
    wire = ldap_settings(f"{scheme}://127.0.0.1:{peer.port}", useTls=use_tls, timeout=1000)
    report = _ended(wire, password=ALICE_PASSWORD, ca_file=str(directory_ca.ca_file))
    assert peer.stalled.is_set()
    _silent_at(report, silent_step)


def test_ctrl_c_on_a_silent_database_ends_the_command_at_once_and_quietly(
    postgres_store: dict[str, Any], stalling_peer: Callable[..., Any], tmp_path: Path,
) -> None:
    # psycopg, interrupted in its own wait, sends a cancel request and waits for the silent server
    # (5 s, then "query not terminated after cancellation" on standard error): the wait is not its.
    peer = stalling_peer(("127.0.0.1", postgres_store["port"]), "postgres query")
    settings = tmp_path / "directory.json"
    settings.write_text(json.dumps(sql_settings({**_through(postgres_store, peer), "timeout": 90000})))
    command = [sys.executable, "-m", "mailadmin", "test-directory", str(settings), "--login", ALICE, "--timeout", "60"]
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    with subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True, env=env) as process:
        try:
            assert peer.stalled.wait(HANG_LIMIT), "the command never reached the query"
            process.send_signal(signal.SIGINT)
            # Below the check's own bound (90 s): only Ctrl-C ends it here. Generous, for a busy machine:
            # what tells psycopg's own wait from ours is its "cancel" warning, not the time.
            _, err = process.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            process.kill()
            raise AssertionError(f"still running 60 s after Ctrl-C: {process.communicate()}") from None
        finally:
            process.kill()
    assert process.returncode == EXIT_INTERRUPTED
    assert "cancel" not in err and "Traceback" not in err, err
