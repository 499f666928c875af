"""The import's progress bar: on stderr at a terminal only, and once a run has lasted a moment.

The tester's finding: an import at a terminal showed no progress (the bar needed ten files, so a
few large ones ran silent); pipes must stay clean.
"""

from __future__ import annotations

import io

from mailadmin.cli import progress
from mailadmin.cli.progress import Progress
from tests.support.fake_terminal import Clock, TtyStream


def test_a_slow_run_of_few_files_shows_its_bar_at_a_terminal() -> None:
    screen, clock = TtyStream(), Clock()
    bar = Progress.maybe(3, "files", stream=screen, clock=clock)
    assert bar is not None
    bar.advance()
    assert screen.getvalue() == ""  # too soon: a quick run draws nothing
    clock.now += progress.SHOW_AFTER
    bar.advance()
    assert screen.getvalue().endswith("] 2/3 files")
    bar.advance()
    bar.close()
    assert screen.getvalue().endswith("] 3/3 files\n")


def test_a_quick_run_draws_nothing_not_even_a_line_break() -> None:
    screen, clock = TtyStream(), Clock()
    bar = Progress.maybe(20, "files", stream=screen, clock=clock)
    assert bar is not None
    for _ in range(20):
        bar.advance()
    bar.close()
    assert screen.getvalue() == ""


def test_a_pipe_or_a_single_file_gets_no_bar() -> None:
    assert Progress.maybe(500, "files", stream=io.StringIO()) is None
    assert Progress.maybe(1, "files", stream=TtyStream()) is None
