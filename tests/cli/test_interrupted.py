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


def test_ctrl_c_while_the_front_door_loads_is_said_without_a_traceback() -> None:
    # The key in the first 0.3 s landed in the start-up imports: a KeyboardInterrupt traceback.
    import subprocess
    import sys

    stopped_import = (
        "import sys\n"
        "class Stop:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name == 'mailadmin.main':\n"
        "            raise KeyboardInterrupt\n"
        "sys.meta_path.insert(0, Stop())\n"
        "from mailadmin.entry import main\n"
        "raise SystemExit(main())\n"
    )
    ran = subprocess.run([sys.executable, "-c", stopped_import], capture_output=True, text=True, timeout=60)
    assert (ran.returncode, ran.stderr, ran.stdout) == (EXIT_INTERRUPTED, "mailadmin interrupted (Ctrl-C)\n", "")


def test_ctrl_c_at_a_prompt_ends_the_prompt_s_line_first(capsys: pytest.CaptureFixture[str]) -> None:
    # "access token (empty: skip that step): mailadmin test-directory interrupted (Ctrl-C)" on one line.
    from mailadmin.cli.dirtest_cmd import _asked

    def typed_ctrl_c(prompt: str) -> str:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        _asked(typed_ctrl_c, "access token: ")
    assert capsys.readouterr().err == "\n"


def test_ctrl_d_at_a_directory_test_prompt_is_the_empty_answer(capsys: pytest.CaptureFixture[str]) -> None:
    # Ctrl-D at "password for … (empty: skip that step)" was a traceback (the tester's): the input ended is the
    # empty answer each of these prompts names as its default.
    from mailadmin.cli.dirtest_cmd import _asked

    def typed_ctrl_d(prompt: str) -> str:
        raise EOFError

    assert _asked(typed_ctrl_d, "password for jane@corp.example.com (empty: skip that step): ") == ""
    assert capsys.readouterr().err == "\n"
