"""How a command ends: exit codes, the usage error, and the one way to print a result.

Kept free of heavy imports: the entry point needs these before it knows which command
(and so which modules) it will run.
"""

from __future__ import annotations

import codecs
import errno
import io
import sys
from typing import TextIO

from jmapclient.display import safe_text
from jmapclient.file_safety import STDOUT_NAME, naming_target

# The exit codes of every command (README, "Exit codes"; the man page's EXIT STATUS). A script
# tells "try again later" (network) from "fix your token" (login) from "fix the request" (refused).
EXIT_OK = 0
EXIT_FAILED = 1
"""The server refused (a method or object error), or a local problem: a file, a value, a config."""
EXIT_USAGE = 2
"""The command line is malformed (argparse's code)."""
EXIT_NETWORK = 3
"""The server could not be reached or answered nothing usable: connection, TLS, timeout, HTTP 5xx."""
EXIT_LOGIN = 4
"""The server refused the credentials: 401, 403 (a revoked key), 402 (two-factor), 429 (too many tries)."""
EXIT_PARTIAL = 5
"""Some objects were done and others refused (import, delete, apply)."""
EXIT_ATTENTION = 6
"""``dmarc-advice --check``: something needs a person's attention."""
EXIT_INTERRUPTED = 130

EXIT_CODES: tuple[tuple[int, str], ...] = (
    (EXIT_OK, "success"),
    (EXIT_FAILED, "refused by the server, or a local error (a file, a value, the config)"),
    (EXIT_USAGE, "usage error: the command line is malformed"),
    (EXIT_NETWORK, "network or TLS failure, timeout, server error (HTTP 5xx): try again later"),
    (EXIT_LOGIN, "login refused (401, 403, 402 two-factor, 429 too many attempts): fix the credentials"),
    (EXIT_PARTIAL, "partial success: some objects done, others refused"),
    (EXIT_ATTENTION, "dmarc-advice --check: something needs attention"),
    (EXIT_INTERRUPTED, "interrupted (Ctrl-C)"),
)
"""The table the help, the man page and the README show; one line per code."""


class InterruptionSaid(KeyboardInterrupt):
    """Ctrl-C, once the command has said what it had done (import-dmarc's count): nothing more to say."""


class UsageError(ValueError):
    """The command line itself is malformed (exit code 2, like argparse)."""


def tolerant_output() -> None:
    """Let stdout and stderr show what their encoding cannot as a backslash escape, not fail on it.

    Under a legacy 8-bit locale (``LC_ALL=de_DE.ISO-8859-1``, ``PYTHONIOENCODING=ascii``) the ``…`` of a cut
    column or an emoji in a description crashed ``query`` and ``apply`` with a UnicodeEncodeError traceback
    (the tester's). A UTF-8 stream shows every character: it is left exactly as Python set it up. Called once,
    by the command line's entry, before anything is printed.
    """
    for stream in (sys.stdout, sys.stderr):
        if isinstance(stream, io.TextIOWrapper) and not _is_utf8(stream):
            stream.reconfigure(errors="backslashreplace")


def _is_utf8(stream: TextIO) -> bool:
    try:
        return codecs.lookup(stream.encoding or "").name == UTF_8
    except LookupError:
        return False


UTF_8 = "utf-8"


def stdout_stream() -> TextIO:
    """Standard output, or an OSError naming it when the command started with it closed (``>&-``): Python
    then has None there, and printing to it was silently nothing, its flush a traceback."""
    if sys.stdout is None:
        raise OSError(errno.EBADF, "it is closed", STDOUT_NAME)
    return sys.stdout


def out(line: str = "") -> None:
    """One result line on stdout; outside text in it can never reach the terminal as controls."""
    with naming_target(STDOUT_NAME):
        print(safe_text(line, single_line=False), file=stdout_stream())


def flush_stdout() -> None:
    """Write out what stdout holds; an error names it (a full disk said only "No space left")."""
    with naming_target(STDOUT_NAME):
        stdout_stream().flush()


def write_stdout(text: str) -> None:
    """``text`` as it is on stdout (a script, a snapshot), in UTF-8 whatever the locale; an error names stdout,
    as :func:`flush_stdout`.

    A file's format is no matter of the terminal's: written in the locale's encoding, a snapshot came out as
    Latin-1 bytes that ``apply`` refused as not UTF-8, or stopped at an emoji with a traceback (the tester's).
    """
    with naming_target(STDOUT_NAME):
        stream = stdout_stream()
        binary = getattr(stream, "buffer", None)
        if binary is None or _is_utf8(stream):  # what the text layer writes is UTF-8 already (or it has no bytes)
            stream.write(text)
            return
        stream.flush()  # what was printed before goes first
        binary.write(text.encode(UTF_8))


def note(line: str) -> None:
    """One line for the person on stderr (errors, notes, counts), made safe like :func:`out`."""
    print(safe_text(line), file=sys.stderr)
