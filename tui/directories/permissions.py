"""What the signed-in admin may do with directories, shown on the list: disabled buttons and one line why."""

from __future__ import annotations

from textual.widget import Widget
from textual.widgets import Button, Static

from jmapclient.models.objects import DIRECTORY
from tui.context import ConsoleContext
from tui.widgets import outside

BUTTONS = (("create", "create", "#dir-new"), ("edit", "update", None), ("delete", "destroy", "#dir-delete"))
"""Each action the list offers: its word, the server's action, and the button that starts it (if any)."""


def show_permissions(view: Widget, context: ConsoleContext) -> None:
    """Disable ``view``'s buttons the server's rights refuse (each says why in its tooltip), and say every
    refusal in its ``#dir-permissions`` line, hidden when nothing is refused."""
    reasons = []
    for label, action, button in BUTTONS:
        ok, reason = context.can_do(DIRECTORY, action)  # type: ignore[arg-type]
        if button:
            view.query_one(button, Button).disabled = not ok
            view.query_one(button, Button).tooltip = reason or None
        if not ok:
            reasons.append(f"{label}: {reason}")
    text = "Disabled — " + "; ".join(reasons) if reasons else ""
    permissions = view.query_one("#dir-permissions", Static)
    permissions.update(outside.message(text))
    permissions.display = bool(text)
    view.refresh_bindings()
