"""The console and the demo start only at a terminal; without one they say so and exit 2.

The tester's finding: ``mailadmin --url X < /dev/null > out`` (a subcommand forgotten in cron) wrote
full-screen escape sequences and never exited.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from jmapclient.outcome import EXIT_USAGE
from mailadmin.main import main

ROOT = Path(__file__).resolve().parents[2]
SAID = "error: the console needs a terminal (stdin and stdout); for commands see mailadmin --help\n"


def test_the_console_without_a_terminal_exits_2_at_once_and_writes_nothing_to_stdout(tmp_path: Path) -> None:
    env = {key: value for key, value in os.environ.items() if key != "TEXTUAL_DRIVER"}
    env.update(MAILADMIN_CONFIG=str(tmp_path / "config.toml"), MAILADMIN_DATA=str(tmp_path / "data"),
               MAILADMIN_TOKEN="t", PYTHONPATH=str(ROOT))
    for argv in (["--url", "http://127.0.0.1:9"], ["demo"]):
        with open(os.devnull) as nothing:
            done = subprocess.run([sys.executable, "-m", "mailadmin", *argv], cwd=ROOT, env=env, stdin=nothing,
                                  capture_output=True, text=True, timeout=30)
        assert (done.returncode, done.stdout, done.stderr) == (EXIT_USAGE, "", SAID), argv


def test_the_demo_starts_no_server_without_a_terminal(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import mailadmin.demo

    started: list[object] = []
    monkeypatch.delenv("TEXTUAL_DRIVER", raising=False)
    monkeypatch.setattr(mailadmin.demo, "run_demo", lambda *args, **kwargs: started.append(args) or 0)
    assert main(["demo"]) == EXIT_USAGE
    assert started == []
    assert capsys.readouterr().err == SAID


def test_a_driver_of_its_own_needs_no_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    from mailadmin.main import has_terminal

    monkeypatch.delenv("TEXTUAL_DRIVER", raising=False)
    assert not has_terminal()  # pytest's standard streams are no terminal
    monkeypatch.setenv("TEXTUAL_DRIVER", "textual.drivers.web_driver:WebDriver")  # textual-serve's
    assert has_terminal()
