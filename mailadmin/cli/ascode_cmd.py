"""``snapshot`` and ``apply``: directories as code (the flows are :mod:`jmapclient.ascode`).

``snapshot Directory`` writes every directory as the server's own client writes a snapshot;
``apply FILE`` prints the plan that brings the server to the file, and runs it unless
``--dry-run``. Secrets are never printed: a value the file gives for a secret shows as ``****``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from jmapclient.ascode.ndjson import (
    LEFT_OUT_MARK,
    MAX_SNAPSHOT_FILE,
    SNAPSHOT_TYPES,
    SnapshotFile,
    SnapshotFileError,
    read_snapshot,
)
from jmapclient.ascode.plan import Plan, PlanRefused, make_plan
from jmapclient.ascode.runner import Outcome, run_plan, take_snapshot
from jmapclient.ascode.wording import all_applied, applied_line, outcome_line, plan_lines
from jmapclient.client import JmapClient
from jmapclient.config import ConfigError, write_private
from jmapclient.errors import TransportError
from jmapclient.failures import emit_error
from jmapclient.file_safety import (
    STDIO_ARG,
    NotAFile,
    NotAPath,
    local_path,
    named_output,
    read_bounded,
    read_upto,
    stored_file_problem,
)
from jmapclient.models.objects import DIRECTORY, ObjectType
from jmapclient.outcome import EXIT_FAILED, EXIT_OK, EXIT_PARTIAL, UsageError, note, out, write_stdout
from jmapclient.paging import read_all

MASKED_REFUSAL = (
    "--include-secrets: the server masks {count} secret(s) (it answers ****), so a snapshot cannot include them; "
    "leave the option out: the snapshot marks where each secret was left out, and a secret can be given in "
    'the file as {{"@type":"EnvironmentVariable","variableName":...}} or {{"@type":"File","filePath":...}}'
)


def snapshot_type(name: str) -> ObjectType:
    from mailadmin.cli.objects_cmd import target

    found, variant = target(name)
    if found not in SNAPSHOT_TYPES or variant:
        raise UsageError(f"snapshot takes {', '.join(t.name for t in SNAPSHOT_TYPES)} "
                         f"(DMARC reports are data: use export-dmarc)")
    return found


def load_file(text: str) -> SnapshotFile:
    """The file ``apply`` reads, read before any connection (a bad file is said before a password prompt)."""
    try:
        raw = _stdin_bytes() if text == STDIO_ARG else _file_bytes(text)
        if raw is None:
            raise ConfigError(f"cannot apply {text}: it is larger than {MAX_SNAPSHOT_FILE:,} bytes")
        return read_snapshot(raw.decode())
    except (NotAPath, NotAFile, SnapshotFileError) as error:
        raise ConfigError(f"cannot apply {text}: {error}") from None
    except UnicodeDecodeError:
        raise ConfigError(f"cannot apply {text}: it is not UTF-8 text") from None


def _file_bytes(text: str) -> bytes | None:
    """The named file's bytes, None past :data:`MAX_SNAPSHOT_FILE`. A FIFO or a device is refused unread (a named
    FIFO waited for ever, saying nothing); a pipe the shell hands over (``apply <(gunzip -c s.gz)``) is read."""
    path = local_path(text)
    kind = stored_file_problem(path)
    if kind:
        raise NotAFile(kind)
    return read_bounded(path, MAX_SNAPSHOT_FILE, devices=False)


def _stdin_bytes() -> bytes | None:
    """Standard input's bytes, None past :data:`MAX_SNAPSHOT_FILE`: the file is UTF-8 whatever the locale."""
    if sys.stdin is None:  # `apply - <&-`
        raise NotAFile("standard input is closed")
    return read_upto(sys.stdin.buffer, MAX_SNAPSHOT_FILE)


# --- snapshot ----------------------------------------------------------------------------------


async def snapshot(args: argparse.Namespace, client: JmapClient) -> int:
    found = snapshot_type(args.object)
    taken = await take_snapshot(client.objects(found), include_secrets=args.include_secrets)
    if taken.masked:
        emit_error(MASKED_REFUSAL.format(count=taken.masked))
        return EXIT_FAILED
    named = named_output(args.output)
    if named:
        write_private(Path(named).expanduser(), taken.text.encode(), create_parent=False)
    else:
        write_stdout(taken.text)
    where = f" to {named}" if named else ""
    note(f"wrote {taken.count} {found.label.lower()}{where}")
    if taken.left_out:
        note(f"{len(taken.left_out)} secret(s) left out (marked {LEFT_OUT_MARK}): {', '.join(taken.left_out)}")
    return EXIT_OK


# --- apply -------------------------------------------------------------------------------------


def exit_code(outcomes: list[Outcome], plan: Plan) -> int:
    """0 when everything applied; partial when some did; failed when none did and something failed."""
    if all_applied(outcomes, plan):
        return EXIT_OK
    return EXIT_PARTIAL if any(o.done for o in outcomes) else EXIT_FAILED


async def apply(args: argparse.Namespace, client: JmapClient) -> int:
    snapshot_file: SnapshotFile = args.snapshot_file
    api = client.objects(DIRECTORY)
    try:
        plan = make_plan(snapshot_file, await read_all(api), prune=args.prune)
    except PlanRefused as refused:
        raise ConfigError(f"cannot apply {args.file}: {refused}") from None
    for line in plan_lines(plan):
        out(line)
    if args.dry_run:
        note("dry run: nothing was sent")
        return exit_code([], plan)
    try:
        outcomes = await run_plan(api, plan)
    except TransportError as error:
        if error.sent:  # the changes went out and no answer came: the server may have made them
            note(f"the connection failed with the plan sent: some or all of it may be on the server; "
                 f"`mailadmin apply {args.file} --dry-run` shows what is left")
        raise
    for outcome in outcomes:
        out(outcome_line(outcome))
    note(applied_line(outcomes, plan))
    return exit_code(outcomes, plan)
