"""Errors → ``error: ...`` lines on stderr, one per field or per failed object.

Messages come from :mod:`jmapclient.errors`; nothing here prints a value the person
typed, a token, or a traceback.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from jmapclient.errors import LocalValidationError, SetError, SetFailed
from jmapclient.outcome import note

ERROR_PREFIX = "error: "


def emit_error(line: str) -> None:
    note(f"{ERROR_PREFIX}{line}")


def emit_notes(notes: Iterable[str]) -> None:
    """One ``note:`` line each on stderr, so piped output stays data: the server could not
    filter or sort exactly as asked, and what the client did about it."""
    for text in notes:
        note(f"note: {text}")


def set_error_lines(error: SetError, subject: str = "") -> list[str]:
    """One line per field the server named, or one line with the error's message."""
    lead = f"{subject}: " if subject else ""
    fields = error.field_messages()
    if fields:
        # Some servers repeat the path in the description; say it once.
        return [f"{lead}{path}: {reason.removeprefix(f'{path}: ')}" for path, reason in fields.items()]
    return [f"{lead}{error.message}"]


def set_failures_lines(failures: Mapping[str, SetError], single: bool = False) -> list[str]:
    """Lines for every failed object; ``single`` leaves out the creation key of a lone create."""
    lines: list[str] = []
    for key, error in failures.items():
        lines += set_error_lines(error, "" if single else key)
    return lines


REFUSAL_HINT = "import the reports into a server that accepts their creation, such as `mailadmin serve`"
"""What to do, said after the server's refusal (whose words already say it never creates reports): not the
refusal again in other words."""


def error_lines(error: BaseException) -> list[str]:
    if isinstance(error, LocalValidationError):
        return [f"{path}: {reason}" for path, reason in error.fields.items()]
    if isinstance(error, SetFailed):
        return set_failures_lines(error.failures, single=list(error.failures) == ["new"])
    return [str(error) or type(error).__name__]
