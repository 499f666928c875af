"""The front door sends each command line to its layer: console, demo, serve, or the object commands."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from mailadmin.main import main

ROOT = Path(__file__).resolve().parents[2]
EVERY_COMMAND = ("get", "create", "query", "update", "delete", "describe", "profile", "import-dmarc",
                 "export-dmarc", "dmarc-advice", "test-directory", "snapshot", "apply", "serve", "demo",
                 "completion", "manpage")


def listed_commands(help_text: str) -> set[str]:
    """The subcommands argparse lists under COMMAND (each on its own line, indented four spaces)."""
    return {line.split()[0] for line in help_text.splitlines() if line.startswith("    ") and line[4] != " "}


def test_help_lists_every_command_and_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--help"]) == 0
    text = capsys.readouterr().out
    assert listed_commands(text) == set(EVERY_COMMAND)
    assert "Without a subcommand the console opens." in text


def test_serve_is_delegated_to_the_stub_with_its_own_flags(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", "--help"]) == 0
    assert "usage: mailadmin serve" in capsys.readouterr().out
    assert main(["serve", "--reports", "-1"]) == 2  # the stub's own refusal, not the CLI's parser
    assert "argument --reports: -1 is negative" in capsys.readouterr().err


def test_serve_after_other_options_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--profile", "work", "serve"]) == 2
    err = capsys.readouterr().err
    assert "usage:" in err and "put it first" in err and "Traceback" not in err


def test_console_and_demo_dispatch_lazily(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("mailadmin.main.has_terminal", lambda: True)  # as at a person's terminal
    calls: list[tuple[object, ...]] = []
    console = type(sys)("tui.launch")
    console.run_console = (  # type: ignore[attr-defined]
        lambda args, after_first_frame, before_run: calls.append(("console", args.profile, args.url)) or 0)
    demo = type(sys)("mailadmin.demo")
    demo.run_demo = (  # type: ignore[attr-defined]
        lambda fresh, reports, offline, after_first_frame, before_run:
        calls.append(("demo", fresh, reports, offline)) or 0)
    monkeypatch.setitem(sys.modules, "tui.launch", console)
    monkeypatch.setitem(sys.modules, "mailadmin.demo", demo)
    assert main([]) == 0
    assert main(["--profile", "work"]) == 0
    assert main(["--url", "https://b.example"]) == 0  # the console is handed every connection flag
    assert main(["demo", "--fresh", "--reports", "12"]) == 0
    assert main(["demo"]) == 0
    assert main(["demo", "--offline"]) == 0
    assert calls == [("console", None, None), ("console", "work", None), ("console", None, "https://b.example"),
                     ("demo", True, 12, False), ("demo", False, None, False), ("demo", False, None, True)]


def test_a_missing_console_is_an_error_line_not_a_traceback(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "tui.launch", None)  # what a failed import looks like
    monkeypatch.setattr("mailadmin.main.has_terminal", lambda: True)
    assert main([]) == 1
    assert capsys.readouterr().err.startswith("error: the console is not available: ")


def _module(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", *argv], cwd=ROOT, capture_output=True, text=True, timeout=60)


def test_python_m_mailadmin_is_the_front_door() -> None:
    done = _module("mailadmin", "--help")
    assert done.returncode == 0 and listed_commands(done.stdout) == set(EVERY_COMMAND)


def test_the_client_library_has_no_command_line_of_its_own() -> None:
    """The CLI lives at the front door: ``python -m jmapclient`` is no second entry point."""
    gone = _module("jmapclient", "--help")
    assert gone.returncode != 0 and "cannot be directly executed" in gone.stderr
