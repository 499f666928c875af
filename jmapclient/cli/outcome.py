"""How a command ends: exit codes, the usage error, and the one way to print a result.

Kept free of heavy imports: the entry point needs these before it knows which command
(and so which modules) it will run.
"""

from __future__ import annotations

import sys

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130


class UsageError(ValueError):
    """The command line itself is malformed (exit code 2, like argparse)."""


def out(line: str = "") -> None:
    print(line, file=sys.stdout)
