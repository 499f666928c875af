"""Record export (CSV and JSON) and the message-count helpers."""

from __future__ import annotations

import csv
import io
import json
from typing import Any

import pytest

from jmapclient.dmarc import (
    COLUMNS,
    export_rows,
    failed_messages,
    pass_messages,
    total_messages,
    write_csv,
    write_json,
)

RECORD_A: dict[str, Any] = {
    "sourceIp": "192.0.2.1",
    "count": 5,
    "evaluatedDisposition": "none",
    "evaluatedDkim": "pass",
    "evaluatedSpf": "fail",
    "envelopeFrom": "bounce.example.com",
    "headerFrom": "example.com",
    "envelopeTo": "rcpt.example",
    "dkimResults": {
        "1": {"domain": "esp.example", "selector": "s2", "result": "fail"},
        "0": {"domain": "example.com", "selector": "s1", "result": "pass"},
    },
    "spfResults": {"0": {"domain": "bounce.example.com", "scope": "mailFrom", "result": "softFail"}},
}
RECORD_B: dict[str, Any] = {
    "count": 2,
    "evaluatedDisposition": "reject",
    "evaluatedDkim": "fail",
    "evaluatedSpf": "fail",
    "envelopeFrom": "spoof.example",
    "headerFrom": "example.com",
}
RECORD_C: dict[str, Any] = {
    "sourceIp": "2001:db8::1",
    "count": 7,
    "evaluatedDisposition": "none",
    "evaluatedDkim": "fail",
    "evaluatedSpf": "pass",
    "envelopeFrom": "example.com",
    "headerFrom": "example.com",
    "spfResults": [{"domain": "example.com", "scope": "helo", "result": "pass"}],
}


def stored(records: Any, object_id: str = "r1") -> dict[str, Any]:
    return {
        "id": object_id,
        "from": "dmarc@reporter.example",
        "report": {
            "orgName": "Reporter Inc",
            "reportId": "rid-1",
            "policyDomain": "example.com",
            "dateRangeBegin": "2023-11-14T22:13:20Z",
            "dateRangeEnd": "2023-11-15T22:13:19Z",
            "records": records,
        },
    }


INDEX_MAP = stored({"1": RECORD_B, "0": RECORD_A, "2": RECORD_C})
ARRAY = stored([RECORD_A, RECORD_B, RECORD_C], object_id="r2")


@pytest.mark.parametrize("report", [INDEX_MAP, ARRAY])
def test_rows_per_record_in_wire_order(report: dict[str, Any]) -> None:
    rows = list(export_rows([report]))
    assert [r["count"] for r in rows] == [5, 2, 7]
    first = rows[0]
    assert first["id"] == report["id"]
    assert first["report_id"] == "rid-1"
    assert first["reporter"] == "Reporter Inc"
    assert first["policy_domain"] == "example.com"
    assert (first["begin"], first["end"]) == ("2023-11-14T22:13:20Z", "2023-11-15T22:13:19Z")
    assert first["dkim_domains"] == ["example.com", "esp.example"]  # index order, not key order
    assert first["dkim_selectors"] == ["s1", "s2"]
    assert first["dkim_results"] == ["pass", "fail"]
    assert first["spf_scopes"] == ["mailFrom"]
    assert first["envelope_to"] == "rcpt.example"
    assert [(r["dkim_aligned"], r["spf_aligned"], r["dmarc_pass"]) for r in rows] == [
        (True, False, True),
        (False, False, False),
        (False, True, True),
    ]
    assert rows[1]["source_ip"] is None
    assert rows[1]["dkim_domains"] == []


def test_csv_output() -> None:
    out = io.StringIO(newline="")
    assert write_csv(export_rows([INDEX_MAP]), out) == 3
    parsed = list(csv.DictReader(io.StringIO(out.getvalue(), newline="")))
    assert list(parsed[0]) == list(COLUMNS)
    assert parsed[0]["dkim_domains"] == "example.com;esp.example"
    assert parsed[0]["dkim_results"] == "pass;fail"
    assert parsed[0]["dmarc_pass"] == "true"
    assert parsed[1]["dmarc_pass"] == "false"
    assert parsed[1]["source_ip"] == ""
    assert parsed[1]["envelope_to"] == ""
    assert parsed[2]["source_ip"] == "2001:db8::1"
    assert parsed[2]["spf_scopes"] == "helo"


def test_json_output_keeps_lists_and_booleans() -> None:
    out = io.StringIO()
    assert write_json(export_rows([INDEX_MAP, ARRAY]), out) == 6
    rows = json.loads(out.getvalue())
    assert [r["id"] for r in rows] == ["r1"] * 3 + ["r2"] * 3
    assert rows[0]["dkim_domains"] == ["example.com", "esp.example"]
    assert rows[0]["dmarc_pass"] is True
    assert rows[1]["source_ip"] is None
    assert list(rows[0]) == list(COLUMNS)


def test_empty_input_gives_header_only_csv_and_empty_json_array() -> None:
    out = io.StringIO(newline="")
    assert write_csv(export_rows([stored({})]), out) == 0
    assert out.getvalue().strip() == ",".join(COLUMNS)
    js = io.StringIO()
    write_json([], js)
    assert json.loads(js.getvalue()) == []


@pytest.mark.parametrize("report", [INDEX_MAP, ARRAY, INDEX_MAP["report"]])
def test_message_counts(report: dict[str, Any]) -> None:
    assert total_messages(report) == 14
    assert pass_messages(report) == 12
    assert failed_messages(report) == 2


def test_message_counts_ignore_bad_counts() -> None:
    report = stored({"0": {**RECORD_B, "count": -3}, "1": {**RECORD_A, "count": "5"}, "2": RECORD_C})
    assert total_messages(report) == 7
    assert pass_messages(report) == 7
    assert failed_messages(report) == 0
