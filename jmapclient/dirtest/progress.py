"""Where a running live test is, in one line: its step, the server it reaches, the seconds so far.

A step may wait up to its whole bound on a silent server (ten seconds, by default); until then the
report has nothing to show, so the console says this line instead, from the steps ended so far.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any
from urllib.parse import urlsplit

from jmapclient.dirtest.steps import PLANS
from jmapclient.models._base import SERVICE_NAME


def store_where(store: Mapping[str, Any]) -> str:
    """A SQL store as a person names it: the file of SQLite, else ``host:port/database``."""
    if store.get("@type") == "Sqlite":
        return str(store.get("path"))
    return f"{store.get('host')}:{store.get('port')}/{store.get('database') or SERVICE_NAME}"


def _url_shown(url: str) -> str:
    """``url`` without a user or password in it (they are secrets on a screen), its query or its fragment."""
    parts = urlsplit(url)
    host = parts.netloc.rpartition("@")[2]
    return f"{parts.scheme}://{host}{parts.path}" if parts.scheme else url


def server_of(wire: Mapping[str, Any]) -> str:
    """The server a live test of the directory ``wire`` reaches, as its settings name it."""
    kind = wire.get("@type")
    if kind == "Sql":
        store = wire.get("store")
        return store_where(store) if isinstance(store, Mapping) else "the server's own store"
    return _url_shown(str(wire.get("url" if kind == "Ldap" else "issuerUrl") or ""))


def running_line(wire: Mapping[str, Any], ended: Collection[str], seconds: float) -> str:
    """``Testing… step 2 of 8: TLS · ldaps://ldap.example:636 · 3 s``: the first planned step not ended yet
    (``ended``: the names of the steps the report holds) is the one under way."""
    plan = PLANS.get(str(wire.get("@type")), ())
    running = next((at for at, name in enumerate(plan) if name not in ended), None)
    step = f"step {running + 1} of {len(plan)}: {plan[running]}" if running is not None else "finishing"
    return f"Testing… {step} · {server_of(wire)} · {int(seconds)} s"
