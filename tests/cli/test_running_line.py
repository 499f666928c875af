"""The running line (mailadmin.cli.progress.RunningLine): what a long wait is doing, on stderr at a terminal only.

Drawn once the wait has lasted SHOW_AFTER (a quick one draws nothing), redrawn in place only when its text
changes, erased (the row cleared, no empty line left) before a prompt or the report; a pipe or a file gets
nothing at all. ``test-directory`` wires it around the live test: its prompts and warnings come on a clean row.
"""

from __future__ import annotations

import io
import threading
import time
from typing import Any

import pytest

from jmapclient.dirtest import steps
from jmapclient.dirtest.inputs import LiveInput
from jmapclient.dirtest.steps import Report
from mailadmin.cli import progress
from mailadmin.cli.progress import CLEAR_TO_END, RunningLine, running_line_shown
from mailadmin.main import main
from tests.support.fake_terminal import Clock, TtyStream

ERASED = f"\r{CLEAR_TO_END}"
PATIENCE = 5.0
"""Seconds a test waits for the drawing thread: it ticks four times a second; only a broken one takes this."""


class Saying:
    """What the waiting work says, changed by the test; each call counted."""

    def __init__(self, text: str = "Testing… step 1 of 8: connect") -> None:
        self.text, self.calls = text, 0

    def __call__(self, seconds: float) -> str:
        self.calls += 1
        return f"{self.text} · {int(seconds)} s"


def _line(saying: Saying) -> tuple[RunningLine, TtyStream, Clock]:
    screen, clock = TtyStream(), Clock()
    line = RunningLine.maybe(saying, stream=screen, clock=clock)
    assert line is not None
    return line, screen, clock


def test_nothing_is_drawn_before_show_after_then_the_line_is_with_its_seconds() -> None:
    line, screen, clock = _line(Saying())
    line.tick()
    clock.now += progress.SHOW_AFTER / 2
    line.tick()
    line.erase()
    assert screen.getvalue() == ""  # a quick wait draws nothing, and erases nothing
    clock.now += progress.SHOW_AFTER
    line.tick()
    assert screen.getvalue() == f"\rTesting… step 1 of 8: connect · 0 s{CLEAR_TO_END}"


def test_the_line_is_redrawn_only_when_its_text_changes() -> None:
    saying = Saying()
    line, screen, clock = _line(saying)
    clock.now += 1.2
    line.tick()
    clock.now += 0.25
    line.tick()  # still "1 s": nothing written
    assert screen.getvalue().count("\r") == 1
    saying.text = "Testing… step 2 of 8: TLS"
    line.tick()
    clock.now += 1
    line.tick()
    assert screen.getvalue().split("\r")[1:] == [
        f"Testing… step 1 of 8: connect · 1 s{CLEAR_TO_END}",
        f"Testing… step 2 of 8: TLS · 1 s{CLEAR_TO_END}",
        f"Testing… step 2 of 8: TLS · 2 s{CLEAR_TO_END}",
    ]


def test_a_pause_erases_the_row_keeps_it_clear_until_the_prompt_is_answered_and_its_time_is_not_counted() -> None:
    line, screen, clock = _line(Saying())
    clock.now += 1
    line.tick()
    with line.paused():
        assert screen.getvalue().endswith(ERASED)  # before the prompt: its row is clean
        screen.write("send it anyway? [y/N] y\n")
        clock.now += 30  # the person's typing: not the server's silence
        line.tick()  # the drawing thread's tick while the person types: nothing drawn over the prompt
        assert screen.getvalue().endswith("y\n")
    clock.now += 1
    line.tick()
    assert screen.getvalue().endswith(f"\rTesting… step 1 of 8: connect · 2 s{CLEAR_TO_END}")  # back after it


def test_erasing_clears_the_row_once() -> None:
    line, screen, clock = _line(Saying())
    clock.now += 1
    line.tick()
    line.erase()
    line.erase()
    assert screen.getvalue().endswith(f"1 s{CLEAR_TO_END}{ERASED}")  # erased once: nothing to erase the second time


def test_a_closed_line_is_never_drawn_again() -> None:
    line, screen, clock = _line(Saying())
    clock.now += 1
    line.tick()
    line.close()
    line.tick()  # a tick that was under way in the drawing thread as the work ended
    assert screen.getvalue().endswith(f"1 s{CLEAR_TO_END}{ERASED}")


def test_outside_text_is_escaped_and_cut_to_the_terminal_width() -> None:
    line, screen, clock = _line(Saying("Testing… ldap://evil\x1b]0;owned\x07" + "x" * 300))
    clock.now += 1
    line.tick()
    drawn = screen.getvalue().removeprefix("\r").removesuffix(CLEAR_TO_END)
    assert "\x1b" not in drawn and "\x07" not in drawn and "\\u001b]0;owned" in drawn
    assert len(drawn) == progress.FALLBACK_COLUMNS - 1  # a wrapped line could not be redrawn in place


def test_a_pipe_or_a_file_gets_no_running_line_at_all() -> None:
    saying, stream = Saying(), io.StringIO()
    assert RunningLine.maybe(saying, stream=stream) is None
    with running_line_shown(saying, stream=stream) as paused, paused():
        time.sleep(progress.TICK * 3)
    assert stream.getvalue() == "" and saying.calls == 0


def _wait_for(condition: Any, what: str) -> None:
    deadline = time.monotonic() + PATIENCE
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.01)


def test_test_directory_erases_its_line_before_a_question_and_before_the_report(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Any,
) -> None:
    """The live test stands in for run_live: it ends a step, waits for the line, then asks to send in cleartext."""
    screen = TtyStream()
    monkeypatch.setattr("sys.stderr", screen)
    monkeypatch.setattr("sys.stdin", TtyStream())  # a person at the keyboard: the question is asked
    monkeypatch.setattr(progress, "SHOW_AFTER", 0.0)
    asked: list[str] = []

    def answer(prompt: str) -> str:
        asked.append(screen.getvalue())
        return "y"

    def live(wire: dict[str, Any], inputs: LiveInput) -> Report:
        report = Report("LDAP", on_add=inputs.on_step)
        report.add(steps.CONNECT, steps.Outcome.PASSED, "reached")
        _wait_for(lambda: "step 2 of 8: TLS · ldap://127.0.0.1:9 ·" in screen.getvalue(), "the running line")
        assert inputs.confirm_cleartext("the password would cross the network unencrypted")
        _wait_for(lambda: screen.getvalue().count("step 2 of 8") > 1, "the line back after the question")
        return report

    monkeypatch.setattr("builtins.input", answer)
    monkeypatch.setattr("jmapclient.dirtest.live.run_live", live)
    settings = tmp_path / "directory.json"
    settings.write_text('{"@type": "Ldap", "description": "x", "url": "ldap://127.0.0.1:9", "baseDn": "dc=x", '
                        '"bindSecret": {"@type": "Value", "secret": "s"}}')
    done = threading.Event()
    code: list[int] = []
    worker = threading.Thread(target=lambda: (code.append(main(["test-directory", str(settings)])), done.set()),
                              daemon=True)
    worker.start()
    assert done.wait(PATIENCE * 2), "test-directory did not end"
    before_question = asked[0]
    said = before_question.rsplit(ERASED, 1)
    assert len(said) == 2 and said[1] == "warning: the password would cross the network unencrypted\n"
    assert screen.getvalue().endswith(ERASED)  # the report comes on a clean row
    assert capsys.readouterr().out.startswith("Directory test of x (LDAP)")
    assert code == [0]  # the faked steps passed; the file, with the server's defaults, has no lint error
