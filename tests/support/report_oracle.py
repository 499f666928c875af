"""What a DMARC report query should answer, computed from the stored objects, apart from the SQL.

Shared by the stub's query tests: wire-notes.md's definitions of the totals and of ``text``.
"""

from __future__ import annotations

import re
from typing import Any

from jmapclient.models.objects import DMARC_EXTERNAL_REPORT
from tests.support.stub import Stub


def reports(stub: Stub) -> dict[str, dict[str, Any]]:
    return stub.store.get(DMARC_EXTERNAL_REPORT, stub.store.all_ids(DMARC_EXTERNAL_REPORT))


def failed(report: dict[str, Any]) -> int:
    """wire-notes.md: records (at most one each) whose evaluated disposition is not `pass`."""
    records = report["report"]["records"].values()
    return sum(min(r["count"], 1) for r in records if r["evaluatedDisposition"] != "pass")


def passed(report: dict[str, Any]) -> int:
    records = report["report"]["records"].values()
    return sum(min(r["count"], 1) for r in records if r["evaluatedDisposition"] == "pass")


def words(text: str) -> set[str]:
    """wire-notes.md: runs of letters and digits, lowercased, longer than one character."""
    return {w for w in re.findall(r"[^\W_]+", text.lower()) if len(w) > 1}


def holds_words(report: dict[str, Any], value: str) -> bool:
    body = report["report"]
    fields = [body["email"], body["policyDomain"], report["from"]]
    for record in body["records"].values():
        fields += [record.get("envelopeTo") or "", record["envelopeFrom"], record["headerFrom"]]
        fields += [r["domain"] for r in (*record["dkimResults"].values(), *record["spfResults"].values())]
    return words(value) <= set().union(*(words(f) for f in fields))


def seq(report_id: str) -> int:
    return int(report_id[1:])
