"""The object commands of ``mailadmin``: get, create, query, update, delete, describe, profile, import/export.

``main(argv) -> int`` returns the exit code: 0 ok; 1 a server, validation or network
error (``error: ...`` lines on stderr naming the field and the reason); 2 a usage
error. The ``mailadmin`` front door (the ``mailadmin`` package) parses the same command
line plus its own commands, and hands the object commands to :func:`run`.

Only argument parsing loads at import: asyncio, httpx and pydantic come with the command
that needs them, so ``--help`` and the console's start pay for none of them.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING

from jmapclient.cli.outcome import EXIT_FAILED, EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE, UsageError, note, out
from jmapclient.cli.parser import PROG, build_parser

if TYPE_CHECKING:
    import httpx

    from jmapclient.client import JmapClient

__all__ = ["LocalCommand", "main", "parse", "run"]

Command = Callable[[argparse.Namespace, "JmapClient"], Awaitable[int]]
LocalCommand = Callable[[argparse.Namespace], int]
"""A command a layer above adds (the console, ``demo``); ``None`` names the bare command line."""


def main(argv: list[str] | None = None, *, transport: httpx.AsyncBaseTransport | None = None) -> int:
    """Run one command line; ``transport`` lets tests watch or replace the HTTP exchange."""
    parser = build_parser()
    args = parse(parser, list(sys.argv[1:] if argv is None else argv))
    if isinstance(args, int):
        return args
    return run(parser, args, transport=transport)


def parse(parser: argparse.ArgumentParser, arguments: list[str]) -> argparse.Namespace | int:
    """The parsed arguments, or argparse's exit code (0 after --help, 2 after a usage error)."""
    try:
        return parser.parse_args(arguments)
    except SystemExit as exit_:
        return exit_.code if isinstance(exit_.code, int) else EXIT_USAGE


def run(
    parser: argparse.ArgumentParser,
    args: argparse.Namespace,
    *,
    transport: httpx.AsyncBaseTransport | None = None,
    local: Mapping[str | None, LocalCommand] | None = None,
) -> int:
    """Run parsed arguments; errors of any command, ``local`` ones too, end as lines and an exit code."""
    from jmapclient.cli.failures import emit_error, error_lines
    from jmapclient.config import ConfigError
    from jmapclient.errors import JmapError

    try:
        if local is not None and args.command in local:
            return local[args.command](args)
        return _dispatch(args, transport)
    except UsageError as error:
        parser.print_usage(sys.stderr)
        note(f"{PROG}: error: {error}")
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


def _connected_command(name: str) -> Command:
    from jmapclient.cli import advice_cmd, dmarc_cmd, objects_cmd

    commands: dict[str, Command] = {
        "get": objects_cmd.get,
        "create": objects_cmd.create,
        "query": objects_cmd.query,
        "update": objects_cmd.update,
        "delete": objects_cmd.delete,
        "export-dmarc": dmarc_cmd.export_records,
        "import-dmarc": dmarc_cmd.import_reports,
        "dmarc-advice": advice_cmd.dmarc_advice,
    }
    try:
        return commands[name]
    except KeyError:
        raise UsageError(f"{name} cannot follow other options; put it first: `{PROG} {name} ...`") from None


def _dispatch(args: argparse.Namespace, transport: httpx.AsyncBaseTransport | None) -> int:
    import asyncio

    command = args.command
    if command is None:
        raise UsageError("a command is required")
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
        user=getattr(args, "user", None),
        password_file=getattr(args, "password_file", None),
    )
    async with JmapClient(target.url, target.credentials, timeout=target.timeout, transport=transport) as client:
        return await handler(args, client)


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
