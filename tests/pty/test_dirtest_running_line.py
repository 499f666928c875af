"""``mailadmin test-directory FILE`` in a real terminal, against a server that never answers: while a step
waits, the line under the warnings says which step on which server; it is gone before the report (or the
Ctrl-C line), which starts a clean line of its own.

The server is a listening socket on 127.0.0.1 that never accepts: the kernel completes the connection, so the
connect step passes and the service bind waits its whole bound.
"""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from bench.pty_terminal import Terminal, spawned
from jmapclient.outcome import EXIT_FAILED, EXIT_INTERRUPTED

CTRL_C = b"\x03"
RUNNING = "Testing… step 3 of 8: service bind · ldap://127.0.0.1:{port} · "


@pytest.fixture
def silent_port() -> Iterator[int]:
    with socket.create_server(("127.0.0.1", 0)) as listener:
        yield int(listener.getsockname()[1])


def _directory_test(home: Path, port: int, timeout: int) -> list[str]:
    settings = home / "directory.json"
    settings.write_text(json.dumps({"@type": "Ldap", "description": "silent", "url": f"ldap://127.0.0.1:{port}",
                                    "baseDn": "dc=example", "bindSecret": {"@type": "Value", "secret": "s"}}))
    return ["test-directory", str(settings), "--timeout", str(timeout)]


def _running_line_shown(terminal: Terminal, port: int) -> str:
    """The screen's row holding the running line, once the command draws it."""
    want = RUNNING.format(port=port)
    text = terminal.wait_for(lambda screen: any(row.startswith(want) for row in screen.splitlines()),
                             "the running line")
    return next(row for row in text.splitlines() if row.startswith(want))


def test_a_silent_server_shows_the_running_line_then_the_report_on_a_clean_line(
    tmp_path: Path, silent_port: int,
) -> None:
    with spawned(_directory_test(tmp_path, silent_port, timeout=2), tmp_path) as terminal:
        assert _running_line_shown(terminal, silent_port).rstrip().endswith(" s")
        status, text = terminal.ended()
    rows = [row.rstrip() for row in text.splitlines()]  # pyte pads each row to the width
    assert status == EXIT_FAILED
    assert not any("Testing…" in row for row in rows), text  # erased, not left above the report
    assert "Directory test of silent (LDAP)" in rows, text  # the report's first line, from its first column
    assert any(row.startswith("✗ service bind     the server did not answer within 2 s") for row in rows), text


def test_ctrl_c_erases_the_running_line_and_says_so_on_a_line_of_its_own(tmp_path: Path, silent_port: int) -> None:
    with spawned(_directory_test(tmp_path, silent_port, timeout=60), tmp_path) as terminal:
        _running_line_shown(terminal, silent_port)
        terminal.type(CTRL_C)
        status, text = terminal.ended(timeout=10)  # far below the step's 60 s: only the key ends it
    rows = [row.rstrip() for row in text.splitlines()]  # pyte pads each row to the width
    assert status == EXIT_INTERRUPTED
    assert not any("Testing…" in row for row in rows), text
    assert "mailadmin test-directory interrupted (Ctrl-C)" in rows, text
