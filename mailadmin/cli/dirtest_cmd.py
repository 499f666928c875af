"""``mailadmin test-directory ID-or-FILE``: the directory test (issue #29) on the command line.

The settings come from the server (an id) or from a JSON file (a directory in wire form, as
``get --json`` prints it): a file needs no server at all. The lint's findings are warnings on
standard error; the live steps (unless ``--lint-only``: then the lint's one-line verdict) go to
standard output. While they run, a person at a terminal sees which step waits on which server, on
standard error (with ``--json`` too: standard output stays the JSON alone), erased before anything
else is written. Exit 0 when no step failed and the lint found no error, 1 (a failed test) otherwise.
"""

from __future__ import annotations

import argparse
import getpass
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar

from jmapclient.display import safe_text
from jmapclient.file_safety import json_bounded
from jmapclient.outcome import EXIT_FAILED, EXIT_OK, UsageError, note, out

if TYPE_CHECKING:
    from jmapclient.client import JmapClient
    from mailadmin.cli.progress import Paused

P = ParamSpec("P")
R = TypeVar("R")

def declare(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("directory", metavar="ID-or-FILE",
                        help="a directory's id on the server, or a JSON file holding one (wire form)")
    # The connection's own --password-stdin (the --user's password) gives way here: in this command it
    # is the tested login's password, as the issue asks; the server's password then comes from
    # --password-file, MAILADMIN_PASSWORD or a prompt. A group made after the switch resolves the clash.
    parser.conflict_handler = "resolve"
    test = parser.add_argument_group("directory test")
    test.add_argument("--login", metavar="ADDRESS", help="the address to look up (LDAP, SQL)")
    test.add_argument("--password-stdin", dest="login_password_stdin", action="store_true",
                      help="read the login's password (OpenID Connect: an access token) from standard input")
    test.add_argument("--secret-file", metavar="PATH",
                      help="the directory's bind secret or database password, when the server shows only ****")
    test.add_argument("--directory-ca-file", dest="directory_ca_file", metavar="PATH",
                      help="trust this private CA (PEM) for the directory's own TLS")
    test.add_argument("--sample-hash", metavar="HASH",
                      help="check a password hash from the directory against the formats the server reads")
    test.add_argument("--allow-cleartext", action="store_true",
                      help="send passwords over an unencrypted LDAP connection (warned) without asking")
    test.add_argument("--lint-only", action="store_true", help="check the settings only; contact nothing")
    test.add_argument("--json", action="store_true", help="print the findings and steps as JSON")


def local_settings(args: argparse.Namespace) -> dict[str, Any] | None:
    """The settings from a file, or None when the argument names an id on the server."""
    path = Path(args.directory)
    if not path.is_file():
        if any(sep in args.directory for sep in ("/", "\\")) or args.directory.endswith(".json"):
            raise UsageError(f"{args.directory}: no such file")
        return None
    try:
        wire = json_bounded(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise UsageError(f"{args.directory}: not a JSON directory ({error})") from None
    if not isinstance(wire, dict) or wire.get("@type") not in ("Ldap", "Sql", "Oidc"):
        raise UsageError(f"{args.directory}: not a directory (its @type must be Ldap, Sql or Oidc)")
    # Checked as `apply` checks a directory before it sends one: read as it came, a url that is a number, a set
    # as a JSON array or a port as a string was tested without remark, and one bad value lost every default the
    # server gives an absent key ("the  column is empty", the tester's). A valid file gets them (_normalised).
    from jmapclient.models.objects import DIRECTORY
    from jmapclient.validation import refusals

    if refused := refusals(DIRECTORY, str(wire["@type"]), wire):
        said = "; ".join(f"{safe_text(path)}: {safe_text(reason)}" for path, reason in refused.items())
        raise UsageError(f"{args.directory}: not a valid directory: {said}")
    return wire


async def test_directory(args: argparse.Namespace, client: JmapClient) -> int:
    """The connected form: the settings are read from the server by id."""
    from jmapclient.failures import emit_error
    from jmapclient.models.objects import DIRECTORY

    result = await client.objects(DIRECTORY).get([args.directory])
    if not result.raw:
        emit_error(f"Directory {args.directory}: not found")
        return EXIT_FAILED
    return run(args, result.raw[0])


def run(args: argparse.Namespace, wire: dict[str, Any]) -> int:
    from jmapclient.dirtest.lint import check_sample_hash, lint_directory
    from jmapclient.dirtest.steps import Report
    from jmapclient.dirtest.words import finding_line, lint_summary, report_lines, summary

    wire = _normalised(wire)
    findings = lint_directory(wire)
    if args.sample_hash:
        sample = check_sample_hash(args.sample_hash)
        findings += [sample] if sample is not None else []
    labels = _labels(wire)
    if not args.json:
        for finding in findings:
            note(finding_line(finding, labels.get(finding.field)))
        if args.sample_hash and not any(f.field == "sample hash" for f in findings):
            note("the sample hash is in a format the server reads")
    report = Report(str(wire.get("@type")))
    if not args.lint_only:
        report = _live(args, wire)
    if args.json:
        out(json.dumps({"id": wire.get("id"), "lint": [f.as_json() for f in findings],
                        "live": None if args.lint_only else report.as_json()}, ensure_ascii=False))
    elif args.lint_only:
        out(lint_summary(findings))
    else:
        title = wire.get("description") or wire.get("id") or args.directory
        out(f"Directory test of {title} ({report.kind})")
        for line in report_lines(report):
            out(line)
        out(summary(report, findings))
    # A lint error is a setting the server is known to fail on: the test failed, live steps or not.
    lint_failed = any(f.severity == "error" for f in findings)
    return EXIT_FAILED if report.failed or lint_failed else EXIT_OK


def _normalised(wire: dict[str, Any]) -> dict[str, Any]:
    """Defaults filled in as the server would (a file may leave them out; :func:`local_settings` refuses one that
    does not validate); as given when it does not validate (an object the server holds, read as it is)."""
    from jmapclient.errors import LocalValidationError
    from jmapclient.models.objects import DIRECTORY
    from jmapclient.validation import validate_object

    try:
        return {**wire, **validate_object(DIRECTORY, wire).to_wire()}
    except LocalValidationError:
        return wire


def _labels(wire: dict[str, Any]) -> dict[str, str]:
    """Field wire names → the labels people see, from the models (declared once there)."""
    from jmapclient.models.introspect import fields_of
    from jmapclient.models.objects import DIRECTORY

    try:
        model = DIRECTORY.model_for(str(wire.get("@type")))
    except ValueError:
        return {}
    return {spec.wire: spec.label for spec in fields_of(model)}


def _asked(ask: Callable[[str], str], prompt: str) -> str:
    """What the person answered ``prompt``; a Ctrl-C there ends the prompt's line first, so the line that
    says the command was interrupted starts a line of its own, not after the prompt. Ctrl-D (the input
    ended) is the empty answer each prompt here names as its default (skip the step, or No): it was a
    traceback (the tester's)."""
    try:
        return ask(prompt)
    except KeyboardInterrupt:
        sys.stderr.write("\n")
        raise
    except EOFError:
        sys.stderr.write("\n")
        return ""


def _paused_for(paused: Paused, call: Callable[P, R]) -> Callable[P, R]:
    """``call`` with the running line erased while it runs: it asks the person, or warns, on the line's row."""
    def held(*args: P.args, **kwargs: P.kwargs) -> R:
        with paused():
            return call(*args, **kwargs)
    return held


def _live(args: argparse.Namespace, wire: dict[str, Any]) -> Any:
    from jmapclient.config import read_secret_file
    from jmapclient.connection import read_stdin_line
    from jmapclient.dirtest.inputs import LiveInput
    from jmapclient.dirtest.live import run_live
    from jmapclient.dirtest.progress import running_line
    from mailadmin.cli.progress import running_line_shown

    interactive = sys.stdin.isatty() and not args.login_password_stdin
    what = "access token" if wire.get("@type") == "Oidc" else f"password for {args.login}"
    if args.login_password_stdin:
        password: str | None = read_stdin_line(what)
    elif interactive and (args.login or wire.get("@type") == "Oidc"):
        password = _asked(getpass.getpass, f"{what} (empty: skip that step): ") or None
    else:
        password = None

    def ask_secret(prompt: str) -> str | None:
        if args.secret_file:
            return read_secret_file(args.secret_file, "directory secret", lambda line: note(f"warning: {line}"))
        if interactive:
            return _asked(getpass.getpass, f"{prompt}: ") or None
        note(f"warning: no {prompt.split(' (')[0]}: give it with --secret-file")
        return None

    def confirm_cleartext(warning: str) -> bool:
        note(f"warning: {warning}")
        if args.allow_cleartext:
            return True
        if interactive:
            return _asked(input, "send it anyway? [y/N] ").strip().lower() in ("y", "yes")
        note("warning: not sent; pass --allow-cleartext to send it anyway")
        return False

    chosen = getattr(args, "timeout", None)
    timeout = float(chosen) if chosen else None  # not chosen: each step is bounded by the directory's timeout
    source = f"read from the file {args.secret_file}" if args.secret_file else "typed in"
    ended: list[str] = []  # the steps ended so far, by name: the line says the first planned one not among them
    # The test (its prompts, its Ctrl-C) stays in this thread: getpass restores the terminal's echo only where
    # the key interrupts it, and run_live's waits already act on Ctrl-C here. Only the drawing is another thread's.
    with running_line_shown(lambda seconds: running_line(wire, ended, seconds)) as paused:
        inputs = LiveInput(login=args.login, password=password, ask_secret=_paused_for(paused, ask_secret),
                           secret_source=source, confirm_cleartext=_paused_for(paused, confirm_cleartext),
                           timeout=timeout, ca_file=args.directory_ca_file,
                           on_step=lambda step: ended.append(step.name))
        return run_live(wire, inputs)
