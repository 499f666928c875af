"""``mailadmin serve`` (server_stub.serve.main) as a user starts it: a real process on loopback."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sqlite3
import statistics
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import pytest
import uvicorn

from bench.serve_process import start_serve, stop_serve
from mailadmin.main import main as frontdoor_main
from server_stub.serve import main
from server_stub.serving import GracefulServer, stop_signals_interrupt


def test_serve_prints_its_url_but_not_its_tokens_and_answers(tmp_path: Path):
    env = {**os.environ, "MAILADMIN_DATA": str(tmp_path), "PYTHONPATH": str(Path.cwd())}
    process, lines = start_serve(["--port", "0", "--reports", "12", "--admin-token", "given-admin"], env)
    try:
        assert lines["admin token"] == "given-admin" and "given-admin" not in lines["printed"]
        assert len(lines["read-only token"]) >= 20  # random when not given
        assert lines["url"].startswith("http://127.0.0.1:")
        assert lines["database"] == str(tmp_path / "stub.sqlite3")
        headers = {"Authorization": "Bearer given-admin"}
        session = httpx.get(lines["url"] + "/jmap/session", headers=headers, timeout=5).json()
        body = {"using": ["urn:ietf:params:jmap:core", "urn:service:jmap"],
                "methodCalls": [["x:DmarcExternalReport/query", {"calculateTotal": True}, "q"]]}
        answer = httpx.post(session["apiUrl"], json=body, headers=headers, timeout=5).json()
        assert answer["methodResponses"][0][1]["total"] == 12
        # Seeded up to now, so a person trying `serve` sees current reports, none expired yet.
        body = {"using": ["urn:ietf:params:jmap:core", "urn:service:jmap"], "methodCalls": [
            ["x:DmarcExternalReport/query", {"sort": [{"property": "receivedAt", "isAscending": False}],
                                             "limit": 1}, "q"],
            ["x:DmarcExternalReport/get", {"#ids": {"resultOf": "q", "name": "x:DmarcExternalReport/query",
                                                    "path": "/ids"}}, "g"]]}
        newest = httpx.post(session["apiUrl"], json=body, headers=headers, timeout=5).json()
        report = newest["methodResponses"][1][1]["list"][0]
        now = datetime.now(UTC)
        assert now - timedelta(days=10) < datetime.fromisoformat(report["receivedAt"]) <= now
        assert datetime.fromisoformat(report["expiresAt"]) > now
    finally:
        stop_serve(process)
    assert (tmp_path / "stub.sqlite3").exists()


@pytest.mark.parametrize("arguments, complaint", [
    (["--reports", "-1"], "argument --reports: -1 is negative"),
    (["--port", "99999"], "argument --port: 99999 is not a port (0 to 65535)"),
    (["--port", "-1"], "argument --port: -1 is not a port"),
    (["--port", "http"], "argument --port: invalid port value: 'http'"),
    (["--profile", "other"], "argument --profile: invalid choice"),
])
def test_serve_usage_errors_end_in_one_line_and_exit_2(
    arguments: list[str], complaint: str, tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
):
    monkeypatch.setenv("MAILADMIN_DATA", str(tmp_path / "data"))
    assert frontdoor_main(["serve", *arguments, "--db", ":memory:"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: mailadmin serve")  # the subcommand's usage, not the top level's
    assert f"mailadmin serve: error: {complaint}" in err
    assert "Traceback" not in err
    assert not (tmp_path / "data").exists()


def test_serve_never_creates_the_folder_of_a_given_database(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    missing = tmp_path / "nonexistent" / "deeper" / "stub.sqlite3"
    assert main(["--db", str(missing), "--port", "0"]) == 1
    err = capsys.readouterr().err
    assert err.strip().splitlines() == [f"error: the folder of --db {missing} does not exist (create it first)"]
    assert not (tmp_path / "nonexistent").exists()


def test_serve_refuses_a_folder_or_an_unwritable_database(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    assert main(["--db", str(tmp_path), "--port", "0"]) == 1
    assert capsys.readouterr().err.strip().splitlines() == [f"error: --db {tmp_path} is a folder; give a file name"]
    unwritable = Path("/proc/stub.sqlite3")  # a folder nobody may create files in, not even root
    assert main(["--db", str(unwritable), "--port", "0"]) == 1
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: cannot open the database {unwritable}: ")


def test_serve_writes_its_credentials_to_an_owner_only_file(tmp_path: Path):
    env = {**os.environ, "MAILADMIN_DATA": str(tmp_path), "PYTHONPATH": str(Path.cwd())}
    process, lines = start_serve(["--port", "0", "--reports", "0", "--profile", "stalwart"], env,
                                 until="credentials file")
    try:
        path = Path(lines["credentials file"])
        assert path == tmp_path / "stub.sqlite3.credentials"
        assert path.stat().st_mode & 0o777 == 0o600
        written = dict(line.split(": ", 1) for line in path.read_text().splitlines())
        # The same credentials the terminal showed, so a script can log in with them.
        assert written["admin user"] == "admin"
        for name in ("admin token", "read-only token", "admin password"):
            assert len(written[name]) >= 16 and written[name] not in lines["printed"]  # kept, never shown
        assert lines["url"] in lines["printed"]
        answer = httpx.get(lines["url"] + "/jmap/session", timeout=5,
                           headers={"Authorization": f"Bearer {written['read-only token']}"})
        assert answer.status_code == 200
    finally:
        stop_serve(process)


def test_a_kept_alive_connection_answers_without_nagle_delay(tmp_path: Path):
    """Without TCP_NODELAY every response after the first waited ~40 ms for the client's delayed ACK."""
    env = {**os.environ, "MAILADMIN_DATA": str(tmp_path), "PYTHONPATH": str(Path.cwd())}
    process, lines = start_serve(["--port", "0", "--reports", "0", "--db", ":memory:"], env)
    try:
        headers = {"Authorization": f"Bearer {lines['admin token']}"}
        connects: list[str] = []
        with httpx.Client(headers=headers, timeout=5) as client:
            timings = []
            for _ in range(9):  # bounded; the median shrugs off one slow moment of a busy machine
                started = time.perf_counter()
                response = client.get(lines["url"] + "/jmap/session", extensions={"trace": _connects(connects)})
                timings.append(time.perf_counter() - started)
                assert response.status_code == 200
        assert len(connects) == 1, "every request went over one kept-alive connection"
        assert statistics.median(timings[1:]) < 0.035, timings
    finally:
        stop_serve(process)


def _connects(events: list[str]) -> Callable[[str, dict[str, object]], None]:
    def trace(event: str, info: dict[str, object]) -> None:
        if event == "connection.connect_tcp.complete":
            events.append(event)
    return trace


@pytest.mark.parametrize("stop_signal", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP])
def test_a_stop_signal_checkpoints_and_removes_the_wal(tmp_path: Path, stop_signal: signal.Signals):
    env = {**os.environ, "MAILADMIN_DATA": str(tmp_path), "PYTHONPATH": str(Path.cwd())}
    database = tmp_path / "stub.sqlite3"
    wal = tmp_path / "stub.sqlite3-wal"
    process, lines = start_serve(["--port", "0", "--reports", "40", "--db", str(database)], env)
    try:
        assert lines["database"] == str(database)
        assert wal.exists() and wal.stat().st_size > 0  # the seed is in the WAL while the server runs
        process.send_signal(stop_signal)
        assert process.wait(timeout=15) == 0
    finally:
        stop_serve(process)
    assert not wal.exists() or wal.stat().st_size == 0
    assert not (tmp_path / "stub.sqlite3-shm").exists()
    with sqlite3.connect(f"file:{database}?mode=ro", uri=True) as reopened:  # all of it is in the database
        assert reopened.execute("SELECT COUNT(*) FROM dmarc_report").fetchone()[0] == 40


def test_a_sigint_as_the_server_starts_is_not_spent_on_asyncio() -> None:
    # asyncio.run, finding Python's own SIGINT handler, puts one that cancels its task; a start-up
    # that swallows the cancellation then took the signals over with the Ctrl-C spent, and served on.
    server = GracefulServer(uvicorn.Config(app=None))

    async def starting() -> bool:
        try:
            signal.raise_signal(signal.SIGINT)  # after asyncio.run began, before the server's handlers
            await asyncio.sleep(0)
        except (asyncio.CancelledError, KeyboardInterrupt):
            pass  # swallowed on the way, as a start-up may
        with server.capture_signals():
            return server.should_exit

    with stop_signals_interrupt():
        assert asyncio.run(starting())


def test_a_stop_signal_whose_interrupt_was_lost_still_stops_the_server() -> None:
    # During the set-up a stop signal raises KeyboardInterrupt; should that exception be lost on
    # the way (it was, now and then, in full runs: the server then served on), the server acts on
    # the signal as soon as it takes the signals over.
    with stop_signals_interrupt():
        with contextlib.suppress(KeyboardInterrupt):  # the exception lost, as somewhere in the set-up
            signal.raise_signal(signal.SIGHUP)
        server = GracefulServer(uvicorn.Config(app=None))
        with server.capture_signals():
            assert server.should_exit
    fresh = GracefulServer(uvicorn.Config(app=None))
    with stop_signals_interrupt(), fresh.capture_signals():
        assert not fresh.should_exit  # a signal is acted on once, not by every later server


def test_serve_prints_a_console_command_that_connects_as_printed(tmp_path: Path) -> None:
    # A new user had to copy the token out of the credentials file by hand: --token-file refused that file
    # ("it must hold the secret alone"), and nothing printed a line to start from.
    import shlex
    import subprocess
    import sys

    env = {**os.environ, "MAILADMIN_DATA": str(tmp_path), "PYTHONPATH": str(Path.cwd())}
    process, lines = start_serve(["--port", "0", "--reports", "0"], env, until="profile")
    try:
        console = shlex.split(lines["console"])
        assert console[:2] == ["mailadmin", "--url"] and "--token-file" in console, lines["printed"]
        token_file = Path(console[console.index("--token-file") + 1])
        assert token_file.stat().st_mode & 0o777 == 0o600 and token_file.read_text() not in lines["printed"]
        env.pop("MAILADMIN_TOKEN", None)
        env.pop("MAILADMIN_URL", None)
        done = subprocess.run([sys.executable, "-m", "mailadmin", *console[1:], "query", "Directory"],
                              capture_output=True, text=True, timeout=60, env=env, check=False)
        assert done.returncode == 0 and "Customer accounts in PostgreSQL" in done.stdout, done.stderr
        assert shlex.split(lines["profile"])[:4] == ["mailadmin", "profile", "add", "stub"]
    finally:
        stop_serve(process)
