"""How a command ends: exit codes, the usage error, and the one way to print a result.

Kept free of heavy imports: the entry point needs these before it knows which command
(and so which modules) it will run.
"""

from __future__ import annotations

import sys

from jmapclient.display import safe_text

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130


class UsageError(ValueError):
    """The command line itself is malformed (exit code 2, like argparse)."""


def out(line: str = "") -> None:
    """One result line on stdout; outside text in it can never reach the terminal as controls."""
    print(safe_text(line, single_line=False), file=sys.stdout)


def note(line: str) -> None:
    """One line for the person on stderr (errors, notes, counts), made safe like :func:`out`."""
    print(safe_text(line), file=sys.stderr)
