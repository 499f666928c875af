"""The console script's first code (``mailadmin``, ``python -m mailadmin``): the front door is loaded
inside it, so a Ctrl-C in the first fraction of a second, while the imports run, ends the command
with one line and exit 130 like a Ctrl-C any later, not with a traceback through the imports.
"""

from __future__ import annotations

import sys

INTERRUPTED = 130
"""jmapclient.outcome.EXIT_INTERRUPTED, which may be the very import the key stopped."""


def main() -> int:
    try:
        from mailadmin.main import main as command_line
    except KeyboardInterrupt:
        sys.stderr.write("mailadmin interrupted (Ctrl-C)\n")
        return INTERRUPTED
    return command_line()
