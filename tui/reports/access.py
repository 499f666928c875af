"""Which report actions the token allows, and learning from ``forbidden`` answers.

The shell's :class:`ConsoleContext` decides (profile read-only flag, permissions the
server refused so far); this module only names the JMAP action behind each report
action and feeds refusals back, including those inside a ``SetFailed``.
"""

from __future__ import annotations

from typing import Literal

from jmapclient.errors import SetFailed
from jmapclient.models.objects import DMARC_EXTERNAL_REPORT, Action
from tui.context import ConsoleContext

ReportAction = Literal["delete", "import", "keep", "list", "open"]

JMAP_ACTIONS: dict[ReportAction, Action] = {
    "list": "query",
    "open": "get",
    "delete": "destroy",
    "import": "create",
    "keep": "update",
}


def permission(action: ReportAction) -> str:
    return DMARC_EXTERNAL_REPORT.permission(JMAP_ACTIONS[action])


def allowed(context: ConsoleContext, action: ReportAction) -> tuple[bool, str]:
    return context.can_do(DMARC_EXTERNAL_REPORT, JMAP_ACTIONS[action])


def learn(context: ConsoleContext, action: ReportAction, error: Exception) -> bool:
    """Remember a ``forbidden`` answer so the action shows as disabled; True if it was one."""
    errors = list(error.failures.values()) if isinstance(error, SetFailed) else [error]
    found = False
    for item in errors:
        found = context.learn_forbidden(DMARC_EXTERNAL_REPORT, JMAP_ACTIONS[action], item) or found
    return found
