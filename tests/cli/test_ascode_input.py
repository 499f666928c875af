"""What ``apply`` reads its file from: bounded, never waited on, UTF-8 whatever the locale."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from jmapclient.ascode.ndjson import MAX_SNAPSHOT_FILE
from jmapclient.outcome import EXIT_FAILED
from mailadmin.cli.ascode_cmd import load_file
from mailadmin.main import main

NOWHERE = "http://127.0.0.1:9"
"""No server: the file is read, and refused, before any connection."""
ONE_DIRECTORY = ('{"@type":"destroy","object":"Directory"}\n'
                 '{"@type":"create","object":"Directory","value":{"directory-a":{"@type":"Oidc",'
                 '"issuerUrl":"https://sso.example.org","description":"Büro Zürich 🚀"}}}\n')


def finished(work: Callable[[], Any], seconds: float = 5.0) -> Any:
    """``work()``'s result, or a failure when it is still running after ``seconds`` (it hung)."""
    result: list[Any] = []
    thread = threading.Thread(target=lambda: result.append(work()), daemon=True)
    thread.start()
    thread.join(seconds)
    assert result, f"still running after {seconds}s"
    return result[0]


def refusal(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    """The one line ``apply --dry-run ARGV`` refuses its file with (exit 1, no traceback)."""
    code = main(["apply", "--dry-run", *argv, "--url", NOWHERE])
    err = capsys.readouterr().err
    assert code == EXIT_FAILED and err.count("\n") == 1 and err.startswith("error: cannot apply "), err
    return err


def test_a_device_is_refused_unread(capsys: pytest.CaptureFixture[str]) -> None:
    # Path.read_text trusted st_size 0: /dev/zero filled memory to a MemoryError traceback (the tester's).
    assert "not a regular file (a device)" in finished(lambda: refusal(capsys, "/dev/zero"))


def test_standard_input_is_read_up_to_the_bound(capsys: pytest.CaptureFixture[str],
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    # `apply - < /dev/zero`: sys.stdin.read() had no end either.
    with open("/dev/zero") as endless:
        monkeypatch.setattr("sys.stdin", endless)
        assert f"larger than {MAX_SNAPSHOT_FILE:,} bytes" in finished(lambda: refusal(capsys, "-"))


def test_a_file_past_the_bound_is_refused_unread(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    big = tmp_path / "big.ndjson"
    with big.open("wb") as sparse:
        sparse.truncate(MAX_SNAPSHOT_FILE + 1)
    assert f"larger than {MAX_SNAPSHOT_FILE:,} bytes" in refusal(capsys, str(big))


def test_a_named_fifo_is_refused_not_waited_on(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    # Opened for reading, a FIFO no one writes into waited for ever, saying nothing.
    fifo = tmp_path / "s.ndjson"
    os.mkfifo(fifo)
    assert "not a regular file (a FIFO)" in finished(lambda: refusal(capsys, str(fifo)))


def test_a_pipe_the_shell_hands_over_is_still_read() -> None:
    # `apply <(gunzip -c s.ndjson.gz)` names the read end of a pipe, /dev/fd/N.
    read_end, write_end = os.pipe()
    try:
        os.write(write_end, ONE_DIRECTORY.encode())
        os.close(write_end)
        read = finished(lambda: load_file(f"/dev/fd/{read_end}"))
    finally:
        os.close(read_end)
    assert [item.key for item in read.objects] == ["directory-a"]
