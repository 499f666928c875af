"""A source whose reports gave no usable IP is said to have none, never shown as a blank; counts read in words.

The tester's reports with an empty, invalid or markup ``<source_ip>`` were stored with the address left empty:
the Advice tab read "New in this period: 198.51.100.1, , 192.0.2.50", the command's table had a blank source
cell, and the Sources tab said "lookup failed" of an address never looked up. The Advice tab said "1 reports".
"""

from __future__ import annotations

from datetime import date

from rich.console import Console

from jmapclient.dmarc.insight.advice import advise
from jmapclient.dmarc.insight.judge import NO_ADDRESS
from jmapclient.dmarc.insight.names import NameStatus, SourceName
from mailadmin.cli.advice_cmd import human_lines
from tests.support.insight_reports import record, report
from tui.reports.insight_render import advice_block, source_row

FIRST, LAST = date(2026, 3, 1), date(2026, 3, 7)


def shown(renderable: object) -> str:
    console = Console(width=200, record=True, color_system=None)
    console.print(renderable)
    return console.export_text()


def test_a_source_without_an_address_is_named_so_everywhere() -> None:
    one = report(record("198.51.100.1", 10), record("", 7), record("192.0.2.50", 3), day=date(2026, 3, 2))
    [advice] = advise([one], FIRST, LAST, seen_before=set())
    block = shown(advice_block(advice))
    assert f"New in this period: 198.51.100.1, {NO_ADDRESS}, 192.0.2.50" in block
    assert ": 1 report, 20 messages," in block, "one report, in words"
    nameless = next(source for source in advice.sources if not source.ip)
    row = [cell.plain for cell in source_row(nameless, SourceName("", status=NameStatus.FAILED))]
    assert row[0] == NO_ADDRESS and "lookup failed" not in row, row
    table = next(line for line in human_lines(advice) if NO_ADDRESS in line)
    assert "lookup failed" not in table and "7" in table
