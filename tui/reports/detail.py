"""Drill-down levels: a report, its records table, one record. Esc goes back one level.

Each level is a widget the inbox stacks in place of the list (the shell keeps its
header, navigation and footer); a level opens the next one by posting :class:`OpenLevel`.

Every label comes from the models' declarations (``introspect.fields_of``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from enum import Enum
from typing import Any

from rich import box
from rich.table import Table
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import Button, DataTable, Static

from jmapclient.display import address_text, domain_text, name_text
from jmapclient.dmarc.analytics import classify as classify_digest
from jmapclient.dmarc.analytics import digest_record, digest_report, format_rate
from jmapclient.dmarc.insight.judge import JudgedRecord, group_by_service, judge_report
from jmapclient.errors import JmapError
from jmapclient.models import WireModel
from jmapclient.models.dmarc import (
    DmarcDkimResult,
    DmarcExternalReport,
    DmarcReport,
    DmarcReportRecord,
    DmarcSpfResult,
)
from jmapclient.models.introspect import field_by_wire
from tui.context import ConsoleContext
from tui.keyboard import in_background
from tui.lifecycle import while_attached
from tui.reports import fmt
from tui.reports.access import learn
from tui.reports.insight_render import BLANK_INSIGHT, group_cells, record_cells
from tui.reports.owned_senders import senders_of
from tui.reports.record_rows import RecordGroups, RecordRows, heading_key
from tui.reports.source_names import names_of, say_set_aside
from tui.textual_compat import ColumnsInView, PlainCellLines
from tui.widgets import outside
from tui.widgets.list_table import ListTable
from tui.widgets.plain_cell import PlainCell
from tui.widgets.vim_keys import VimScroll

DETAIL_CSS = """
DmarcDetail { layout: vertical; }
DmarcDetail .title { height: 1; padding: 0 1; text-style: bold; }
DmarcDetail .status { height: auto; padding: 0 1; color: $text-muted; }
DmarcDetail .error { height: auto; padding: 1 2; color: $error; }
DmarcDetail #retry { margin: 0 2; }
DmarcDetail VerticalScroll { height: 1fr; padding: 0 1; }
DmarcDetail .section { height: auto; margin-bottom: 1; }
DmarcDetail DataTable { height: 1fr; }
"""

def label(model: type[WireModel], wire: str) -> str:
    return field_by_wire(model, wire).label


def show(value: Any) -> str:
    """A model value as text: enums by wire value, sets and lists joined, booleans yes/no."""
    if value is None:
        return "–"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, Enum):
        return str(value.value)
    if isinstance(value, list | tuple | set | frozenset):
        return ", ".join(show(v) for v in value) if value else "–"
    if isinstance(value, WireModel):
        return ", ".join(f"{k}={v}" for k, v in value.to_wire().items() if v is not None)
    text = str(value)
    if text.endswith("+00:00"):
        return fmt.when(text.replace("+00:00", "Z"))
    return text


def field_text(model: WireModel, wire: str) -> str:
    """One field of ``model`` as text, a declared choice by its label ("MAIL FROM", not ``mailFrom``)."""
    spec = field_by_wire(type(model), wire)
    value = getattr(model, spec.name)
    if isinstance(value, str) and not value.isascii() and spec.kind in LOOK_ALIKE_TEXT:
        return LOOK_ALIKE_TEXT[spec.kind](value)
    if spec.choice_labels and value is not None:
        value = [spec.choice_label(v) for v in value] if isinstance(value, list) else spec.choice_label(value)
    return show(value)


LOOK_ALIKE_TEXT = {"domain": domain_text, "email": address_text, "string": name_text}
"""How each kind of outside text that may hold a look-alike domain is shown: its A-label first (a reporter's name
is text, and may read as a domain). The report's panel showed ``gооgle.com`` (Cyrillic о) as Google's (tester83)."""


def field_rows(model: WireModel, wires: Iterable[str]) -> list[tuple[str, str]]:
    return [(label(type(model), w), field_text(model, w)) for w in wires]


def panel(title: str, rows: list[tuple[str, str]]) -> Table:
    table = Table.grid(padding=(0, 2))
    table.title = title
    table.title_justify = "left"
    table.title_style = "bold"
    table.add_column(style="bold", min_width=22)
    table.add_column()
    for name, value in rows:
        # Names (an extension's) and values come from the report: wrapped, never markup, and cut at DETAIL_MAX
        # (a 3,000-character comment filled 97 lines at 80x24; the report's JSON holds it whole).
        table.add_row(outside.cut(name), outside.whole(value, max_len=DETAIL_MAX))
    return table


DETAIL_MAX = 400
"""Characters of one outside value a detail panel shows: five lines at 80 columns."""


class OpenLevel(Message):
    """Show ``level`` on top of ``opener``, the level asking (the inbox handles it)."""

    def __init__(self, level: DmarcDetail, opener: DmarcDetail) -> None:
        super().__init__()
        self.level = level
        self.opener = opener


class ReportGone(Message):
    """The server no longer has the report a level opened (deleted elsewhere): the list behind drops it."""

    def __init__(self, report_id: str) -> None:
        super().__init__()
        self.report_id = report_id


class DmarcDetail(Vertical):
    """One drill-down level; ``trail`` is its breadcrumb after the section's path."""

    DEFAULT_CSS = DETAIL_CSS
    HELP = ""

    def __init__(self, context: ConsoleContext, trail: tuple[str, ...]) -> None:
        super().__init__()
        self.context = context
        self.trail = trail

    def open_level(self, level: DmarcDetail) -> None:
        self.post_message(OpenLevel(level, self))

    def focus(self, scroll_visible: bool = True) -> DmarcDetail:
        """Coming back to a level (esc) puts the keyboard on its table, where its keys work, or on its
        body (a report's: the view itself takes no focus, and its enter went nowhere)."""
        targets = self.query(DataTable) or self.query("#body")
        if targets:
            targets.first().focus(scroll_visible)
            return self
        for widget in self.query("*"):  # a level without a table (the report): its scrolling body
            if widget.can_focus:
                widget.focus(scroll_visible)
                return self
        return super().focus(scroll_visible)  # a container cannot take the keyboard: nothing was focused

    def reload(self) -> None:
        """The r key; levels that fetch override it."""

    def help_text(self) -> str:
        return self.HELP


# --- Report ---------------------------------------------------------------------------------

REPORTER_FIELDS = ("orgName", "email", "extraContactInfo", "reportId", "dateRangeBegin", "dateRangeEnd",
                   "generator", "version")
POLICY_FIELDS = ("policyDomain", "policyDisposition", "policySubdomainDisposition", "policyNp", "policyAdkim",
                 "policyAspf", "policyTestingMode", "policyDiscoveryMethod", "policyFailureReportingOptions",
                 "policyVersion")
MESSAGE_FIELDS = ("from", "subject", "to", "receivedAt", "expiresAt", "memberTenantId")


RECORDS_GROUP = in_background("dmarc-records-judge")


class ReportView(DmarcDetail):
    """Level 1: who reported, for which period, under which published policy."""

    HELP = """\
### A DMARC report

Who reported, the period, the policy published for the domain, errors and extensions,
and the e-mail the report came in. **enter** opens its records, **r** reloads, **esc** goes back.
"""
    BINDINGS = [Binding("enter", "records", "Records", id="dmarc.records")]

    def __init__(self, context: ConsoleContext, report_id: str, title: str) -> None:
        super().__init__(context, (title,))
        self.report_id = report_id
        self.report: DmarcExternalReport | None = None
        self.wire: dict[str, Any] | None = None
        """The report as the server sent it: its records are digested from it, not from the model again."""
        self.groups: RecordGroups | None = None
        """Its records judged and grouped by service, made in the background while the report is read."""

    def compose(self) -> ComposeResult:
        yield Static("Loading the report…", id="status", classes="status")
        with VimScroll(id="body"):
            yield Static(id="reporter", classes="section")
            yield Static(id="policy", classes="section")
            yield Static(id="problems", classes="section")
            yield Static(id="message", classes="section")
        yield Button("Retry", id="retry")

    @while_attached
    def on_mount(self) -> None:
        self.query_one("#retry").display = False
        self.query_one("#body").focus()
        self.load()

    def reload(self) -> None:
        self.load()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "retry":
            self.load()

    @work(exclusive=True, group="report")
    @while_attached
    async def load(self) -> None:
        status = self.query_one("#status", Static)
        body = self.query_one("#body")
        body.loading = True
        self.query_one("#retry").display = False
        status.set_classes("status")
        try:
            got = await self.context.client.dmarc_reports.get([self.report_id])
        except JmapError as error:
            learn(self.context, "open", error)
            status.update(outside.message(f"Could not load the report: {error}"))
            status.set_classes("error")
            self.query_one("#retry").display = True
            return
        finally:
            body.loading = False
        if self.report_id in got.invalid:
            status.update(outside.message(f"This client cannot read the report: {got.invalid[self.report_id]}"))
            status.set_classes("error")
            return
        if not got.items:
            status.update("This report no longer exists on the server.")
            status.set_classes("error")
            self.post_message(ReportGone(self.report_id))  # the row stayed in the list until r (the tester's)
            return
        item = got.items[0]
        assert isinstance(item, DmarcExternalReport)
        self.report = item
        self.wire = next((wire for wire in got.raw if wire.get("id") == self.report_id), None)
        self.groups = None
        self.render_report(item)
        self.judge_records(item, self.wire)

    # A failure here leaves the judging to the records view, where it is said as before.
    @work(thread=True, exclusive=True, group=RECORDS_GROUP, exit_on_error=False)
    def judge_records(self, item: DmarcExternalReport, wire: Mapping[str, Any] | None) -> None:
        """Judge the records while the report is read: a report of 5,000 records took 0.12-0.2 s of the
        0.5 s its records table took to show after enter (digesting and judging every record to group
        them). Enter before this is done judges them in the records view, as before."""
        groups = record_groups(self.context, item, wire)
        if self.report is item:  # not reloaded meanwhile
            self.groups = groups

    def render_report(self, item: DmarcExternalReport) -> None:
        report = item.report
        messages = sum(r.count for r in report.records)
        passed = sum(r.count for r in report.records if r.passes_dmarc)
        records_label = label(DmarcReport, "records")
        self.query_one("#status", Static).update(
            f"{records_label}: {len(report.records):,} · {label(DmarcReportRecord, 'count')}: {messages:,} · "
            f"DMARC pass {format_rate(passed / messages if messages else None)} · enter: {records_label.lower()}"
        )
        reporter = field_rows(report, REPORTER_FIELDS)
        if report.date_range_end < report.date_range_begin:  # shown as sent, and flagged: not a period
            end = REPORTER_FIELDS.index("dateRangeEnd")
            reporter[end] = (reporter[end][0], f"{reporter[end][1]}  {fmt.BACKWARDS}")
        self.query_one("#reporter", Static).update(panel("Report", reporter))
        self.query_one("#policy", Static).update(panel("Published policy", field_rows(report, POLICY_FIELDS)))
        extensions = [(e.name, e.definition) for e in report.extensions]
        problems = [(label(DmarcReport, "errors"), show(report.errors))]
        problems += extensions or [(label(DmarcReport, "extensions"), "–")]
        self.query_one("#problems", Static).update(panel("Errors and extensions", problems))
        self.query_one("#message", Static).update(panel("Report e-mail", field_rows(item, MESSAGE_FIELDS)))

    def action_records(self) -> None:
        if self.report is not None:
            self.open_level(RecordsView(self.context, self.report, self.trail, self.wire, self.groups))


# --- Records ----------------------------------------------------------------------------------

RECORD_COLUMNS = ("sourceIp", "count", "evaluatedDkim", "evaluatedSpf", "evaluatedDisposition", "headerFrom",
                  "envelopeFrom", "envelopeTo", "policyOverrideReasons")
HINT_COLUMN = "Hint"


def overrides_text(record: DmarcReportRecord) -> str:
    return ", ".join(
        f"{field_text(reason, 'overrideType')}{f' ({reason.comment})' if reason.comment else ''}"
        for reason in record.policy_override_reasons
    ) or "–"


def hint_text(record: DmarcReportRecord) -> str:
    hint = classify_digest(digest_record(record.to_wire()))
    return hint.value if hint is not None else ""


def record_groups(
    context: ConsoleContext, item: DmarcExternalReport, wire: Mapping[str, Any] | None = None
) -> RecordGroups:
    """The report's records by service, each judged from what the names cache knows now.

    Never waits for DNS. A record the digest could not read leaves the report ungrouped, without
    insight (None), rather than a row beside the wrong judgement. ``wire`` is the report as read
    from the server: digested as it is, without writing the model out again (5,000 records: 0.45 s).
    """
    names = names_of(context)
    report = digest_report(wire if wire is not None else item.to_wire())
    if len(report.records) != len(item.report.records):
        return [("", [(index, None) for index in range(len(item.report.records))])]
    judged = judge_report(report, {r.source_ip: names.known(r.source_ip) for r in report.records},
                          senders=senders_of(context))
    position = {id(j): index for index, j in enumerate(judged)}
    return [(service, [(position[id(j)], j) for j in members]) for service, members in group_by_service(judged)]


PAGE_ROWS = 80
"""Rows added to the records table at a time, once the cursor or the scroll comes within a screen
and :data:`MARGIN_ROWS` of the last row added (a page down never runs past the rows added)."""
MARGIN_ROWS = 10
"""Rows added beyond what the screen shows: at first the screen's height and these (a report's 5,000
records: building and measuring 80 rows was 20-30 ms of the first frame)."""


class RecordsTable(ColumnsInView, PlainCellLines, ListTable):
    """The records table: G (and ctrl+end) go to the report's last record, adding the rows still to come.
    Of its 14 columns only those in view are rendered (8 at 120 columns, 6 at 80), its plain cells directly."""

    def __init__(self, add_all: Callable[[], None], *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.add_all = add_all

    def action_scroll_bottom(self) -> None:
        self.add_all()
        super().action_scroll_bottom()


class RecordsView(DmarcDetail):
    """Level 2: one row per sending source and result."""

    HELP = """\
### Records of a report

One row per sending source and result, grouped by the service behind the source (named
from the names analytics looked up, or the domain that authenticated the mail), with its
class. **f** shows only records failing DMARC,
**enter** opens a record, **esc** goes back to the report.
"""
    BINDINGS = [Binding("f", "failing", "Failing only", id="dmarc.records.failing")]

    def __init__(
        self,
        context: ConsoleContext,
        item: DmarcExternalReport,
        trail: tuple[str, ...],
        wire: Mapping[str, Any] | None = None,
        groups: RecordGroups | None = None,
    ) -> None:
        super().__init__(context, (*trail, label(DmarcReport, "records")))
        self.item = item
        self.wire = wire
        self.failing_only = False
        self._groups = groups
        """Judged once (here, unless the report view judged them already); "f" only chooses among them."""
        self._rows: RecordRows | None = None
        """The rows of the choice shown: added to the table, or still to add."""

    def compose(self) -> ComposeResult:
        yield Static(id="status", classes="status")
        yield RecordsTable(self._add_all, id="records")

    @while_attached
    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        # DKIM and SPF beside the count: at 80 columns, beside the menu, about 59 cells show, and the
        # columns past them are cut off (the service and class are also on the heading rows).
        for wire in RECORD_COLUMNS[:4]:
            table.add_column(label(DmarcReportRecord, wire), key=wire)
        table.add_column("Service", key="service")
        table.add_column("Class", key="class")
        for wire in RECORD_COLUMNS[4:]:
            table.add_column(label(DmarcReportRecord, wire), key=wire)
        table.add_column(HINT_COLUMN, key="hint")
        table.add_column("Source name", key="name")
        table.add_column("Why this class", key="reason")
        # The mouse wheel and the scrollbar move the view, not the cursor: near the end, more rows.
        self.watch(table, "scroll_y", self._scrolled, init=False)
        self.fill()
        table.focus()

    def fill(self) -> None:
        table = self.query_one(DataTable)
        self._rows = None  # emptying the table scrolls it to the top: no row of the old choice is added then
        table.clear()
        records = self.item.report.records
        if self._groups is None:
            self._groups = record_groups(self.context, self.item, self.wire)
        say_set_aside(self.context, self)
        self._rows = RecordRows(self._groups, records, failing_only=self.failing_only)
        self._add_rows(self.app.size.height + MARGIN_ROWS)  # the terminal's height: more than the table shows
        if table.row_count > 1 and not str(table.ordered_rows[0].key.value).isdigit():
            table.move_cursor(row=1)  # on the first record, not its service's heading
        which, toggle = ("failing DMARC", "f: show all") if self.failing_only else ("all", "f: failing only")
        self.query_one("#status", Static).update(
            f"{self._rows.record_count} of {len(records)} records ({which}) · {toggle} · enter: open a record · "
            "esc: back"
        )

    def _record_cells(self, index: int, judged: JudgedRecord | None) -> list[Any]:
        record = self.item.report.records[index]
        insight = record_cells(judged) if judged is not None else BLANK_INSIGHT
        hint = classify_digest(judged.record) if judged is not None else None
        # Strings: the table makes each a PlainCell (tui.widgets.outside.cell).
        return [
            show(record.source_ip), f"{record.count:,}", _verdict(show(record.evaluated_dkim)),
            _verdict(show(record.evaluated_spf)), *insight[:2], show(record.evaluated_disposition),
            record.header_from, record.envelope_from, show(record.envelope_to), overrides_text(record),
            (hint.value if hint is not None else "") if judged is not None else hint_text(record), *insight[2:],
        ]

    def _add_rows(self, count: int = PAGE_ROWS) -> None:
        """Add the next ``count`` rows still to add, their cells made now."""
        rows = self._rows
        if rows is None:
            return
        table = self.query_one(DataTable)
        width = len(table.columns)
        for position in rows.take(count):
            entry = rows.entries[position]
            if isinstance(entry, str):
                table.add_row(*group_cells(entry, rows.counts_under(position), width), key=heading_key(entry))
            else:
                table.add_row(*self._record_cells(entry, rows.judged[entry]), key=str(entry))

    def _add_all(self) -> None:
        if self._rows is not None and self._rows.left:
            self._add_rows(self._rows.left)

    def _near_the_end(self, row: float) -> bool:
        """Whether rows are still to add and a screen from ``row`` comes near the last row added."""
        table = self.query_one(DataTable)
        return self._rows is not None and self._rows.left > 0 \
            and row + table.size.height + MARGIN_ROWS >= table.row_count

    def _scrolled(self, scroll_y: float) -> None:
        if self._near_the_end(scroll_y):
            self._add_rows()

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        if self._near_the_end(event.cursor_row):
            self._add_rows()

    def shown_records(self) -> list[int]:
        """Indexes of the records shown, in the table's order (the services' heading rows left out)."""
        return self._rows.shown() if self._rows is not None else []

    def action_failing(self) -> None:
        self.failing_only = not self.failing_only
        self.fill()
        self.refresh_bindings()  # the footer's f names the other choice now

    def binding_description(self, action: str) -> str | None:
        """f names what it switches to (see ``tui.widgets.footer.described``)."""
        if action == "failing":
            return "All records" if self.failing_only else "Failing only"
        return None

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        key = str(event.row_key.value)
        if not key.isdigit():
            return  # a service's heading row
        record = self.item.report.records[int(key)]
        self.open_level(RecordView(self.context, record, (*self.trail, show(record.source_ip))))


def _verdict(value: str) -> PlainCell:
    return PlainCell(value, {"pass": "green", "fail": "bold red"}.get(value, ""))


# --- Record -----------------------------------------------------------------------------------

DKIM_COLUMNS = ("domain", "selector", "result", "humanResult")
SPF_COLUMNS = ("domain", "scope", "result", "humanResult")


def results_table(title: str, model: type[WireModel], columns: tuple[str, ...], items: list[Any]) -> Table:
    table = Table(title=title, title_justify="left", title_style="bold", expand=False, box=box.SIMPLE_HEAD)
    for wire in columns:
        # One line a cell: wrapped, a result's text with a line break took three lines, each cut (the tester's).
        table.add_column(label(model, wire), no_wrap=True, overflow="ellipsis")
    for item in items:
        table.add_row(*(outside.cut(field_text(item, w)) for w in columns))
    if not items:
        table.add_row(*(["none reported"] + [""] * (len(columns) - 1)))
    return table


class RecordView(DmarcDetail):
    """Level 3: alignment (what DMARC concluded) apart from authentication (raw checks)."""

    HELP = """\
### One record

**Alignment** is what DMARC concluded for the record (the evaluated DKIM and SPF results,
which count only when the authenticated domain aligns with the header From).
**Authentication** lists the raw DKIM signature and SPF checks, aligned or not.
**esc** goes back to the records.
"""

    def __init__(self, context: ConsoleContext, record: DmarcReportRecord, trail: tuple[str, ...]) -> None:
        super().__init__(context, trail)
        self.record = record

    def compose(self) -> ComposeResult:
        record = self.record
        with VimScroll(id="record-body"):
            yield Static(panel("Source", field_rows(record, ("sourceIp", "count", "headerFrom", "envelopeFrom",
                                                             "envelopeTo"))), classes="section")
            alignment = field_rows(record, ("evaluatedDisposition", "evaluatedDkim", "evaluatedSpf"))
            alignment.append(("DMARC", "pass" if record.passes_dmarc else "fail"))
            alignment.append((label(DmarcReportRecord, "policyOverrideReasons"), overrides_text(record)))
            alignment.append((HINT_COLUMN, hint_text(record) or "–"))
            yield Static(panel("Alignment (policy evaluated)", alignment), classes="section")
            yield Static(results_table(f"Authentication: {label(DmarcReportRecord, 'dkimResults')}",
                                       DmarcDkimResult, DKIM_COLUMNS, record.dkim_results), classes="section")
            yield Static(results_table(f"Authentication: {label(DmarcReportRecord, 'spfResults')}",
                                       DmarcSpfResult, SPF_COLUMNS, record.spf_results), classes="section")
            if record.extensions:
                yield Static(panel(label(DmarcReportRecord, "extensions"),
                                   [(e.name, e.definition) for e in record.extensions]), classes="section")

    @while_attached
    def on_mount(self) -> None:
        self.query_one("#record-body").focus()
