"""What the login may do, known before the server refuses: ``GET /api/account`` (wire-notes.md).

The real server lists the login's permissions there (``sysDirectoryCreate`` ...). It never lists
report create or update, which it refuses to everyone as its rule, and drops what the recovery
administrator cannot do. A server without the endpoint leaves the rights unknown (None): the
client then learns from ``forbidden`` as it always did.
"""

from __future__ import annotations

from collections.abc import Iterable

from jmapclient.models.objects import DMARC_EXTERNAL_REPORT, Action, ObjectType

ACCOUNT_PATH = "/api/account"

SERVER_RULE = frozenset(DMARC_EXTERNAL_REPORT.permission(action) for action in ("create", "update"))
"""Permissions the real server never grants anyone: it refuses these writes as its rule."""


def permissions_from(answer: object) -> frozenset[str] | None:
    """The permission names of an ``/api/account`` answer; None if it holds no list of them."""
    listed = answer.get("permissions") if isinstance(answer, dict) else None
    if not isinstance(listed, list):
        return None
    return frozenset(p for p in listed if isinstance(p, str))


def by_server_rule(granted: frozenset[str], permission: str) -> bool:
    """Whether ``permission`` is missing as the server's rule rather than the login's: a report write
    the server never lists, to a login that may otherwise delete reports (a read-only login lacks
    it as it lacks every write)."""
    return permission in SERVER_RULE and DMARC_EXTERNAL_REPORT.permission("destroy") in granted


def refusal(granted: frozenset[str] | None, object_type: ObjectType, action: Action) -> str:
    """Why the login may not take ``action`` on ``object_type``, in words; "" when it may or it is not known."""
    permission = object_type.permission(action)
    if granted is None or permission in granted:
        return ""
    if by_server_rule(granted, permission):
        return "this server never lets received reports be created or changed (they arrive only by e-mail)"
    return f"this login lacks the {permission} permission (the server's account answer lists what it may do)"


SERVER_WORDS = {"create": "Reports cannot be created", "update": "External reports cannot be updated"}
"""The real server's own words for the writes it never accepts (wire-notes.md): a refusal known up
front is given in them, so every caller recognises it as it recognises the server's."""


def refusals(granted: frozenset[str] | None, needs: Iterable[tuple[ObjectType, Action]]) -> list[str]:
    """Every refusal among ``needs``, once each."""
    return list(dict.fromkeys(r for t, a in needs if (r := refusal(granted, t, a))))
