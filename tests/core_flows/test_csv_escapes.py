"""A CSV cell's escapes read back as one thing: a backslash is written ``\\\\``, a line break ``\\n``.

The tester's finding: a literal backslash-n (``lit\\nbackslash`` as typed) and a real line break
exported as the same two characters.
"""

from __future__ import annotations

import csv
import io
import json
from typing import Any

import pytest

from jmapclient.dmarc.export import COLUMNS, export_rows, write_csv


def _report(header_from: str, *more_domains: str) -> dict[str, Any]:
    record = {"count": 1, "evaluatedDkim": "pass", "evaluatedSpf": "pass", "headerFrom": header_from,
              "dkimResults": [{"domain": domain, "selector": "s", "result": "pass"}
                              for domain in (header_from, *more_domains)]}
    return {"id": "r1", "report": {"reportId": "x", "orgName": "o", "policyDomain": "example.com",
                                   "dateRangeBegin": "2026-01-01T00:00:00Z", "dateRangeEnd": "2026-01-02T00:00:00Z",
                                   "records": [record]}}


def _cells(header_from: str, *more_domains: str) -> dict[str, str]:
    written = io.StringIO(newline="")
    write_csv(export_rows([_report(header_from, *more_domains)]), written)
    return dict(zip(COLUMNS, list(csv.reader(io.StringIO(written.getvalue())))[1], strict=True))


def _read_back(cell: str) -> str:
    """What a reader does with the documented escapes: JSON's, in a JSON string."""
    return str(json.loads(f'"{cell}"'))


@pytest.mark.parametrize("value", [
    "lit\\nbackslash", "lit\nbackslash", "a\\\\b", "back\\", "\\u001b[31m", "\x1b[31m", "tab\\there", "tab\there",
    "plain.example",
])
def test_each_value_reads_back_from_its_cell(value: str) -> None:
    cells = _cells(value)
    assert _read_back(cells["header_from"]) == value
    assert _read_back(cells["dkim_domains"]) == value  # a list column too


def test_a_literal_backslash_n_and_a_line_break_export_differently() -> None:
    assert _cells("lit\\nbackslash")["header_from"] == "lit\\\\nbackslash"
    assert _cells("lit\nbackslash")["header_from"] == "lit\\nbackslash"


@pytest.mark.parametrize("value", ["a;b", "a\\;b", "a\\u003bb", ";"])
def test_a_separator_inside_a_list_member_reads_back_as_one_member(value: str) -> None:
    # A hostile report's DKIM domain "a;b" exported as "a;b": read back, two domains.
    members = _cells(value)["dkim_domains"].split(";")
    assert [_read_back(member) for member in members] == [value]
    assert _read_back(_cells(value)["header_from"]) == value  # a plain cell keeps its ";"


FORMULAS = ["=cmd|' /C calc'!A0", "=1+1", "+1", "-2+3", "@SUM(A1)", "  =1+1", " -2+3", "\u00a0=1+1"]
"""Members a spreadsheet runs: OWASP's starts, and the same after white space it skips."""


@pytest.mark.parametrize("member", FORMULAS)
def test_a_formula_in_a_list_member_is_neutralised_as_a_cell_is(member: str) -> None:
    # Excel in a European locale splits a cell at ";": "csv.example;=cmd|' /C calc'!A0" ran the second as DDE.
    members = _cells("csv.example", member)["dkim_domains"].split(";")
    assert members == ["csv.example", "'" + member]


@pytest.mark.parametrize("member", FORMULAS)
def test_a_formula_after_a_separator_in_a_plain_cell_is_neutralised(member: str) -> None:
    # Only list cells were: "Acme Mail;=cmd|' /C calc'!A0" as a reporter's name (or a header From) went out as
    # it came, and a spreadsheet splitting at ";" ran its second part (tester77).
    assert _cells(f"Acme Mail;{member}")["header_from"].split(";") == ["Acme Mail", "'" + member]


@pytest.mark.parametrize("value", FORMULAS)
def test_a_cell_beginning_with_white_space_then_a_formula_is_neutralised(value: str) -> None:
    cells = _cells(value)
    assert cells["header_from"] == cells["dkim_domains"] == "'" + value


def test_a_value_only_holding_formula_characters_inside_is_left_as_it_is() -> None:
    cells = _cells("mail.example", "a=b", " mail-2.example")
    assert cells["header_from"] == "mail.example"
    assert cells["dkim_domains"].split(";") == ["mail.example", "a=b", " mail-2.example"]
