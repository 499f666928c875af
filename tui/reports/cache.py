"""Where the console keeps report digests for analytics: one SQLite file per server.

The store itself (what a digest holds, how it keeps in step with the server, the
figures) is :class:`jmapclient.dmarc.digest_store.DigestStore`; the console only
chooses the file, under ``data_dir()`` like every other data file, named by a hash of
the server's address so the address itself is not in a file name.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from jmapclient.config import data_dir
from jmapclient.dmarc.digest_store import DigestStore

DigestCache = DigestStore
"""The inbox holds one, shares it with analytics, and forgets a report it deletes."""


def cache_file(server: str) -> Path:
    name = hashlib.sha256(server.encode()).hexdigest()[:16]
    return data_dir() / "dmarc-digests" / f"{name}.sqlite"
