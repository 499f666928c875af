"""The shape a report's raw wire form must have before it is counted, listed or exported.

The inbox, the export and analytics read reports as the server sent them (named properties,
no typed parsing: it is much faster). A server may lie, so before any of them walks a report
this says, in words, what in it cannot be walked: a ``report`` that is no object, ``records``
that are no list, a record that is no object, a result list that is no list... That one report
is then left out with its reason, and the rest goes on.

Only the containers are checked, and each record's message count, which is summed: a count
past JMAP's UnsignedInt (2^53 - 1) would make every total it joins a lie. Any other value of
the wrong type (a number for a domain) is shown or written as text by each reader.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from jmapclient.answers import UNREADABLE_KEY
from jmapclient.display import safe_text
from jmapclient.dmarc.wirelists import iter_wire_list
from jmapclient.encoding import MAX_UNSIGNED_INT

RECORD_LISTS = ("dkimResults", "spfResults", "policyOverrideReasons", "extensions")
"""A record's lists of objects, each walked by some reader."""


def _wire_list_problem(value: Any, where: str) -> str | None:
    """Why ``value`` is no list of objects (an index map or an array, or absent), or None."""
    if value is not None and not isinstance(value, Mapping | list | tuple):
        return f"{where} should be a list, not {type(value).__name__}"
    for position, item in enumerate(iter_wire_list(value)):
        if not isinstance(item, Mapping):
            return f"{where} item {position} should be an object, not {type(item).__name__}"
    return None


def report_problem(wire: Any) -> str | None:
    """Why the raw report ``wire`` (``{"id": ..., "report": {...}}``, or a bare report) cannot be read, or None."""
    if not isinstance(wire, Mapping):
        return f"the report should be an object, not {type(wire).__name__}"
    if UNREADABLE_KEY in wire:  # set aside by the client's get (jmapclient/objects.py)
        return str(wire[UNREADABLE_KEY])
    report = wire.get("report")
    if report is None:
        report = wire  # a DmarcReport given bare, as the readers take it
    elif not isinstance(report, Mapping):
        return f"report should be an object, not {type(report).__name__}"
    if problem := _wire_list_problem(report.get("records"), "records"):
        return problem
    for position, record in enumerate(iter_wire_list(report.get("records"))):
        count = record.get("count")
        if count is not None and (isinstance(count, bool) or not isinstance(count, int)
                                  or not 0 <= count <= MAX_UNSIGNED_INT):
            return f"record {position} count should be a whole number from 0 to {MAX_UNSIGNED_INT}"
        for name in RECORD_LISTS:
            if problem := _wire_list_problem(record.get(name), f"record {position} {name}"):
                return problem
    return None


def unreadable_note(wire: Any, problem: str, outcome: str = "left out") -> str:
    """One line naming the report (its server id, shown safely), what became of it, and why."""
    report_id = wire.get("id") if isinstance(wire, Mapping) else None
    return f"report {safe_text(report_id, max_len=80)} {outcome}: {problem}"
