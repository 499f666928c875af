"""Ctrl-C ends a command with exit 130 and one line saying so: export, query and the advice ended
with nothing said, and a script's output file then looked finished (the tester's)."""

from __future__ import annotations

import argparse

import pytest

from jmapclient.outcome import EXIT_INTERRUPTED, InterruptionSaid
from mailadmin.cli import run
from mailadmin.main import build_parser


def interrupted_by(stop: KeyboardInterrupt) -> dict[str | None, object]:
    def command(args: argparse.Namespace) -> int:
        raise stop

    return {"demo": command}


def test_ctrl_c_is_said_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    parser = build_parser()
    code = run(parser, parser.parse_args(["demo"]), local=interrupted_by(KeyboardInterrupt()))  # type: ignore[arg-type]
    assert code == EXIT_INTERRUPTED
    assert capsys.readouterr().err == "mailadmin demo interrupted (Ctrl-C)\n"


def test_a_command_that_said_what_it_had_done_is_not_said_again(capsys: pytest.CaptureFixture[str]) -> None:
    parser = build_parser()
    code = run(parser, parser.parse_args(["demo"]), local=interrupted_by(InterruptionSaid()))  # type: ignore[arg-type]
    assert code == EXIT_INTERRUPTED
    assert capsys.readouterr().err == ""
