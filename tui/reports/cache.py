"""Report digests kept for analytics, in memory and optionally on disk.

A received report never changes, so its digest, once computed, is good until the
report is deleted. Entries are keyed by the server and the report's id. On disk the
cache is one JSON file per server under ``data_dir()``, written owner-only (0600),
because report contents name the organisation's mail sources.
"""

from __future__ import annotations

import hashlib
import json
from collections import OrderedDict
from collections.abc import Iterable
from pathlib import Path

from jmapclient.config import data_dir, write_private
from jmapclient.dmarc.analytics import ReportDigest

MAX_ENTRIES = 20_000
"""Bounds memory and the file; the oldest entries go first."""


def cache_file(server: str) -> Path:
    name = hashlib.sha256(server.encode()).hexdigest()[:16]
    return data_dir() / "dmarc-digests" / f"{name}.json"


class DigestCache:
    def __init__(self, path: Path | None = None, *, max_entries: int = MAX_ENTRIES) -> None:
        self.path = path
        self.max_entries = max_entries
        self._items: OrderedDict[str, ReportDigest] = OrderedDict()
        self._dirty = False
        if path is not None:
            self._load(path)

    def _load(self, path: Path) -> None:
        try:
            data = json.loads(path.read_text())
            for entry in data.get("digests", []):
                digest = ReportDigest.from_json(entry)
                self._items[digest.id] = digest
        except (OSError, ValueError, KeyError, TypeError):
            # A missing or damaged cache only costs a refetch.
            self._items.clear()

    def __contains__(self, report_id: str) -> bool:
        return report_id in self._items

    def __len__(self) -> int:
        return len(self._items)

    def get(self, report_id: str) -> ReportDigest | None:
        return self._items.get(report_id)

    def missing(self, ids: Iterable[str]) -> list[str]:
        return [i for i in ids if i not in self._items]

    def put(self, digest: ReportDigest) -> None:
        self._items[digest.id] = digest
        self._items.move_to_end(digest.id)
        while len(self._items) > self.max_entries:
            self._items.popitem(last=False)
        self._dirty = True

    def discard(self, ids: Iterable[str]) -> None:
        for report_id in ids:
            if self._items.pop(report_id, None) is not None:
                self._dirty = True

    def save(self) -> None:
        if self.path is None or not self._dirty:
            return
        payload = {"digests": [d.to_json() for d in self._items.values()]}
        write_private(self.path, json.dumps(payload, separators=(",", ":")).encode())
        self._dirty = False
