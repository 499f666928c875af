"""The test's result in lines of text, the same for the command line and the console."""

from __future__ import annotations

import decimal
from collections.abc import Iterable, Mapping
from typing import Any

from jmapclient.dirtest.lint import Finding
from jmapclient.dirtest.steps import MARKS, Report, Step
from jmapclient.display import safe_text

NAME_WIDTH = 16
"""The step names' column: the longest plan name ("recipient lookup") fits."""

CLEAN_LINT = "the settings hold none of the known mistakes"
"""What a lint with no finding says, in the console's view and on the command line."""


def kind_words(value: Any) -> str:
    """What a value read from a directory's server is, in words (a database's column, a JSON document's member),
    where it is not the kind the server reads: the value itself may be a secret, or unbounded, and is not shown."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float | decimal.Decimal):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, bytes | bytearray | memoryview):
        return "bytes"
    if isinstance(value, list | tuple):
        return "an array"
    if isinstance(value, Mapping):
        return "a JSON object"
    return f"a {safe_text(type(value).__name__)} value"


def lint_summary(findings: Iterable[Finding]) -> str:
    """The lint in one line: clean, or how many errors and warnings it found (each said on its own line)."""
    found = list(findings)
    if not found:
        return f"✓ {CLEAN_LINT}"
    errors = sum(1 for f in found if f.severity == "error")
    return f"the lint found {errors} error(s) and {len(found) - errors} warning(s)"


def finding_line(finding: Finding, label: str | None = None) -> str:
    """``lint error: Login filter: the filter has no ? ... — fix: ...`` (``label``: the field's name for people)."""
    return f"lint {finding.severity}: {label or finding.field}: {finding.message} — fix: {finding.fix}"


def step_lines(step: Step) -> list[str]:
    """The step's line, then its fix and what was seen, indented under it."""
    lines = [f"{MARKS[step.outcome]} {step.name:<{NAME_WIDTH}} {step.reason}"]
    indent = " " * (NAME_WIDTH + 3)
    if step.fix and step.outcome.value != "passed":
        lines.append(f"{indent}fix: {step.fix}")
    lines += [f"{indent}{detail}" for detail in step.details]
    return lines


def report_lines(report: Report) -> list[str]:
    lines = [*report.notes, ""]
    for step in report.steps:
        lines += step_lines(step)
    return lines


def summary(report: Report, findings: Iterable[Finding] = ()) -> str:
    errors = sum(1 for f in findings if f.severity == "error")
    failed = report.failed
    if failed:
        return f"{len(failed)} step(s) failed: {', '.join(s.name for s in failed)}"
    lint = f"; the lint found {errors} error(s)" if errors else ""
    if not report.steps:
        return f"no live step ran{lint}"
    return f"every step that ran passed{lint}"
