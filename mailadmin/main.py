"""``main(argv) -> int``: parse the whole command line and run the command it names.

Every package behind the door loads only for the command that needs it: ``--help``
parses and exits without textual, httpx, pydantic or the stub.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING

from jmapclient.outcome import EXIT_FAILED, EXIT_OK, EXIT_USAGE, tolerant_output
from mailadmin.cli import LocalCommand, parse, run, shell_files
from mailadmin.cli.parser import EPILOG, PROG, object_commands
from mailadmin.startup import apply as start_up
from mailadmin.startup import resume_collector

if TYPE_CHECKING:
    from collections.abc import Callable

    import httpx

SERVE = "serve"


def build_parser() -> argparse.ArgumentParser:
    """The object commands, plus the console (no command), ``serve`` and ``demo``."""
    line = object_commands(f"{EPILOG} Without a subcommand the console opens.")
    line.passthrough(SERVE, "run the bundled JMAP server (arguments go to it; see `mailadmin serve --help`)")
    demo = line.command("demo", "open the console on a local demo server with sample data", connects=False)
    demo.add_argument("--fresh", action="store_true", help="start from new sample data")
    demo.add_argument("--reports", type=int, metavar="N", help="number of sample DMARC reports")
    demo.add_argument("--offline", action="store_true", help="name no DMARC source by DNS (no lookups at all)")
    shell_files.add_commands(line)
    return line.parser


def main(argv: list[str] | None = None, *, transport: httpx.AsyncBaseTransport | None = None) -> int:
    """Run one command line; ``transport`` reaches the object commands (tests watch the HTTP exchange)."""
    tolerant_output()  # under a legacy locale, a character it cannot show is escaped, not a traceback
    arguments = list(sys.argv[1:] if argv is None else argv)
    if arguments[:1] == [SERVE]:
        start_up(collector=False)  # a server runs for long: its collector is left as it is
        return _serve(arguments[1:])  # the stub's own parser reads its flags
    start_up()  # the process's speed-ups; the collector paused until the first request (mailadmin.startup)
    try:
        parser = build_parser()
        args = parse(parser, arguments)
        if isinstance(args, int):
            return args
        local: dict[str | None, LocalCommand] = {
            None: _console, "demo": _demo,
            "completion": lambda chosen: shell_files.run_completion(parser, chosen),
            "manpage": lambda chosen: shell_files.run_manpage(parser, chosen),
        }
        return run(parser, args, transport=transport, local=local)
    finally:
        resume_collector()


NO_TERMINAL = f"the console needs a terminal (stdin and stdout); for commands see {PROG} --help"
OTHER_DRIVER_ENV = "TEXTUAL_DRIVER"
"""Textual's own setting for a driver other than the terminal's (textual-serve's, drawing in a browser)."""


def has_terminal() -> bool:
    """Whether a person can type into the console and see it: standard input and output are a terminal.

    Without one (``mailadmin --url X < /dev/null > out``: a subcommand forgotten in cron) the console
    drew its screens into the file and waited for keys that never come, for ever. A driver named in
    ``TEXTUAL_DRIVER`` draws elsewhere, over pipes: then no terminal is needed.
    """
    if os.environ.get(OTHER_DRIVER_ENV):
        return True
    try:
        return all(stream is not None and stream.isatty() for stream in (sys.stdin, sys.stdout))
    except ValueError:  # a closed stream
        return False


def _no_terminal() -> int:
    from jmapclient.failures import emit_error

    emit_error(NO_TERMINAL)
    return EXIT_USAGE


def _console(args: argparse.Namespace) -> int:
    early = _keys_as_typed()
    try:
        from tui.launch import run_console  # textual only when the console is asked for
    except ImportError as error:
        return _unavailable("the console", error)
    # Checked once the console has loaded: a Textual that moved a name the console needs says so first.
    if not has_terminal():
        return _no_terminal()
    return run_console(args, after_first_frame=resume_collector, before_run=early)


def _demo(args: argparse.Namespace) -> int:
    early = _keys_as_typed()
    try:
        from mailadmin.demo import run_demo
    except ImportError as error:
        return _unavailable("the console", error)
    if not has_terminal():  # before the demo's server is seeded and started
        return _no_terminal()
    return run_demo(args.fresh, args.reports, offline=args.offline, after_first_frame=resume_collector,
                    before_run=early)


def _keys_as_typed() -> Callable[[], None] | None:
    """From now until the console takes the terminal, keys typed ahead pass through it as typed (a ``ctrl+s`` was
    the terminal's flow control, and lost); what gives the terminal back (mailadmin.early_keys)."""
    from mailadmin.early_keys import EarlyKeys

    early = EarlyKeys.take()
    return None if early is None else early.hand_over


def _serve(argv: list[str]) -> int:
    try:
        from server_stub.serve import main as serve_main  # the stub only when asked for
    except ImportError as error:
        return _unavailable("the bundled server", error)
    try:
        return serve_main(argv)
    except SystemExit as exit_:  # its own argparse: --help or a usage error
        return exit_.code if isinstance(exit_.code, int) else EXIT_OK


def _unavailable(what: str, error: ImportError) -> int:
    from jmapclient.failures import emit_error

    emit_error(f"{what} is not available: {error}")
    return EXIT_FAILED
