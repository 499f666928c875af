"""Where the console keeps report digests for analytics: one SQLite file per server.

The store itself (what a digest holds, how it keeps in step with the server, the
figures) is :class:`jmapclient.dmarc.digest_store.DigestStore`; the console only
chooses the file, under ``data_dir()`` like every other data file, named by a hash of
the server's address so the address itself is not in a file name.
"""

from __future__ import annotations

import contextlib
import hashlib
from pathlib import Path

from jmapclient.config import data_dir
from jmapclient.dmarc.digest_store import DigestStore

LEGACY_SUFFIX = ".json"
"""Earlier versions kept digests as JSON beside it; such a file is removed, not left readable on disk."""


class DigestCache(DigestStore):
    """The inbox holds one, shares it with analytics, and forgets a report it deletes."""

    def __init__(self, path: Path | None = None) -> None:
        if path is not None:
            with contextlib.suppress(OSError):  # not ours to fix; the new cache works without it
                path.with_suffix(LEGACY_SUFFIX).unlink(missing_ok=True)
        super().__init__(path)


def cache_file(server: str) -> Path:
    name = hashlib.sha256(server.encode()).hexdigest()[:16]
    return data_dir() / "dmarc-digests" / f"{name}.sqlite"
