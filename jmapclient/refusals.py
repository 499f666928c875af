"""The real server's refusal to write received reports, recognised in one place.

The real server never creates or updates DmarcExternalReport objects: each create gets
the SetError ``forbidden`` "Reports cannot be created", each update "External reports
cannot be updated" (wire-notes.md). That is the server's rule, not a missing
permission, so callers say so instead of asking for a token with more rights.
"""

from __future__ import annotations

from collections.abc import Iterable

from jmapclient.errors import SetError


def is_write_refusal(error: SetError) -> bool:
    """True when the server refuses this kind of write as such, whatever the object."""
    return error.write_refused


def write_refusal(errors: Iterable[SetError]) -> str | None:
    """The server's words of the first refusal among ``errors``; None when none is one."""
    return next((e.description for e in errors if e.description and is_write_refusal(e)), None)
