"""Client faults (issue 8.4), for the CLI: whatever goes wrong on the wire, ``mailadmin`` exits 1
with one clear ``error: ...`` line, no traceback and no token, within its timeout.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from jmapclient import JmapClient
from jmapclient.errors import RequestTimeout
from jmapclient.outcome import EXIT_FAILED, EXIT_LOGIN, EXIT_NETWORK
from mailadmin.main import main
from tests.support.fault_server import FaultServer

TOKEN = "fault-test-token-5e1f"
TIMEOUT = 1.0
EXPECTED = {
    "down": "connection refused (is the server running?)",  # after "cannot connect to 127.0.0.1:<port>"
    "dies": "connection refused (is the server running?)",  # the read sent again finds the listener gone
    "hangs": f"did not answer after {TIMEOUT:g}s",
    "slow": f"did not answer after {TIMEOUT:g}s",
    "expired": "refused the token (401): check or renew it",
    "unavailable": "failed with HTTP 503: maintenance",
    "crashes": "failed with HTTP 500",
    "malformed": "malformed JSON",
    "html": "web page, not JMAP",
}
"""What the one error line says for each fault (faults.py describes them; ``down``: nothing listens)."""
EXIT_FOR = {
    **dict.fromkeys(("down", "dies", "hangs", "slow", "unavailable", "crashes"), EXIT_NETWORK),
    "expired": EXIT_LOGIN,
    **dict.fromkeys(("malformed", "html"), EXIT_FAILED),
}
"""The exit code of each fault: try again later (network), fix the credentials (login), or neither."""


@pytest.fixture(autouse=True)
def no_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MAILADMIN_CONFIG", str(tmp_path / "config.toml"))
    monkeypatch.delenv("MAILADMIN_URL", raising=False)
    monkeypatch.setenv("MAILADMIN_TOKEN", TOKEN)  # not --token, which warns on stderr


def closed_port_url() -> str:
    """A loopback URL nobody listens on: the server is down."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}"


def _command(url: str) -> list[str]:
    return ["query", "Directory", "--url", url, "--timeout", str(TIMEOUT)]


def assert_clean_failure(fault: str, code: int, stdout: str, stderr: str, seconds: float) -> None:
    assert code == EXIT_FOR[fault], (stdout, stderr)
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), stderr
    assert EXPECTED[fault] in lines[0]
    assert "Traceback" not in stdout + stderr
    assert TOKEN not in stdout + stderr
    assert stdout == ""
    assert seconds < TIMEOUT + 4  # the timeout bounds every fault, also a trickling body


def _run_in_process(url: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str, float]:
    started = time.monotonic()
    code = main(_command(url))
    seconds = time.monotonic() - started
    captured = capsys.readouterr()
    return code, captured.out, captured.err, seconds


def test_server_down_at_start(capsys: pytest.CaptureFixture[str]):
    assert_clean_failure("down", *_run_in_process(closed_port_url(), capsys))


@pytest.mark.parametrize("at_session", [False, True], ids=["at-api", "at-session"])
@pytest.mark.parametrize("fault", ["dies", "hangs", "slow", "expired", "unavailable", "crashes", "malformed", "html"])
def test_fault_in_process(fault: str, at_session: bool, capsys: pytest.CaptureFixture[str]):
    with FaultServer(fault, at_session=at_session) as server:
        code, out, err, seconds = _run_in_process(server.url, capsys)
        if not at_session:
            assert server.api_requests == 1  # the session was fine; the failure came mid-session
    if at_session and fault in ("malformed", "html"):
        # A session resource that is not JSON is named as such, not as "malformed JSON".
        assert code == 1 and err.startswith("error: ") and "session" in err and "Traceback" not in err
        return
    assert_clean_failure(fault, code, out, err, seconds)


@pytest.mark.parametrize("fault", ["down", "dies", "hangs", "slow", "expired", "unavailable", "malformed"])
def test_fault_as_subprocess(fault: str):
    """``python -m mailadmin`` as a script would run it: exit status 1 and one line on stderr."""
    env = {**os.environ, "PYTHONPATH": str(Path.cwd()), "MAILADMIN_CONFIG": os.environ["MAILADMIN_CONFIG"]}

    def run(url: str) -> None:
        started = time.monotonic()
        done = subprocess.run([sys.executable, "-m", "mailadmin", *_command(url)], capture_output=True,
                              text=True, env=env, timeout=30)
        # Subtract nothing for interpreter start-up: the bound below is generous enough for it.
        assert_clean_failure(fault, done.returncode, done.stdout, done.stderr, time.monotonic() - started - 1)

    if fault == "down":
        run(closed_port_url())
        return
    with FaultServer(fault) as server:
        run(server.url)


async def test_trickling_body_times_out_as_a_whole():
    """httpx's timeout is per read; the client bounds the whole exchange (a fix made for issue 8)."""
    with FaultServer("slow") as server:
        async with JmapClient(server.url, TOKEN, timeout=0.5) as client:
            started = time.monotonic()
            with pytest.raises(RequestTimeout):
                await client.directories.query()
            assert time.monotonic() - started < 2
