"""What the inbox does to reports: delete, import, export and keep longer, and whether it may.

Each action runs in a worker group of its own, so one never cancels another: an export
started during an import leaves the import running to its summary. Pressing an action's
key while that same action still runs is refused in words rather than cancelling it.
"""

from __future__ import annotations

from datetime import datetime

from rich.text import Text
from textual import work
from textual.containers import Vertical
from textual.widgets import ProgressBar, Static

from jmapclient.counted import counted
from jmapclient.display import domain_text, name_text
from jmapclient.dmarc.exporting import export_reports
from jmapclient.dmarc.importing import import_reports
from jmapclient.encoding import normalise_utc, parse_utc
from jmapclient.errors import JmapError, LocalValidationError, SetFailed, not_found
from jmapclient.failures import error_lines
from jmapclient.models.dmarc import DmarcExternalReport
from jmapclient.patch import compute_patch
from jmapclient.refusals import write_refusal
from tui.context import ConsoleContext
from tui.keyboard import done_loading, in_background
from tui.lifecycle import while_attached
from tui.reports import fmt
from tui.reports.access import ReportAction, allowed, learn, permission
from tui.reports.cache import DigestCache
from tui.reports.detail import ReportGone, label
from tui.reports.dialogs import ExportChoice, ExportDialog, ImportDialog, KeepChoice, KeepDialog
from tui.reports.inbox_state import InboxState
from tui.reports.inbox_table import InboxTable
from tui.reports.pager import InboxRow
from tui.screens.confirm import ConfirmScreen
from tui.screens.form_dialog import MessageDialog
from tui.widgets import outside

IMPORT_FILE_CAP = 10_000
EXPORT_CAP = 20_000
"""Bounds an export's memory and time; the summary says when it was reached."""

ACTION_NAMES: dict[str, ReportAction] = {
    "delete": "delete", "import_files": "import", "keep": "keep",
}
"""The key actions that need a permission, by the permission's action."""
WORKER_GROUPS = {"delete": "dmarc-delete", "import": in_background("dmarc-import"),
                 "export": in_background("dmarc-export"), "keep": "dmarc-keep"}
"""Import and export show their progress and run on while the person works on (keys are not held for them)."""
TITLES = {"delete": "Delete", "import": "Import", "export": "Export", "keep": "Keep longer"}


def listed(titles: list[str]) -> str:
    """``Import``, ``Import and Keep longer``, ``Delete, Import and Keep longer``."""
    return titles[0] if len(titles) == 1 else f"{', '.join(titles[:-1])} and {titles[-1]}"


def _named(shown: str, missing: str) -> Text:
    """An outside name on one line, in bold; ``(missing)`` in plain words when the report left it empty."""
    return outside.cut(shown, "bold") if shown.strip() else Text(f"({missing})")


class InboxActions(Vertical):
    """The inbox's actions; :class:`tui.reports.inbox.DmarcInbox` is built on them.

    It provides the context, the list state, the digest cache, the highlighted row and
    :meth:`list_changed`; the actions provide their keys' work, their progress bars (ids
    ``dmarc-progress`` for import, ``dmarc-export-progress`` for export) and the
    ``dmarc-denied`` line naming what the token may not do.
    """

    context: ConsoleContext
    state: InboxState
    digests: DigestCache
    updates_refused: str | None = None
    """The server's own refusal of report updates (the real server refuses them all)."""

    def current_row(self) -> InboxRow | None:
        raise NotImplementedError

    def list_changed(self, cursor: str | int = "first") -> None:
        """Reports were added, removed or changed: fetch the page on screen again."""
        raise NotImplementedError

    # --- Permissions and progress ---------------------------------------------------------------

    def permitted(self, action: ReportAction) -> bool:
        ok, reason = allowed(self.context, action)
        if action == "keep" and self.updates_refused:
            ok, reason = False, self.updates_refused
        if not ok:
            self.app.notify(f"Not available: {reason}", severity="warning")
        return ok

    def idle(self, action: str) -> bool:
        """True unless ``action`` still runs; then say so (starting it again would cancel nothing, and wait)."""
        group = WORKER_GROUPS[action]
        if any(worker.group == group and worker.node is self and not worker.is_finished for worker in self.workers):
            self.app.notify(f"{TITLES[action]} is still running; wait for it to finish.", severity="warning")
            return False
        return True

    def action_allowed(self, action: str) -> bool:
        """For ``check_action``: False when the login may not (known up front from the account's rights,
        the profile, or a refusal): the action is not offered in the footer or the palette, and the
        ``dmarc-denied`` line says why, rather than the key failing after the fact."""
        name = ACTION_NAMES.get(action)
        if name is None:
            return True
        if name == "keep" and self.updates_refused:
            return False
        return allowed(self.context, name)[0]

    def show_permissions(self) -> None:
        # Actions refused for the same reason share one line: at 80×24 the real server's rule (no
        # import, no keep longer) took six of the list's rows, saying the same twice.
        titles_by_reason: dict[str, list[str]] = {}
        for action, title in (("delete", "Delete"), ("import", "Import"), ("keep", "Keep longer")):
            ok, reason = allowed(self.context, action)  # type: ignore[arg-type]
            if action == "keep" and ok and self.updates_refused:
                ok, reason = False, self.updates_refused
            if not ok:
                titles_by_reason.setdefault(reason, []).append(title)
        lines = [f"{listed(titles)} unavailable: {reason}" for reason, titles in titles_by_reason.items()]
        denied = self.query_one("#dmarc-denied", Static)
        denied.update(outside.message("\n".join(lines)))
        denied.display = bool(lines)
        self.refresh_bindings()

    def report_failure(self, action: ReportAction, what: str, error: Exception) -> None:
        """One short message for the failure: its first line, and how many more there are (a report
        refused for each of its N records used to fill the screen with one message N lines long)."""
        lines = error_lines(error) or [type(error).__name__]
        said = lines[0] + (f" (and {len(lines) - 1} more problems)" if len(lines) > 1 else "")
        if learn(self.context, action, error):
            self.show_permissions()
            self.app.notify(f"{what}: the token lacks {permission(action)} ({said})", severity="error", timeout=10)
        else:
            self.app.notify(f"{what}: {said}", severity="error", timeout=10)

    # --- Delete -------------------------------------------------------------------------------

    def action_delete(self) -> None:
        if not self.permitted("delete") or not self.idle("delete"):
            return
        marked = self.state.marked
        ids = sorted(marked) if marked else [r.id for r in [self.current_row()] if r is not None]
        if not ids:
            return
        if len(ids) == 1 and (row := self.state.row(ids[0])) is not None:
            # The names are the reporter's own words: one line each, shown literally, never markup. The real
            # server stores "" for a name a report left out, and the question named nothing (tester102): the
            # id says which report, and words stand for a missing name.
            question = Text.assemble(
                "Delete the report ", outside.cut(row.id, "bold"), " from ",
                _named(name_text(row.reporter), "no reporter named"), " for ",
                _named(domain_text(row.policy_domain), "no policy domain"),
                f" ({fmt.period(row.begin, row.end)})?\n\n", ("This cannot be undone.", "bold"),
            )
        else:
            question = Text.assemble(f"Delete {len(ids)} marked reports?\n\n", ("This cannot be undone.", "bold"))

        def answered(yes: bool | None) -> None:
            if yes:
                self.delete_reports(ids)

        self.app.push_screen(ConfirmScreen(question, yes="Delete", no="Keep"), answered)

    @work(group=WORKER_GROUPS["delete"])
    @while_attached
    async def delete_reports(self, ids: list[str]) -> None:
        table = self.query_one(InboxTable)
        table.loading = True
        try:
            result = await self.context.client.dmarc_reports.destroy(ids)
        except JmapError as error:
            done_loading(table)
            self.report_failure("delete", "Could not delete", error)
            return
        done_loading(table)
        # One the server no longer has was deleted elsewhere: gone all the same, its mark too (it stayed
        # marked, and the next d offered to delete it again, the tester's).
        gone = [key for key, failure in result.not_destroyed.items() if not_found(failure)]
        self.digests.discard([*result.destroyed, *gone])
        self.state.marked.difference_update([*result.destroyed, *gone])
        if result.not_destroyed:
            reasons = "; ".join(f"{i}: {e.message}" for i, e in result.not_destroyed.items())
            self.app.notify(f"Deleted {len(result.destroyed)}, not deleted {len(result.not_destroyed)}: {reasons}",
                            severity="warning", timeout=8)
        else:
            self.app.notify(f"Deleted {counted(len(result.destroyed), 'report')}.")
        self.list_changed()

    # --- Import -------------------------------------------------------------------------------

    def action_import_files(self) -> None:
        if not self.permitted("import") or not self.idle("import"):
            return

        def chosen(paths: list[str] | None) -> None:
            if paths:
                self.import_reports(paths)

        self.app.push_screen(ImportDialog(), chosen)

    @work(group=WORKER_GROUPS["import"])
    @while_attached
    async def import_reports(self, paths: list[str]) -> None:
        progress = self.query_one("#dmarc-progress", ProgressBar)
        progress.update(total=None, progress=0)
        progress.display = True
        try:
            # The flow of `mailadmin import-dmarc`: the server's limits, and the reports it
            # already holds, count as duplicates.
            outcome = await import_reports(
                self.context.client.dmarc_reports, paths, now=self.context.now(), file_cap=IMPORT_FILE_CAP,
                progress=lambda done, total: progress.update(total=total, progress=done),
            )
        except JmapError as error:
            learn(self.context, "import", error)
            self.show_permissions()
            self.app.push_screen(MessageDialog("Import stopped", [f"Stopped: {error}"]))
            return
        finally:
            progress.display = False  # whatever ended it: a failed import left its bar up for good
        if outcome.error is not None:
            learn(self.context, "import", outcome.error)
            self.show_permissions()
        lines = outcome.lines()
        if outcome.capped:
            lines.insert(0, f"Only the first {IMPORT_FILE_CAP:,} files were read; import the rest separately.")
        if outcome.refused:
            lines.insert(0, f"Stopped: {outcome.refused}")
        self.app.push_screen(MessageDialog("Import stopped" if outcome.refused else "Import finished", lines))
        self.list_changed()

    # --- Export -------------------------------------------------------------------------------

    def action_export(self) -> None:
        if not self.idle("export"):
            return
        total = self.state.pager.total
        scope = (f"Exports the {total:,} reports the current filter shows" if total is not None
                 else "Exports the reports the current filter shows")
        scope += f" (at most {EXPORT_CAP:,}), one row per record."

        def chosen(choice: ExportChoice | None) -> None:
            if choice is not None:
                self.export_reports(choice)

        self.app.push_screen(ExportDialog("dmarc-reports.csv", scope), chosen)

    @work(group=WORKER_GROUPS["export"])
    @while_attached
    async def export_reports(self, choice: ExportChoice) -> None:
        progress = self.query_one("#dmarc-export-progress", ProgressBar)
        progress.update(total=None, progress=0)
        progress.display = True
        query = self.state.query
        try:
            # The flow of `mailadmin export-dmarc`: the file is created 0600, written page by page.
            fetched = await export_reports(
                self.context.client.dmarc_reports, query.filter(), query.sort_spec(), choice.format,
                path=choice.target, cap=EXPORT_CAP,
                progress=lambda done, expected: progress.update(total=expected, progress=done),
            )
            count = fetched.rows
        except (JmapError, OSError) as error:
            self.app.notify(f"Export failed: {error}", severity="error", timeout=10)
            return
        finally:
            progress.display = False  # whatever ended it: a bar left up said it was still running
        note = f" (stopped at {EXPORT_CAP:,} reports)" if fetched.capped else ""
        # Named in full: "to dmarc-reports.csv" left an admin over SSH guessing the console's folder.
        self.app.notify(f"Exported {fetched.report_count:,} reports, {count:,} records, to "
                        f"{choice.target.absolute()}{note}.", timeout=8)
        if fetched.notes:  # the server could not filter as asked, or sent reports that cannot be read
            self.app.notify("\n".join(fetched.notes), title="Export", severity="warning", timeout=15)

    # --- Keep longer --------------------------------------------------------------------------

    def action_keep(self) -> None:
        if not self.permitted("keep") or not self.idle("keep"):
            return
        row = self.current_row()
        if row is None:
            return
        has_tenants = any(r.tenant for r in self.state.rows)
        tenant_label = label(DmarcExternalReport, "memberTenantId") if has_tenants else None
        dialog = KeepDialog(
            Text.assemble(outside.cut(name_text(row.reporter)), " · ",
                          outside.cut(domain_text(row.policy_domain)), " · ", fmt.period(row.begin, row.end)),
            fmt.day(row.expires), label(DmarcExternalReport, "expiresAt"), row.tenant, tenant_label,
            check_expiry=lambda text: _expiry(text, row.expires, self.context.now()),
        )

        def chosen(choice: KeepChoice | None) -> None:
            if choice is None:
                return
            if not _shortens(choice.expires, row.expires):
                self.keep_report(row, choice)
                return
            # An earlier date shortens the retention: the opposite of what the key is named for.
            question = Text.assemble(
                f"{fmt.when(choice.expires)} is earlier than the report's current expiry, "
                f"{fmt.when(row.expires)}.\n\n", ("The server would delete it sooner.", "bold"),
            )

            def shorten(yes: bool | None) -> None:
                if yes:
                    self.keep_report(row, choice)

            self.app.push_screen(ConfirmScreen(question, yes="Shorten", no="Cancel"), shorten)

        self.app.push_screen(dialog, chosen)

    @work(group=WORKER_GROUPS["keep"])
    @while_attached
    async def keep_report(self, row: InboxRow, choice: KeepChoice) -> None:
        expires = choice.expires  # checked by the dialog (_expiry)
        before = {"expiresAt": row.expires, "memberTenantId": row.tenant}
        after = {"expiresAt": expires, "memberTenantId": choice.tenant}
        try:
            patch = compute_patch(before, after)
        except LocalValidationError as error:
            self.app.notify(str(error), severity="error")
            return
        if not patch:
            self.app.notify("Nothing changed.")
            return
        try:
            await self.context.client.dmarc_reports.update(row.id, patch)
        except SetFailed as error:
            refusal = write_refusal(error.failures.values())
            if refusal:
                self.updates_refused = f"this server does not let received reports be changed ({refusal})"
                self.show_permissions()
                self.app.notify(f"The server refused: {refusal}. Received reports are read-only there; "
                                "they are deleted when they expire.", severity="error", timeout=10)
                return
            self.report_failure("keep", "Could not change the report", error)
            if not_found(error):  # deleted elsewhere: the list drops it now, not at the next r (the tester's)
                self.post_message(ReportGone(row.id))
            return
        except JmapError as error:
            self.report_failure("keep", "Could not change the report", error)
            return
        self.app.notify(f"The report now expires {fmt.when(expires)}.")
        self.list_changed(cursor=self.query_one(InboxTable).cursor_row)


def _shortens(expires: str, current: str) -> bool:
    """Whether ``expires`` comes before the report's ``current`` expiry (unknown or unreadable: no)."""
    try:
        return parse_utc(expires) < parse_utc(current)
    except ValueError:
        return False


def _expiry(text: str, current: str, now: datetime) -> str:
    """A typed expiry as wire UTC; a bare date keeps the current time of day.

    A moment that has passed is refused: the server would delete the report at once,
    the opposite of keeping it longer.
    """
    value = text.strip()
    if not value:
        raise ValueError("Give an expiry date.")
    try:
        if len(value) == 10:
            time_of_day = parse_utc(current).strftime("%H:%M:%S") if current else "00:00:00"
            expires = normalise_utc(f"{value}T{time_of_day}Z")
        else:
            expires = normalise_utc(value)
    except ValueError:
        raise ValueError(f"{value!r} is not a date: write YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ") from None
    if parse_utc(expires) <= now:
        raise ValueError(f"{fmt.when(expires)} has already passed; the server would delete the report at once.")
    return expires
