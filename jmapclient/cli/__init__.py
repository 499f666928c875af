"""``mailadmin``: the command-line client, and the door to the console and the stub.

``main(argv) -> int`` returns the exit code: 0 ok; 1 a server, validation or network
error (``error: ...`` lines on stderr naming the field and the reason); 2 a usage
error. The console (textual) and the bundled server are imported only when asked
for, so scripting never loads a UI toolkit.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from jmapclient.cli.failures import emit_error, error_lines
from jmapclient.cli.outcome import EXIT_FAILED, EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE, UsageError, out
from jmapclient.cli.parser import PROG, build_parser
from jmapclient.config import ConfigError
from jmapclient.errors import JmapError

if TYPE_CHECKING:
    import httpx

    from jmapclient.client import JmapClient

# Command modules (and so httpx and pydantic) load only for the command that runs:
# `mailadmin demo` and `--help` should not pay for them.
Command = Callable[[argparse.Namespace, "JmapClient"], Awaitable[int]]


def _connected_command(name: str) -> Command:
    from jmapclient.cli import dmarc_cmd, objects_cmd

    commands: dict[str, Command] = {
        "get": objects_cmd.get,
        "create": objects_cmd.create,
        "query": objects_cmd.query,
        "update": objects_cmd.update,
        "delete": objects_cmd.delete,
        "export-dmarc": dmarc_cmd.export_records,
        "import-dmarc": dmarc_cmd.import_reports,
    }
    return commands[name]

__all__ = ["main"]


def main(argv: list[str] | None = None, *, transport: httpx.AsyncBaseTransport | None = None) -> int:
    """Run one command line; ``transport`` lets tests watch or replace the HTTP exchange."""
    arguments = list(sys.argv[1:] if argv is None else argv)
    if arguments[:1] == ["serve"]:
        return _serve(arguments[1:])
    parser = build_parser()
    try:
        args = parser.parse_args(arguments)
    except SystemExit as exit_:  # argparse: --help (0) or a usage error (2)
        return exit_.code if isinstance(exit_.code, int) else EXIT_USAGE
    try:
        return _dispatch(args, transport)
    except UsageError as error:
        parser.print_usage(sys.stderr)
        print(f"{PROG}: error: {error}", file=sys.stderr)
        return EXIT_USAGE
    except (JmapError, ConfigError) as error:
        for line in error_lines(error):
            emit_error(line)
        return EXIT_FAILED
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # `mailadmin query ... | head`: the reader left; that is not an error
        sys.stderr.close()
        return EXIT_OK


def _dispatch(args: argparse.Namespace, transport: httpx.AsyncBaseTransport | None) -> int:
    command = args.command
    if command is None:
        return _console(args)
    if command == "demo":
        return _demo(args)
    if command == "describe":
        return _describe(args)
    if command == "profile":
        from jmapclient.cli import profile_cmd

        return profile_cmd.run(args)
    handler = _connected_command(command)
    if command == "import-dmarc" and args.dry_run:
        return asyncio.run(handler(args, None))  # type: ignore[arg-type]  # a dry run needs no server
    return asyncio.run(_connected(handler, args, transport))


async def _connected(handler: Command, args: argparse.Namespace, transport: httpx.AsyncBaseTransport | None) -> int:
    from jmapclient.cli import connection
    from jmapclient.client import JmapClient

    target = connection.resolve(
        url=getattr(args, "url", None),
        token=getattr(args, "token", None),
        token_file=getattr(args, "token_file", None),
        profile=getattr(args, "profile", None),
        timeout=getattr(args, "timeout", None),
    )
    async with JmapClient(target.url, target.token, timeout=target.timeout, transport=transport) as client:
        return await handler(args, client)


def _console(args: argparse.Namespace) -> int:
    try:
        from tui.launch import run_console  # textual only when the console is asked for
    except ImportError as error:
        emit_error(f"the console is not available: {error}")
        return EXIT_FAILED
    return run_console(args.profile)


def _demo(args: argparse.Namespace) -> int:
    try:
        from tui.launch import run_demo
    except ImportError as error:
        emit_error(f"the console is not available: {error}")
        return EXIT_FAILED
    return run_demo(args.fresh, args.reports)


def _describe(args: argparse.Namespace) -> int:
    from jmapclient.cli import describe, objects_cmd
    from jmapclient.cli.render import compact_json
    from jmapclient.models.objects import OBJECT_TYPES

    if args.object is None:
        if args.json:
            out(compact_json([describe.describe_json(t) for t in OBJECT_TYPES.values()]))
        else:
            for line in describe.describe_all():
                out(line)
        return EXIT_OK
    found, _ = objects_cmd.target(args.object)
    if args.json:
        out(compact_json(describe.describe_json(found)))
    else:
        for line in describe.describe_type(found):
            out(line)
    return EXIT_OK


def _serve(argv: list[str]) -> int:
    try:
        from server_stub.serve import main as serve_main  # the stub only when asked for
    except ImportError as error:
        emit_error(f"the bundled server is not available: {error}")
        return EXIT_FAILED
    try:
        result = serve_main(argv)
    except SystemExit as exit_:  # its own argparse: --help or a usage error
        result = exit_.code
    return result if isinstance(result, int) else EXIT_OK
