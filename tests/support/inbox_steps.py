"""Steps the DMARC console tests share."""

from __future__ import annotations

import io
from collections.abc import Callable
from typing import Any

from rich.console import Console
from textual.pilot import Pilot
from textual.widgets import Input, Static

from jmapclient.models.objects import DMARC_EXTERNAL_REPORT
from server_stub.store import Store
from tests.support.waiting import settle
from tui.reports.inbox import DmarcInbox, InboxTable


def inbox(pilot: Pilot) -> DmarcInbox:
    return pilot.app.query_one(DmarcInbox)


def position(pilot: Pilot) -> str:
    return str(pilot.app.query_one("#dmarc-position", Static).render())


def table(pilot: Pilot) -> InboxTable:
    return pilot.app.query_one(InboxTable)


async def type_into(pilot: Pilot, selector: str, text: str, *, submit: bool = True) -> None:
    widget = pilot.app.screen.query_one(selector, Input)
    widget.focus()
    widget.value = text
    if submit:
        await pilot.press("enter")
    await settle(pilot)


def plain(widget: Static) -> str:
    """What a Static shows, as plain text (it may hold a rich Table)."""
    console = Console(width=200, record=True, file=io.StringIO())
    console.print(widget.content)
    return console.export_text()


def header(pilot: Pilot) -> str:
    return str(pilot.app.query_one("#shell-header", Static).render())


def record_totals(wire: dict[str, Any]) -> tuple[int, int]:
    """(records not marked pass, records marked pass) of one stored report, as wire-notes defines
    the totals: each record adds ``min(count, 1)`` by its ``evaluatedDisposition``, nothing else."""
    failed = passed = 0
    for record in (wire.get("report", {}).get("records") or {}).values():
        weight = min(int(record.get("count") or 0), 1)
        if record.get("evaluatedDisposition") == "pass":
            passed += weight
        else:
            failed += weight
    return failed, passed


def ids_where(store: Store, keep: Callable[[int, int], bool]) -> set[str]:
    """Ids of the stored reports whose (failed, passed) record totals satisfy ``keep``."""
    stored = store.get(DMARC_EXTERNAL_REPORT, store.all_ids(DMARC_EXTERNAL_REPORT))
    return {report_id for report_id, wire in stored.items() if keep(*record_totals(wire))}
