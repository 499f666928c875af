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


def _report(header_from: str) -> dict[str, Any]:
    record = {"count": 1, "evaluatedDkim": "pass", "evaluatedSpf": "pass", "headerFrom": header_from,
              "dkimResults": [{"domain": header_from, "selector": "s", "result": "pass"}]}
    return {"id": "r1", "report": {"reportId": "x", "orgName": "o", "policyDomain": "example.com",
                                   "dateRangeBegin": "2026-01-01T00:00:00Z", "dateRangeEnd": "2026-01-02T00:00:00Z",
                                   "records": [record]}}


def _cells(header_from: str) -> dict[str, str]:
    written = io.StringIO(newline="")
    write_csv(export_rows([_report(header_from)]), written)
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
