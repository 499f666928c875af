"""Message counts of a DMARC report, shared by the exporter, the TUI and the CLI.

A record passes DMARC when either evaluated verdict is `pass` (RFC 7489 section
6.6.2: one aligned pass suffices). This matches the stub's definition of
totalSuccessfulSessions / totalFailedSessions (wire-notes.md).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from jmapclient.dmarc.wirelists import iter_wire_list


def record_passes(record: Mapping[str, Any]) -> bool:
    return record.get("evaluatedDkim") == "pass" or record.get("evaluatedSpf") == "pass"


def record_count(record: Mapping[str, Any]) -> int:
    count = record.get("count", 0)
    return count if isinstance(count, int) and count >= 0 else 0


def iter_records(report: Mapping[str, Any]) -> Iterator[Mapping[str, Any]]:
    """Records of a DmarcReport, or of a DmarcExternalReport (its `report`)."""
    inner = report.get("report")
    body = inner if isinstance(inner, Mapping) else report
    yield from iter_wire_list(body.get("records"))


def total_messages(report: Mapping[str, Any]) -> int:
    return sum(record_count(r) for r in iter_records(report))


def pass_messages(report: Mapping[str, Any]) -> int:
    return sum(record_count(r) for r in iter_records(report) if record_passes(r))


def failed_messages(report: Mapping[str, Any]) -> int:
    return sum(record_count(r) for r in iter_records(report) if not record_passes(r))
