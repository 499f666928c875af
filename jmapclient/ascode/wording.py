"""The plan and its outcomes in words: the CLI prints these lines, the console shows them.

A value the file gives for a secret is never shown: it reads ``****``.
"""

from __future__ import annotations

import json
from typing import Any

from jmapclient.ascode.plan import Action, Plan
from jmapclient.ascode.runner import Outcome
from jmapclient.display import LIST_MAX, safe_text
from jmapclient.masking import mask_text, secret_field_names, secrets_in

INDENT = " " * 12


def shown(value: Any, path: str | None = None) -> str:
    """A patch value as one JSON text, with any secret the file gives masked; ``path`` is the patch's
    key for it: ``bindSecret/secret`` names a secret whose value is a bare string."""
    text = mask_text(json.dumps(value, ensure_ascii=False, separators=(",", ":")),
                     secrets_in(value if path is None else {path: value}, secret_field_names()))
    # One line a value: hidden characters escaped, and cut (a 5 MB description was printed whole).
    shown = safe_text(text, max_len=LIST_MAX)
    return shown if len(shown) == len(text) else f"{shown} ({len(text):,} characters in all)"


def plan_lines(plan: Plan) -> list[str]:
    """One line per step (its action and object), its patch field by field, its notes; then the counts."""
    lines = []
    for step in plan.steps:
        lines.append(f"{step.action.value:<9} {step.subject}")
        if step.action is Action.UPDATE:
            lines += [f"{INDENT}{path} = {shown(value, path)}" for path, value in step.payload.items()]
        lines += [f"{INDENT}note: {text}" for text in step.notes]
    lines.append(f"plan: {plan.summary()}")
    return lines


PAST = {Action.CREATE: "created", Action.UPDATE: "updated", Action.DESTROY: "destroyed"}


def outcome_line(outcome: Outcome) -> str:
    step = outcome.step
    if not outcome.done:
        return f"not {PAST[step.action]} {step.subject}: {outcome.detail}"
    new = f" as {outcome.detail}" if step.action is Action.CREATE and outcome.detail else ""
    return f"{PAST[step.action]} {step.subject}{new}"


def applied_line(outcomes: list[Outcome], plan: Plan) -> str:
    done = sum(1 for o in outcomes if o.done)
    alone = f"; {len(plan.blocked)} left alone" if plan.blocked else ""
    return f"applied {done} of {len(outcomes)} change{'' if len(outcomes) == 1 else 's'}{alone}"


def all_applied(outcomes: list[Outcome], plan: Plan) -> bool:
    return not plan.blocked and all(o.done for o in outcomes)
