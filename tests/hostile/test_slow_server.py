"""A server that answers too slowly: a command's ``--timeout`` bounds the whole exchange."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from jmapclient.outcome import EXIT_NETWORK
from mailadmin.main import main


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MAILADMIN_CONFIG", str(tmp_path / "config.toml"))
    monkeypatch.setenv("MAILADMIN_TOKEN", "t")


@contextmanager
def trickling_headers(seconds: float) -> Iterator[str]:
    """A server that sends its status line, then one header line every 0.1 s for ``seconds``."""
    listener = socket.create_server(("127.0.0.1", 0))
    stop = threading.Event()

    def serve() -> None:
        listener.settimeout(seconds)
        try:
            connection, _ = listener.accept()
        except OSError:
            return
        with connection:
            connection.recv(65536)
            connection.sendall(b"HTTP/1.1 200 OK\r\n")
            end = time.monotonic() + seconds
            while not stop.is_set() and time.monotonic() < end:
                try:
                    connection.sendall(b"X-Slow: 1\r\n")
                except OSError:
                    return
                stop.wait(0.1)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    finally:
        stop.set()
        listener.close()
        thread.join(5)


def test_trickled_headers_end_at_the_timeout(capsys: pytest.CaptureFixture[str]) -> None:
    # Each header line came within httpx's per-read timeout, so the command waited for as long
    # as the server cared to trickle (minutes, with --timeout 3).
    with trickling_headers(8) as url:
        started = time.monotonic()
        code = main(["query", "Directory", "--url", url, "--timeout", "0.5"])
        took = time.monotonic() - started
    err = capsys.readouterr().err
    assert code == EXIT_NETWORK and "did not answer after 0.5s" in err, err
    assert took < 2, took
