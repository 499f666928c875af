"""Keys typed before the console takes the terminal, read as typed: not edited by the terminal on the way.

The console's first frame comes a third of a second or more after the command (the demo's, after its server has
started); until Textual puts the terminal in raw mode, the terminal's line discipline handles what is typed ahead.
It took ``ctrl+s`` as flow control (stop the output), and the save typed ahead never reached the console: ``n Down
Enter TypeAhead2 ctrl+s`` typed as the console started left the form filled and unsaved, unsaid (the tester's).
It also erased the keys before a ``ctrl+u`` or a Backspace, whatever they were for, and quoted the key after a
``ctrl+v``. So once the front door knows it opens the console, the terminal passes every key through as typed (Ctrl-C
still interrupts: a start can be stopped), until :meth:`EarlyKeys.hand_over` gives the terminal back as it was, just
before Textual takes it: Textual puts back, at its end and around the editor it runs, what it found then.
"""

from __future__ import annotations

import atexit
import contextlib
import sys
from typing import Any, TextIO

try:
    import termios
    from tty import IFLAG, LFLAG  # the input and local modes' places in termios.tcgetattr's list
except ImportError:  # not a POSIX terminal: nothing to hold
    termios = None  # type: ignore[assignment]


class EarlyKeys:
    """The terminal on ``fd`` passing keys through as typed, until :meth:`hand_over` (or the process's end)."""

    def __init__(self, fd: int, before: list[Any]) -> None:
        self.fd = fd
        self.before = before
        """The terminal's modes as found: given back."""
        self.given_back = False
        atexit.register(self.hand_over)  # a start that ends before the console runs (an error line) gives it back

    @classmethod
    def take(cls, stream: TextIO | None = None) -> EarlyKeys | None:
        """Keys typed on ``stream`` (standard input) passed through as typed from now; None when it is no terminal."""
        if termios is None:
            return None
        try:
            fd = (stream or sys.stdin).fileno()
            before = termios.tcgetattr(fd)
        except (AttributeError, ValueError, OSError, termios.error):
            return None
        modes = list(before)
        modes[IFLAG] &= ~(termios.IXON | termios.IXOFF | termios.ICRNL | termios.INLCR | termios.IGNCR)
        modes[LFLAG] &= ~(termios.ICANON | termios.ECHO | termios.IEXTEN)  # ISIG kept: Ctrl-C stops the start
        try:
            termios.tcsetattr(fd, termios.TCSANOW, modes)
        except termios.error:
            return None
        return cls(fd, before)

    def hand_over(self) -> None:
        """The terminal's modes as found (the keys already typed stay to be read): now, and once only."""
        atexit.unregister(self.hand_over)
        if self.given_back:
            return  # the console's own modes now, which Textual gives back itself
        self.given_back = True
        with contextlib.suppress(termios.error, OSError):
            termios.tcsetattr(self.fd, termios.TCSANOW, self.before)
