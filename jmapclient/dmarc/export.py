"""Export of stored DMARC reports: one row per record, as CSV or JSON.

Input is what x:DmarcExternalReport/get returns (``{"id": ..., "report": {...}}``);
lists may be index maps (the wire form) or arrays (lenient reading). In CSV,
the per-record auth results are joined with ";" in matching order (a ";" inside one
is written ``\\u003b``); in JSON they stay lists. A CSV cell writes hidden characters in
their JSON spelling (a line break as ``\\n``, ESC as ``\\u001b``) and a backslash as
``\\\\``, so an escape is never taken for the characters it spells; a cell a spreadsheet
would run as a formula starts with ``'``, and so does each such part of a cell between two ``;``.
"""

from __future__ import annotations

import csv
from collections.abc import Iterable, Iterator, Mapping
from typing import Any, TextIO

from jmapclient.display import json_text, safe_text
from jmapclient.dmarc.counting import record_count, record_passes
from jmapclient.dmarc.wirelists import iter_wire_list
from jmapclient.dmarc.wireshape import report_problem

COLUMNS: tuple[str, ...] = (
    "id",
    "report_id",
    "reporter",
    "policy_domain",
    "begin",
    "end",
    "source_ip",
    "count",
    "disposition",
    "dkim_evaluated",
    "spf_evaluated",
    "dkim_aligned",
    "spf_aligned",
    "dmarc_pass",
    "header_from",
    "envelope_from",
    "envelope_to",
    "dkim_domains",
    "dkim_selectors",
    "dkim_results",
    "spf_domains",
    "spf_scopes",
    "spf_results",
)
"""Row keys in output order. `id` is the server's object id, `report_id` the reporter's."""

LIST_COLUMNS = frozenset({"dkim_domains", "dkim_selectors", "dkim_results", "spf_domains", "spf_scopes", "spf_results"})
CSV_SEPARATOR = ";"

Row = dict[str, Any]


def export_rows(reports: Iterable[Mapping[str, Any]]) -> Iterator[Row]:
    """One row per record of every report, in report then record order.

    A report whose shape cannot be walked (:func:`report_problem`) gives no rows;
    :func:`~jmapclient.dmarc.exporting.fetch_reports` has named it with its reason.
    """
    for obj in reports:
        if report_problem(obj) is not None:
            continue
        inner = obj.get("report")
        report = inner if isinstance(inner, Mapping) else obj
        for record in iter_wire_list(report.get("records")):
            yield _row(obj.get("id"), report, record)


def _row(object_id: Any, report: Mapping[str, Any], record: Mapping[str, Any]) -> Row:
    dkim = list(iter_wire_list(record.get("dkimResults")))
    spf = list(iter_wire_list(record.get("spfResults")))
    # The evaluated verdicts already are the aligned results (RFC 7489 6.6.2).
    dkim_aligned = record.get("evaluatedDkim") == "pass"
    spf_aligned = record.get("evaluatedSpf") == "pass"
    return {
        "id": object_id,
        "report_id": report.get("reportId"),
        "reporter": report.get("orgName"),
        "policy_domain": report.get("policyDomain"),
        "begin": report.get("dateRangeBegin"),
        "end": report.get("dateRangeEnd"),
        "source_ip": record.get("sourceIp"),
        "count": record_count(record),
        "disposition": record.get("evaluatedDisposition"),
        "dkim_evaluated": record.get("evaluatedDkim"),
        "spf_evaluated": record.get("evaluatedSpf"),
        "dkim_aligned": dkim_aligned,
        "spf_aligned": spf_aligned,
        "dmarc_pass": record_passes(record),
        "header_from": record.get("headerFrom"),
        "envelope_from": record.get("envelopeFrom"),
        "envelope_to": record.get("envelopeTo"),
        "dkim_domains": [d.get("domain") for d in dkim],
        "dkim_selectors": [d.get("selector") for d in dkim],
        "dkim_results": [d.get("result") for d in dkim],
        "spf_domains": [s.get("domain") for s in spf],
        "spf_scopes": [s.get("scope") for s in spf],
        "spf_results": [s.get("result") for s in spf],
    }


FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
"""What a spreadsheet reads as the start of a formula (OWASP, "CSV Injection")."""


def neutralise_formula(cell: str) -> str:
    """A leading ``'`` makes a spreadsheet show the cell as text instead of running it. White space before
    a formula hides nothing: a spreadsheet skips it, and ``  =1+1`` ran."""
    return "'" + cell if cell.startswith(FORMULA_STARTS) or cell.lstrip().startswith(FORMULA_STARTS) else cell


SEPARATOR_IN_MEMBER = "\\u003b"
"""A ``;`` inside one member of a list cell, in its JSON spelling: written plain, a member holding
one (a hostile report's DKIM domain) read back as two members."""


def _csv_cell(column: str, value: Any) -> str:
    # A cell is read in a terminal as often as in a spreadsheet: hidden characters are shown visibly,
    # in their JSON spelling (a line break as \n). A backslash is doubled first, so each escape reads
    # back as one thing: a literal backslash-n and a line break were the same two characters.
    if column in LIST_COLUMNS:
        text = CSV_SEPARATOR.join(_list_member(v) for v in value)
    elif isinstance(value, bool):
        text = "true" if value else "false"
    else:
        text = _escaped("" if value is None else str(value))
    # Each part between two ``;`` is neutralised as a cell is: a spreadsheet that splits cells at ``;`` (Excel in
    # European locales) reads each as a cell of its own, and ``csv.example;=cmd|' /C calc'!A0`` ran its second
    # part as a formula, in a list cell and in a reporter's name alike (the testers').
    return CSV_SEPARATOR.join(neutralise_formula(part) for part in safe_text(text).split(CSV_SEPARATOR))


def _list_member(value: Any) -> str:
    """One member of a list cell as written: its own ``;`` spelled, so the cell's ``;`` part it."""
    return _escaped("" if value is None else str(value)).replace(CSV_SEPARATOR, SEPARATOR_IN_MEMBER)


def _escaped(text: str) -> str:
    return text.replace("\\", "\\\\")


def write_csv(rows: Iterable[Row], out: TextIO) -> int:
    """Write rows as CSV with a header line; return the number of rows written.

    Open ``out`` with newline="" so the csv module controls line endings.
    """
    writer = CsvRows(out)
    writer.write(rows)
    return writer.close()


def write_json(rows: Iterable[Row], out: TextIO) -> int:
    """Write rows as a JSON array of objects; return the number of rows written."""
    writer = JsonRows(out)
    writer.write(rows)
    return writer.close()


class JsonRows:
    """A JSON array of row objects written a row at a time, as ``json_text(rows, indent=2)`` writes it
    whole: an export streams its pages without holding every row."""

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self.count = 0

    def write(self, rows: Iterable[Row]) -> None:
        for row in rows:
            item = json_text({c: row.get(c) for c in COLUMNS}, indent=2).replace("\n", "\n  ")
            self.out.write(("[\n  " if not self.count else ",\n  ") + item)
            self.count += 1

    def close(self) -> int:
        self.out.write("\n]\n" if self.count else "[]\n")
        return self.count


class CsvRows:
    """CSV rows written a page at a time, the header first (open ``out`` with newline="").

    The header is written with the first page (or at the close of an export that found none), never
    before: an export that fails before its first page leaves standard output empty, not a header
    a script would take for an export of no records.
    """

    def __init__(self, out: TextIO) -> None:
        self.writer = csv.writer(out)
        self.count = 0
        self.started = False

    def _start(self) -> None:
        if not self.started:
            self.started = True
            self.writer.writerow(COLUMNS)

    def write(self, rows: Iterable[Row]) -> None:
        self._start()
        for row in rows:
            self.writer.writerow([_csv_cell(c, row.get(c)) for c in COLUMNS])
            self.count += 1

    def close(self) -> int:
        self._start()
        return self.count
