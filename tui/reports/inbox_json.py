"""The highlighted report's id and JSON, as the Directories' y, Y and J: copied (OSC 52) or shown.

Part of :class:`tui.reports.inbox.DmarcInbox`, split out by job (as its levels and actions were).
``J`` shows the whole report in the shared :class:`tui.screens.json_view.JsonView`.
"""

from __future__ import annotations

from textual import work
from textual.containers import Vertical

from jmapclient.errors import JmapError
from jmapclient.models.objects import DMARC_EXTERNAL_REPORT
from tui.context import ConsoleContext
from tui.directories.raw import object_json
from tui.lifecycle import while_attached
from tui.reports import fmt
from tui.reports.access import learn
from tui.reports.pager import InboxRow
from tui.screens.json_view import JsonView
from tui.widgets import outside


class InboxJson(Vertical):
    """``y``, ``Y`` and ``J`` on the list; :class:`tui.reports.inbox.DmarcInbox` gives the context and the row."""

    context: ConsoleContext

    def current_row(self) -> InboxRow | None:
        raise NotImplementedError

    def action_yank_id(self) -> None:
        row = self.current_row()
        if row is not None:
            self.app.copy_to_clipboard(row.id)
            self.notify(outside.plain(f"Copied the id {row.id}."), markup=False)

    def action_yank_json(self) -> None:
        row = self.current_row()
        if row is not None:
            self.report_json(row, copy=True)

    def action_show_json(self) -> None:
        row = self.current_row()
        if row is not None:
            self.report_json(row, copy=False)

    @work(group="dmarc-json")
    @while_attached
    async def report_json(self, row: InboxRow, *, copy: bool) -> None:
        """The whole report, as the server holds it (the list keeps only what it shows), copied or shown."""
        try:
            got = await self.context.client.dmarc_reports.get([row.id])
        except JmapError as error:
            learn(self.context, "open", error)
            self.notify(outside.plain(f"Could not read the report {row.id}: {error}"), severity="error", markup=False)
            return
        if not got.raw:
            self.notify(outside.plain(f"The report {row.id} is no longer on the server."), severity="warning",
                        markup=False)
            return
        text = object_json(got.raw[0], DMARC_EXTERNAL_REPORT)
        if copy:
            self.app.copy_to_clipboard(text)
            self.notify(outside.plain(f"Copied the report {row.id} as JSON."), markup=False)
        else:
            self.app.push_screen(JsonView(f"{row.reporter} · {row.policy_domain} · {fmt.day(row.begin)}", text))
