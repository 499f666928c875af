"""The object commands of ``mailadmin``: get, create, query, update, delete, describe, profile, import/export.

:func:`run` returns the exit code: 0 ok; 1 a server, validation or network error (``error: ...``
lines on stderr naming the field and the reason); 2 a usage error. The one entry point is
:func:`mailadmin.main.main`: it parses these commands plus its own and hands them to :func:`run`.

Only argument parsing loads at import: httpx and pydantic come with the command that needs
them, so ``--help`` and the console's start pay for none of them. A command that sends one
request at a time runs on blocking sockets with no event loop (:mod:`jmapclient.blocking`);
asyncio loads only for those in :data:`NEEDS_A_LOOP`, and when a test hands in a transport.
The cycle collector is paused from the command line to a command's first request
(:mod:`mailadmin.startup`): what a command's set-up makes lives as long as the process.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING

from jmapclient.file_safety import STDOUT_NAME
from jmapclient.outcome import (
    EXIT_FAILED,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_USAGE,
    InterruptionSaid,
    UsageError,
    flush_stdout,
    note,
    out,
)
from mailadmin.cli.parser import PROG
from mailadmin.startup import resume_collector, skip_exit_collection

if TYPE_CHECKING:
    import httpx

    from jmapclient.client import JmapClient

__all__ = ["LocalCommand", "parse", "run"]

Command = Callable[[argparse.Namespace, "JmapClient"], Awaitable[int]]
LocalCommand = Callable[[argparse.Namespace], int]
"""A command a layer above adds (the console, ``demo``); ``None`` names the bare command line."""


def parse(parser: argparse.ArgumentParser, arguments: list[str]) -> argparse.Namespace | int:
    """The parsed arguments, or argparse's exit code (0 after --help, 2 after a usage error)."""
    try:
        args, unknown = parser.parse_known_args(arguments)
        if unknown:
            # argparse's parse_args refuses them with the top-level usage, which names no option of the
            # command they were typed to; the command's own usage does.
            from jmapclient.display import safe_text

            _chosen(parser, args).error(f"unrecognized arguments: {safe_text(' '.join(unknown))}")
        return args
    except SystemExit as exit_:
        return exit_.code if isinstance(exit_.code, int) else EXIT_USAGE


def _chosen(parser: argparse.ArgumentParser, args: argparse.Namespace) -> argparse.ArgumentParser:
    """The innermost (sub)command parser ``args`` went through (``profile add`` within ``profile``)."""
    for action in parser._actions:  # argparse keeps the subcommands' parsers only there
        if isinstance(action, argparse._SubParsersAction):
            chosen = action.choices.get(getattr(args, action.dest, None) or "")
            if chosen is not None:
                return _chosen(chosen, args)
    return parser


def run(
    parser: argparse.ArgumentParser,
    args: argparse.Namespace,
    *,
    transport: httpx.AsyncBaseTransport | None = None,
    local: Mapping[str | None, LocalCommand] | None = None,
) -> int:
    """Run parsed arguments; errors of any command, ``local`` ones too, end as lines and an exit code."""
    from jmapclient.config import ConfigError
    from jmapclient.errors import JmapError
    from jmapclient.failures import emit_error, error_lines

    try:
        if getattr(args, "version", False):
            from mailadmin.cli.version_cmd import show_version

            return show_version(args)
        if local is not None and args.command in local:
            # The console and the demo turn the collector back on once their first frame is drawn
            # (mailadmin.startup); the others are one-shot, and main() turns it on as they end.
            code = local[args.command](args)
            flush_stdout()  # a full disk named here, not an unnamed error at exit
            return code
        skip_exit_collection()  # the process ends with this command
        code = _dispatch(args, transport)
        flush_stdout()  # a reader that left (a pipe) shows here, not in the flush at exit
        return code
    except UsageError as error:
        chosen = usage_parser(parser, args.command)
        chosen.print_usage(sys.stderr)
        note(f"{chosen.prog}: error: {error}")
        return EXIT_USAGE
    except (JmapError, ConfigError) as error:
        from mailadmin.cli.exit_codes import exit_code_for

        for line in error_lines(error):
            emit_error(line)
        return exit_code_for(error)
    except BrokenPipeError:  # `mailadmin query ... | head`: the reader left; that is not an error
        _discard_stdout()
        return EXIT_OK
    except OSError as error:  # a file the person named: missing, a folder, not writable; or stdout
        if error.filename == STDOUT_NAME:
            _discard_stdout()  # what is still buffered would fail again at exit
        emit_error(os_error_line(error))
        return EXIT_FAILED
    except KeyboardInterrupt as stop:
        if not isinstance(stop, InterruptionSaid):  # a command that says what it had done has said so
            note(f"{PROG} {args.command or ''}".rstrip() + " interrupted (Ctrl-C)")
        return EXIT_INTERRUPTED


def _discard_stdout() -> None:
    """Point stdout at /dev/null: what is still buffered would fail again at exit (and exit 120)."""
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # no file (a test's capture), or none (closed): nothing to flush
        pass


CHANGING_COMMANDS = frozenset({"create", "update", "delete", "import-dmarc", "apply"})
"""What a read-only profile refuses before anything is sent (a dry run changes nothing: allowed)."""


def changes_server(args: argparse.Namespace) -> bool:
    return args.command in CHANGING_COMMANDS and not getattr(args, "dry_run", False)


def usage_parser(parser: argparse.ArgumentParser, command: str | None) -> argparse.ArgumentParser:
    """The subcommand's own parser, so a usage error shows the usage that applies."""
    for action in parser._actions:  # argparse keeps its subparsers only here
        if isinstance(action, argparse._SubParsersAction) and command in action.choices:
            chosen: argparse.ArgumentParser = action.choices[command]
            return chosen
    return parser


def os_error_line(error: OSError) -> str:
    where = f" {error.filename}" if error.filename else ""
    return f"cannot use{where}: {error.strerror or error}"


# Each connected command names the module that holds it, so that `query` loads neither the
# DMARC importer nor its XML parser: only the command asked for pays for its imports.
_CONNECTED_COMMANDS: dict[str, tuple[str, str]] = {
    "get": ("objects_cmd", "get"),
    "create": ("objects_cmd", "create"),
    "query": ("objects_cmd", "query"),
    "update": ("objects_cmd", "update"),
    "delete": ("objects_cmd", "delete"),
    "export-dmarc": ("dmarc_cmd", "export_records"),
    "import-dmarc": ("dmarc_cmd", "import_reports"),
    "dmarc-advice": ("advice_cmd", "dmarc_advice"),
    "test-directory": ("dirtest_cmd", "test_directory"),
    "snapshot": ("ascode_cmd", "snapshot"),
    "apply": ("ascode_cmd", "apply"),
}
NEEDS_A_LOOP = frozenset({"import-dmarc", "dmarc-advice"})
"""Commands that wait on threads or run lookups side by side; the others send one request at a
time, on blocking sockets with no event loop (:mod:`jmapclient.blocking`): asyncio and anyio are
a sixth of a command's start."""


def _connected_command(name: str) -> Command:
    from importlib import import_module

    try:
        module, function = _CONNECTED_COMMANDS[name]
    except KeyError:
        raise UsageError(f"{name} cannot follow other options; put it first: `{PROG} {name} ...`") from None
    command: Command = getattr(import_module(f"mailadmin.cli.{module}"), function)
    return command


def _dispatch(args: argparse.Namespace, transport: httpx.AsyncBaseTransport | None) -> int:
    command = args.command
    if command is None:
        raise UsageError("a command is required")
    if command == "describe":
        return _describe(args)
    if command == "profile":
        from mailadmin.cli import profile_cmd

        return profile_cmd.run(args)
    if command == "test-directory":
        from mailadmin.cli import dirtest_cmd

        wire = dirtest_cmd.local_settings(args)
        if wire is not None:  # a file: no server needed
            return dirtest_cmd.run(args, wire)
    handler = _connected_command(command)
    from mailadmin.cli.objects_cmd import check_usage

    check_usage(args)  # a malformed command line is a usage error, whether or not a server is reachable
    if command in ("export-dmarc", "snapshot") and args.output is not None:
        from mailadmin.cli.dmarc_cmd import check_output

        if not args.output:  # `-o ''` wrote to standard output, unsaid (the tester's)
            raise UsageError("-o needs a file name (or - for standard output)")
        # A bad target is said before a connection (or a password prompt).
        check_output(args.output, "snapshot" if command == "snapshot" else "export")
    if command == "snapshot":
        from mailadmin.cli.ascode_cmd import snapshot_type

        snapshot_type(args.object)
    if command == "apply":
        from jmapclient.file_safety import STDIO_ARG
        from mailadmin.cli.ascode_cmd import load_file

        if args.file == STDIO_ARG and (getattr(args, "token_stdin", False) or getattr(args, "password_stdin", False)):
            # The file read all of standard input, and the token's read found none left (or the other way):
            # "line 1: not JSON" said nothing of the clash (the tester's).
            raise UsageError("standard input cannot carry both the file (-) and the token or password: give "
                             "that with --token-file or --password-file (or MAILADMIN_TOKEN / MAILADMIN_PASSWORD)")
        args.snapshot_file = load_file(args.file)
    if transport is None and command not in NEEDS_A_LOOP:
        from jmapclient import blocking

        return blocking.run(_connected(handler, args, None, blocking=True))  # resumes the collector as it sends
    resume_collector()  # these wait on threads and lookups side by side, and may run long
    import asyncio

    if command == "import-dmarc" and args.dry_run:
        return asyncio.run(handler(args, None))  # type: ignore[arg-type]  # a dry run needs no server
    return asyncio.run(_connected(handler, args, transport))


async def _connected(
    handler: Command, args: argparse.Namespace, transport: httpx.AsyncBaseTransport | None, *, blocking: bool = False
) -> int:
    from jmapclient import connection
    from jmapclient.config import ConfigError

    target = connection.resolve_args(args, warn=lambda line: note(f"warning: {line}"))
    if target.read_only and changes_server(args):
        raise ConfigError(
            f"profile {target.profile!r} is read-only: {args.command} changes the server and is refused here; "
            f"re-add the profile without --read-only to allow changes"
        )
    async with target.open_client(transport, blocking=blocking, on_request=resume_collector) as client:
        return await handler(args, client)


def _describe(args: argparse.Namespace) -> int:
    from jmapclient.models.objects import OBJECT_TYPES
    from mailadmin.cli import describe, objects_cmd
    from mailadmin.cli.render import compact_json

    if args.object is None:
        if args.json:
            out(compact_json([describe.describe_json(t) for t in OBJECT_TYPES.values()]))
        else:
            for line in describe.describe_all():
                out(line)
        return EXIT_OK
    found, variant = objects_cmd.target(args.object)
    if args.json:
        out(compact_json(describe.describe_json(found, variant)))
    else:
        for line in describe.describe_type(found, variant):
            out(line)
    return EXIT_OK
