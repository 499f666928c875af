"""The terminal passes keys through as typed from the front door's choice of the console until the console takes it
(mailadmin.early_keys), and is given back as it was found. The keys themselves: tests/pty/test_typed_ahead.py."""

from __future__ import annotations

import fcntl
import os
import struct
import termios
import time
from collections.abc import Iterator

import pytest

from mailadmin.early_keys import IFLAG, LFLAG, EarlyKeys

EDITING = (IFLAG, termios.IXON | termios.ICRNL), (LFLAG, termios.ICANON | termios.ECHO | termios.IEXTEN)
"""The line editing a terminal does by default, which ate a ctrl+s typed ahead and turned Enter into ctrl+j."""


@pytest.fixture
def terminal() -> Iterator[tuple[int, int]]:
    """A new PTY (its controller and its terminal), in its default modes: line editing on."""
    controller, end = os.openpty()
    try:
        yield controller, end
    finally:
        os.close(controller)
        os.close(end)


def test_keys_pass_through_as_typed_until_the_terminal_is_handed_over_as_it_was(terminal: tuple[int, int]) -> None:
    controller, end = terminal
    found = termios.tcgetattr(end)
    assert all(found[place] & flags == flags for place, flags in EDITING)
    with os.fdopen(os.dup(end), "r") as stream:
        early = EarlyKeys.take(stream)
        assert early is not None
        taken = termios.tcgetattr(end)
        assert not any(taken[place] & flags for place, flags in EDITING)
        assert taken[LFLAG] & termios.ISIG  # Ctrl-C still stops the start
        os.write(controller, b"n\r\x13x")  # typed now: Enter stays Enter, ctrl+s stays a key
        waiting(end, 4)  # the terminal has read them (in its own time), in the modes taken
        early.hand_over()
        assert termios.tcgetattr(end) == found
        assert os.read(end, 16) == b"n\r\x13x"  # kept for the console, which reads them once it has the terminal
        termios.tcsetattr(end, termios.TCSANOW, taken)  # the console's own modes...
        early.hand_over()  # ...are not undone by a second hand-over (the process's end): once only
        assert termios.tcgetattr(end) == taken


def waiting(end: int, count: int, seconds: float = 5.0) -> None:
    """Wait until ``count`` bytes are there to read at the terminal ``end`` (read, not taken)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if struct.unpack("i", fcntl.ioctl(end, termios.FIONREAD, b"\0\0\0\0"))[0] >= count:
            return
        time.sleep(0.01)
    raise AssertionError(f"fewer than {count} bytes to read after {seconds} s")


def test_a_stream_that_is_no_terminal_is_left_alone(tmp_path) -> None:  # type: ignore[no-untyped-def]
    with (tmp_path / "input").open("w+") as stream:
        assert EarlyKeys.take(stream) is None
