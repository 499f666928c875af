"""``--timeout`` takes seconds above 0 and at most an hour; anything else is a usage error, sent nowhere.

The tester's finding: ``nan`` was a ValueError traceback, ``inf`` an OverflowError traceback, and
``-1`` or ``0`` were taken, each request then failing with "did not answer after -1s" (exit 3).
"""

from __future__ import annotations

import pytest

from jmapclient.outcome import EXIT_USAGE
from mailadmin.main import main
from tests.support.transport import CountingTransport

SERVER = ["--url", "https://mail.example", "--token-file", "/nonexistent-token"]


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "-1", "0", "0.0", "1e400", "3601", "abc", ""])
@pytest.mark.parametrize("where", ["before", "after"])
def test_a_timeout_that_is_no_wait_is_a_usage_error(
    value: str, where: str, capsys: pytest.CaptureFixture[str]
) -> None:
    counting = CountingTransport()
    flag = [f"--timeout={value}"]
    argv = [*flag, "query", "Directory", *SERVER] if where == "before" else ["query", "Directory", *flag, *SERVER]
    assert main(argv, transport=counting) == EXIT_USAGE
    err = capsys.readouterr().err
    assert "error: argument --timeout: " in err and "Traceback" not in err
    assert counting.requests == []


@pytest.mark.parametrize(("value", "seconds"), [("0.5", 0.5), ("30", 30.0), ("3600", 3600.0)])
def test_a_timeout_in_range_is_taken(value: str, seconds: float) -> None:
    from mailadmin.cli.parser import build_parser

    assert build_parser().parse_args(["query", "Directory", "--timeout", value]).timeout == seconds
