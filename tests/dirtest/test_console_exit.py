"""Leaving a live test that still waits on its server, then quitting: the console's process ends at once.

The test's thread waits on a trickling LDAP server (a real socket on 127.0.0.1). Before the fix nothing
cut it: quitting cleared the screen and the process stayed until the server went away, Ctrl-C ignored. It
runs as its own process (:mod:`tests.dirtest.quit_console`), since the hang is in the process's exit.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.hostile_peer import LDAP_HEAD, HostilePeer

STARTS_WITHIN = 60.0
"""Seconds for the console to start and run the test (a busy machine)."""
QUITS_WITHIN = 15.0
"""Seconds from leaving to the process's end: the cut takes a tenth of a second, the exit a few; the test's
own step bound there is 300 s, and the trickle goes on for minutes."""


@pytest.fixture
def trickling_ldap() -> Iterator[HostilePeer]:
    peer = HostilePeer(LDAP_HEAD, fill=b"\x00")
    yield peer
    peer.stop()


@pytest.mark.parametrize("how", ["leave", "quit"])
def test_quitting_after_a_test_on_a_trickling_server_ends_the_process(how: str, trickling_ldap: HostilePeer,
                                                                      tmp_path: Path) -> None:
    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": str(root), "MAILADMIN_CONFIG": str(tmp_path / "config.toml")}
    command = [sys.executable, "-m", "tests.dirtest.quit_console", str(trickling_ldap.port), how]
    with subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True, env=env, cwd=root) as process:
        try:
            assert process.stdout is not None and process.stdin is not None
            assert process.stdout.readline().strip() == "RUNNING", process.stderr.read() if process.stderr else ""
            assert trickling_ldap.reached.wait(STARTS_WITHIN), "the test never reached the server"
            left = time.monotonic()
            process.stdin.write("go\n")
            process.stdin.flush()
            out, err = process.communicate(timeout=QUITS_WITHIN)
            seconds = time.monotonic() - left
        except subprocess.TimeoutExpired:
            process.kill()
            raise AssertionError(f"the console still runs {QUITS_WITHIN:g} s after quitting: "
                                 f"{process.communicate()}") from None
        finally:
            process.kill()
    assert process.returncode == 0 and "QUIT" in out, (out, err)
    assert "Traceback" not in err, err
    assert seconds < QUITS_WITHIN
