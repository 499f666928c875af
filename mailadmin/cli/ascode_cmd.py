"""``snapshot`` and ``apply``: directories as code (the flows are :mod:`jmapclient.ascode`).

``snapshot Directory`` writes every directory as the server's own client writes a snapshot;
``apply FILE`` prints the plan that brings the server to the file, and runs it unless
``--dry-run``. Secrets are never printed: a value the file gives for a secret shows as ``****``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from jmapclient.ascode.ndjson import SnapshotFile, SnapshotFileError, leave_out_secrets, read_snapshot, snapshot_lines
from jmapclient.ascode.plan import Action, Plan, Step, make_plan
from jmapclient.ascode.runner import Outcome, read_all, run_plan
from jmapclient.client import JmapClient
from jmapclient.config import ConfigError, write_private
from jmapclient.failures import emit_error
from jmapclient.masking import mask_text, masked_secret_paths, model_of, secret_field_names, secrets_in
from jmapclient.models.objects import DIRECTORY, ObjectType
from jmapclient.outcome import EXIT_FAILED, EXIT_OK, EXIT_PARTIAL, UsageError, note, out

SNAPSHOT_TYPES = (DIRECTORY,)
"""Configuration that a file can hold; DMARC reports are data (``export-dmarc``)."""

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
    path = Path(text).expanduser()
    try:
        return read_snapshot(sys.stdin.read() if text == "-" else path.read_text(encoding="utf-8"))
    except SnapshotFileError as error:
        raise ConfigError(f"cannot apply {text}: {error}") from None
    except UnicodeDecodeError:
        raise ConfigError(f"cannot apply {text}: it is not UTF-8 text") from None


# --- snapshot ----------------------------------------------------------------------------------


async def snapshot(args: argparse.Namespace, client: JmapClient) -> int:
    found = snapshot_type(args.object)
    objects = await read_all(client.objects(found))
    left_out: list[str] = []
    if args.include_secrets:
        masked = [path for wire in objects for path in masked_secret_paths(model_of(found, wire), wire)]
        if masked:
            emit_error(MASKED_REFUSAL.format(count=len(masked)))
            return EXIT_FAILED
        kept = objects
    else:
        kept = []
        for wire in objects:
            value, paths = leave_out_secrets(found, wire)
            kept.append(value)
            left_out += [f"{wire.get('id')}:{path}" for path in paths]
    text = "".join(f"{line}\n" for line in snapshot_lines(found, kept))
    if args.output:
        write_private(Path(args.output).expanduser(), text.encode(), create_parent=False)
    else:
        sys.stdout.write(text)
    where = f" to {args.output}" if args.output else ""
    note(f"wrote {len(objects)} {found.label.lower()}{where}")
    if left_out:
        marked = '{"@type":"Value"} with no secret'
        note(f"{len(left_out)} secret(s) left out (marked {marked}): {', '.join(left_out)}")
    return EXIT_OK


# --- apply -------------------------------------------------------------------------------------


def _shown(value: Any) -> str:
    """A patch or create value as one JSON text, with any secret the file gives masked."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return mask_text(text, secrets_in(value, secret_field_names()))


def plan_lines(plan: Plan) -> list[str]:
    lines = []
    for step in plan.steps:
        lines.append(f"{step.action.value:<9} {step.subject}")
        if step.action is Action.UPDATE:
            lines += [f"            {path} = {_shown(value)}" for path, value in step.payload.items()]
        lines += [f"            note: {text}" for text in step.notes]
    lines.append(f"plan: {plan.summary()}")
    return lines


def outcome_line(outcome: Outcome) -> str:
    step = outcome.step
    if not outcome.done:
        return f"not {_past(step.action)} {step.subject}: {outcome.detail}"
    new = f" as {outcome.detail}" if step.action is Action.CREATE and outcome.detail else ""
    return f"{_past(step.action)} {step.subject}{new}"


def _past(action: Action) -> str:
    return {Action.CREATE: "created", Action.UPDATE: "updated", Action.DESTROY: "destroyed"}[action]


def exit_code(outcomes: list[Outcome], blocked: list[Step]) -> int:
    """0 when everything applied; partial when some did; failed when none did and something failed."""
    failed = len(blocked) + sum(1 for o in outcomes if not o.done)
    if not failed:
        return EXIT_OK
    return EXIT_PARTIAL if any(o.done for o in outcomes) else EXIT_FAILED


async def apply(args: argparse.Namespace, client: JmapClient) -> int:
    snapshot_file: SnapshotFile = args.snapshot_file
    for item in snapshot_file.objects:
        snapshot_type(item.type.name)
    api = client.objects(DIRECTORY)
    plan = make_plan(snapshot_file, await read_all(api), prune=args.prune)
    for line in plan_lines(plan):
        out(line)
    if args.dry_run:
        note("dry run: nothing was sent")
        return exit_code([], plan.blocked)
    outcomes = await run_plan(api, plan)
    for outcome in outcomes:
        out(outcome_line(outcome))
    done = sum(1 for o in outcomes if o.done)
    alone = f"; {len(plan.blocked)} left alone" if plan.blocked else ""
    note(f"applied {done} of {len(outcomes)} changes{alone}")
    return exit_code(outcomes, plan.blocked)
