"""The rows of a report's records table, in order, made into cells only when they are added.

A report of 5,000 records once took 12 times its ``get`` to show its table (every row built and
measured first). Rows are now added as they come near the screen. What is still to add is kept as
plain record indexes and service names: neither is an object the garbage collector walks, so a big
report's plan adds no work to the collections that run while the table is drawn (building a
``functools.partial`` and a tuple for each record did: about 15,000 objects a visit, and a full
collection of the console's heap, about 0.1 s, fell inside most visits).
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import islice

from jmapclient.dmarc.insight.judge import JudgedRecord
from jmapclient.models.dmarc import DmarcReportRecord

RecordGroups = list[tuple[str, list[tuple[int, JudgedRecord | None]]]]
"""A report's records by service: each service's name and its records (index, judgement or None)."""

Entry = int | str
"""A row of the table: a record's index, or a service's name (its heading row, above its records)."""


def heading_key(service: str) -> str:
    return f"group\x00{service}"


class RecordRows:
    """The table's rows of one choice (all records, or failing DMARC only), and how many were added."""

    def __init__(self, groups: RecordGroups, records: Sequence[DmarcReportRecord], *, failing_only: bool) -> None:
        self.records = records
        self.judged: list[JudgedRecord | None] = [None] * len(records)
        """Each record's judgement, by index (one list for the whole report)."""
        self.entries: list[Entry] = []
        """Every row, added or still to add, in the table's order."""
        self.added = 0
        """How many of :attr:`entries` are in the table: always its first rows."""
        self.record_count = 0
        """How many records the rows show (the headings not counted)."""
        for service, members in groups:
            heading_at = len(self.entries)
            if service:
                self.entries.append(service)
            for index, judged in members:
                self.judged[index] = judged
                if not (failing_only and records[index].passes_dmarc):
                    self.entries.append(index)
                    self.record_count += 1
            if service and len(self.entries) == heading_at + 1:
                self.entries.pop()  # none of its records shown: no heading either

    def shown(self) -> list[int]:
        """Indexes of the records shown, in the table's order (the services' heading rows left out)."""
        return [entry for entry in self.entries if isinstance(entry, int)]

    @property
    def left(self) -> int:
        """Rows still to add."""
        return len(self.entries) - self.added

    def take(self, count: int) -> range:
        """The positions of the next ``count`` rows to add (fewer at the end), counted as added."""
        taken = range(self.added, min(self.added + count, len(self.entries)))
        self.added = taken.stop
        return taken

    def counts_under(self, position: int) -> list[int]:
        """The messages of each record shown under the heading at ``position``."""
        counts = []
        for entry in islice(self.entries, position + 1, None):
            if isinstance(entry, str):
                break
            counts.append(self.records[entry].count)
        return counts
