"""The argparse definition of the object commands: every subcommand and flag, in one place.

The ``mailadmin`` front door adds its own commands (the console's flags, ``demo``, ``serve``)
through :class:`CommandLine`, so that ``mailadmin --help`` lists them all.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from typing import Any

from jmapclient.dmarc.retention import DEFAULT_RETENTION
from jmapclient.outcome import EXIT_CODES

DEFAULT_ADVICE_DAYS = 30

PROG = "mailadmin"
EPILOG = (
    "Object names are case-insensitive, with or without x: (Directory, DmarcExternalReport). "
    "Connection: flags > --profile > MAILADMIN_URL/MAILADMIN_TOKEN > the default profile. "
    "Exit codes: " + "; ".join(f"{code} {words}" for code, words in EXIT_CODES) + "."
)


MAX_TIMEOUT = 3600.0
"""The longest wait for one request: an hour. Past it a server is down, not slow; and sockets refuse a
wait beyond the platform's time_t (``inf`` was an OverflowError traceback)."""


def timeout_seconds(text: str) -> float:
    """``--timeout``: a number of seconds above 0, at most :data:`MAX_TIMEOUT`; anything else is a usage error
    (``nan`` was a ValueError traceback, ``-1`` and ``0`` failed every request with "did not answer")."""
    try:
        seconds = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not 0 < seconds <= MAX_TIMEOUT:  # NaN fails every comparison, so it lands here too
        raise argparse.ArgumentTypeError(f"give seconds above 0 and at most {MAX_TIMEOUT:g}, not {text!r}")
    return seconds


def _connection_options(parser: argparse.ArgumentParser, *, top: bool) -> None:
    # Sub-parsers use SUPPRESS so a flag given before the subcommand is not reset after it.
    default = None if top else argparse.SUPPRESS
    group = parser.add_argument_group("connection")
    group.add_argument("--url", default=default, help="server base URL (env MAILADMIN_URL)")
    group.add_argument("--token", default=default,
                       help="bearer token (visible in ps: prefer --token-file, --token-stdin or env MAILADMIN_TOKEN)")
    group.add_argument("--token-file", default=default, metavar="PATH", help="read the token from this file")
    group.add_argument("--token-stdin", action="store_true", default=default,
                       help="read the token from the first line of standard input")
    group.add_argument(
        "--user", default=default, metavar="NAME",
        help="log in with a user name and password (Basic) instead of a token (env MAILADMIN_USER)",
    )
    group.add_argument(
        "--password-file", default=default, metavar="PATH",
        help="the --user's password (else env MAILADMIN_PASSWORD, else a prompt at a terminal)",
    )
    group.add_argument("--password-stdin", action="store_true", default=default,
                       help="read the --user's password from the first line of standard input")
    group.add_argument("--ca-file", default=default, metavar="PATH",
                       help="trust this private CA (PEM) on top of the system store (env MAILADMIN_CA_FILE)")
    group.add_argument("-k", "--insecure", action="store_true", default=default,
                       help="do not verify the server's TLS certificate (lab servers; warned on every connection)")
    group.add_argument("--allow-http", action="store_true", default=default,
                       help="allow cleartext http to a host that is not loopback (warned)")
    group.add_argument("--profile", default=default, metavar="NAME",
                       help="a profile of the config file (beats MAILADMIN_URL, MAILADMIN_TOKEN, MAILADMIN_USER)")
    group.add_argument("--timeout", default=default, type=timeout_seconds, metavar="SECONDS",
                       help=f"per request, above 0 and at most {MAX_TIMEOUT:g} (default 30)")


def _json_option(parser: argparse.ArgumentParser, help_text: str) -> None:
    parser.add_argument("--json", action="store_true", help=help_text)


def _field_option(parser: argparse.ArgumentParser, metavar: str, help_text: str) -> None:
    parser.add_argument("--field", action="append", default=[], metavar=metavar, help=f"repeatable; {help_text}")


def _where_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--where", action="append", default=[], metavar="COND=VALUE",
        help="filter condition; also >, >=, <, <= on integer and date conditions (repeat to AND); "
             "DMARC totalFailedSessions / totalSuccessfulSessions count records not marked pass / "
             "records marked pass, one per record, not messages (see describe)",
    )


Declare = Callable[[argparse.ArgumentParser], None]
"""Adds a subcommand's own arguments to its parser."""


class _Subcommand(argparse.ArgumentParser):
    """A subcommand's parser whose arguments are declared when it is first used: to parse, or
    for its usage or help.

    A command line names one subcommand; declaring the arguments of all of them (about 150
    ``add_argument`` calls, each building a help formatter) was work for the others, about a
    twentieth of ``--help`` and a hundredth of a query.
    """

    declare: Declare | None = None

    def _declared(self) -> None:
        declare, self.declare = self.declare, None
        if declare is not None:
            declare(self)

    def parse_known_args(  # type: ignore[override]  # the one signature behind argparse's overloads
        self, args: Sequence[str] | None = None, namespace: Any = None
    ) -> tuple[Any, list[str]]:
        self._declared()
        return super().parse_known_args(args, namespace)

    def format_usage(self) -> str:
        self._declared()
        return super().format_usage()

    def format_help(self) -> str:
        self._declared()
        return super().format_help()


class CommandLine:
    """The top-level parser and its subcommands; a layer above may add commands of its own."""

    def __init__(self, epilog: str = EPILOG) -> None:
        self.parser = argparse.ArgumentParser(prog=PROG, description="Administer a JMAP mail server.", epilog=epilog)
        self.parser.add_argument("--version", action="store_true",
                                 help="print the version of mailadmin and Python (with -v, the server's too) and exit")
        self.parser.add_argument("-v", "--verbose", action="store_true",
                                 help="with --version: connect and show the server's version")
        _connection_options(self.parser, top=True)
        self._commands = self.parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Subcommand)

    def command(
        self, name: str, help_text: str, *, connects: bool = True, declare: Declare | None = None
    ) -> argparse.ArgumentParser:
        """The subcommand's parser; with ``declare``, its arguments are added on its first use,
        else the caller adds them now."""
        sub = self._commands.add_parser(name, help=help_text, description=help_text)

        def declare_all(parser: argparse.ArgumentParser) -> None:
            if connects:
                _connection_options(parser, top=False)
            if declare is not None:
                declare(parser)

        if declare is None:
            declare_all(sub)
        else:
            sub.declare = declare_all
        return sub

    def passthrough(self, name: str, help_text: str) -> None:
        """A command whose arguments another parser reads: listed here, parsed there."""
        self._commands.add_parser(name, help=help_text, add_help=False)


def build_parser() -> argparse.ArgumentParser:
    """The object commands alone (``python -m jmapclient``)."""
    return object_commands().parser


def object_commands(epilog: str = EPILOG) -> CommandLine:
    line = CommandLine(epilog)
    for name, help_text, connects, declare in _OBJECT_COMMANDS:
        line.command(name, help_text, connects=connects, declare=declare)
    return line


def _get(get: argparse.ArgumentParser) -> None:
    get.add_argument("object", metavar="OBJECT")
    get.add_argument("id")
    _json_option(get, "print the object as compact JSON")


def _create(create: argparse.ArgumentParser) -> None:
    create.add_argument("object", metavar="OBJECT[/VARIANT]")
    _field_option(create, "NAME=VALUE", "objects, lists and variants are JSON, durations take 30s, sets a,b")
    _json_option(create, 'print {"id": ...} instead of the bare id')


def _query(query: argparse.ArgumentParser) -> None:
    query.add_argument("object", metavar="OBJECT")
    _where_option(query)
    query.add_argument("--fields", metavar="A,B", help="columns (wire names; nested as report/orgName)")
    query.add_argument("--sort", metavar="PROP[:asc|desc]", help="sort property")
    query.add_argument("--ids-only", action="store_true", help="print only ids, one per line")
    _json_option(query, "print NDJSON, one object per line")


def _update(update: argparse.ArgumentParser) -> None:
    update.add_argument("object", metavar="OBJECT[/VARIANT]")
    update.add_argument("id")
    _field_option(update, "KEY=VALUE", "a field or JSON-pointer path (attrEmail/mail=true, report/records/0/count=5; "
                  "in a path ~1 stands for / and ~0 for ~); null clears")
    _json_option(update, "print the result as JSON")


def _delete(delete: argparse.ArgumentParser) -> None:
    delete.add_argument("object", metavar="OBJECT")
    delete.add_argument("id", nargs="*", metavar="ID", help="ids to delete")
    # One or more after it: "--ids d1 d2 d3" was a usage error (argparse had already given the plain ids
    # their empty turn), though the help says ids may come as plain arguments (the tester's).
    delete.add_argument("--ids", action="extend", nargs="+", default=[], metavar="ID[,ID...]",
                        help="ids, comma- or space-separated (repeatable; also as plain arguments)")
    _json_option(delete, "print the result as JSON")


def _describe(describe: argparse.ArgumentParser) -> None:
    describe.add_argument("object", nargs="?", metavar="OBJECT")
    _json_option(describe, "print the description as JSON")


def _profile(profile: argparse.ArgumentParser) -> None:
    actions = profile.add_subparsers(dest="profile_command", metavar="ACTION", required=True)
    add = actions.add_parser("add", help="add or replace a profile")
    add.add_argument("name")
    add.add_argument("--url", dest="profile_url", required=True, help="server base URL")
    tokens = add.add_mutually_exclusive_group()
    tokens.add_argument("--token", dest="profile_token", help="store this token in the config file")
    tokens.add_argument("--token-file", dest="profile_token_file", metavar="PATH", help="read the token from PATH")
    tokens.add_argument("--token-stdin", action="store_true", help="read the token from standard input")
    tokens.add_argument("--user", dest="profile_user", metavar="NAME", help="log in as this user (Basic)")
    add.add_argument("--password-file", dest="profile_password_file", metavar="PATH",
                     help="with --user: the file holding the password")
    add.add_argument("--read-only", action="store_true", help="refuse changes with this profile (console and CLI)")
    add.add_argument("--ca-file", dest="profile_ca_file", metavar="PATH", help="trust this private CA (PEM)")
    add.add_argument("-k", "--insecure", dest="profile_insecure", action="store_true",
                     help="do not verify the server's TLS certificate (warned on every connection)")
    add.add_argument("--allow-http", dest="profile_allow_http", action="store_true",
                     help="allow cleartext http to a host that is not loopback (warned)")
    add.add_argument("--default", action="store_true", help="make it the default profile")
    listing = actions.add_parser("list", help="list profiles (never their tokens)")
    _json_option(listing, "print the profiles as JSON")
    remove = actions.add_parser("remove", help="remove a profile (removing the default leaves none)")
    remove.add_argument("name")
    default = actions.add_parser("default", help="make a profile the default: the one used without --profile")
    default.add_argument("name")


def _import_dmarc(imports: argparse.ArgumentParser) -> None:
    imports.add_argument("paths", nargs="+", metavar="PATH")
    imports.add_argument(
        "--retain", default=f"{DEFAULT_RETENTION.days}d", metavar="DURATION",
        help=f"expiresAt = receivedAt + this (default {DEFAULT_RETENTION.days}d)",
    )
    imports.add_argument("--dry-run", action="store_true", help="parse and summarise; send nothing")


def _export_dmarc(export: argparse.ArgumentParser) -> None:
    _where_option(export)
    export.add_argument("--format", choices=("csv", "json"), default=None,
                        help="default: the -o file's extension (.json, .csv), else csv. A CSV cell shows hidden "
                             "characters as JSON escapes (a line break as \\n) and a backslash as \\\\; "
                             "one starting =, +, -, @ is prefixed with '")
    export.add_argument("-o", "--output", metavar="FILE",
                        help="write here instead of standard output (- is standard output)")


def _dmarc_advice(advice: argparse.ArgumentParser) -> None:
    advice.add_argument("--domain", metavar="DOMAIN", help="this policy domain only")
    advice.add_argument("--days", type=int, default=DEFAULT_ADVICE_DAYS, metavar="N",
                        help="the last N days, today included (default %(default)s)")
    advice.add_argument("--offline", action="store_true",
                        help="no DNS lookups (sources named only by domains that authenticated them)")
    advice.add_argument("--add-sender", action="append", default=[], metavar="DOMAIN",
                        help="a shared provider (amazonses.com) that sends for your domains: its mail then counts as "
                             "authorised (kept in the config's [dmarc] senders)")
    advice.add_argument("--remove-sender", action="append", default=[], metavar="DOMAIN",
                        help="take a provider off that list")
    advice.add_argument("--check", action="store_true",
                        help="for cron: print only what needs attention (a new failing source, an authorised source "
                             "failing, a failing source that grew tenfold, a verdict that moved back) and exit 6 "
                             "when there is any, else 0 silently; "
                             "new means since the previous run unless every report before the period is cached")
    advice.add_argument("--since-last", action="store_true",
                        help="a source is new when the previous run (kept per server) did not see it")
    _json_option(advice, "print one JSON object per line per policy domain (with --check: per finding)")


def _snapshot(snapshot: argparse.ArgumentParser) -> None:
    snapshot.add_argument("object", metavar="OBJECT", help="Directory")
    snapshot.add_argument("-o", "--output", metavar="FILE",
                          help="write here (0600) instead of standard output (- is standard output)")
    snapshot.add_argument("--include-secrets", action="store_true",
                          help="keep Value secrets (refused while the server masks them, as it always does)")


def _apply(apply: argparse.ArgumentParser) -> None:
    apply.add_argument("file", metavar="FILE", help="a snapshot (this tool's or the server CLI's); - reads stdin")
    apply.add_argument("--dry-run", action="store_true", help="print the plan; change nothing")
    apply.add_argument("--prune", action="store_true",
                       help="destroy what the file does not hold, when its destroy line says it holds them all "
                            "(never an object still in use)")


def _test_directory(parser: argparse.ArgumentParser) -> None:
    from mailadmin.cli.dirtest_cmd import declare  # argparse only: the test itself loads when it runs

    declare(parser)


_OBJECT_COMMANDS: tuple[tuple[str, str, bool, Declare], ...] = (
    ("get", "show one object", True, _get),
    ("create", "create an object; OBJECT/VARIANT picks a variant (Directory/Ldap)", True, _create),
    ("query", "list objects, paging through all results", True, _query),
    ("update", "change fields of an object", True, _update),
    ("delete", "delete objects", True, _delete),
    ("describe", "objects, variants, fields, types, defaults, bounds and filters", False, _describe),
    ("profile", "manage connection profiles", False, _profile),
    ("import-dmarc", "import DMARC aggregate reports (xml, gz, zip, eml, or folders)", True, _import_dmarc),
    ("export-dmarc", "export DMARC report records, one row per record", True, _export_dmarc),
    ("dmarc-advice", "who sends as each policy domain, and whether the next DMARC policy step is safe", True,
     _dmarc_advice),
    ("test-directory", "test a directory: lint its settings, then check them live against its LDAP, SQL or "
     "OpenID server from this machine", True, _test_directory),
    ("snapshot", "write every directory as NDJSON (the server CLI's snapshot format), secrets left out", True,
     _snapshot),
    ("apply", "bring the server to a snapshot file: plan, then create / update / (with --prune) destroy", True,
     _apply),
)
"""Each object command: name, help, whether it connects to a server, and its own arguments."""
