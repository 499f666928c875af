"""An in-process stub for fuzzing: the ASGI app called directly, and the store's rows as a snapshot.

Every example starts from the same stored rows (``baseline``): after a call that changed
anything, :meth:`FuzzStub.restore` puts the baseline back, so examples are independent and
hypothesis can shrink a failure to the same result.

Most examples are rejected and write nothing. SQLite counts every row a statement inserts,
updates or deletes on the connection (``total_changes``, rolled-back ones included); while that
count stands where the baseline was last put back, the rows are the baseline and
:meth:`FuzzStub.rows` returns it without reading every table again.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
from dataclasses import dataclass
from typing import Any

from jmapclient.session import CORE_CAPABILITY
from server_stub.app import create_app
from server_stub.auth import standard_registry
from server_stub.demo_data import seed_store
from server_stub.profiles import server_profile
from server_stub.store import Store

ADMIN = "fuzz-admin-token"
READONLY = "fuzz-readonly-token"
HOST = b"stub.test"

Snapshot = dict[str, list[tuple[Any, ...]]]


def _tables(db: sqlite3.Connection) -> list[str]:
    rows = db.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
    return [row[0] for row in rows]


def snapshot(store: Store) -> Snapshot:
    """Every row of every table (the stub keeps a handful of objects while fuzzing, so this is cheap)."""
    with store.reading() as db:
        return {table: db.execute(f"SELECT * FROM {table} ORDER BY 1, 2").fetchall() for table in _tables(db)}


def restore(store: Store, rows: Snapshot) -> None:
    """Put ``rows`` back exactly, ids and sequence counters included."""
    # Children (JSON and word rows) reference their parent row: clear them first, fill them last.
    children = sorted(t for t in rows if t.endswith(("_data", "_words")))
    parents = sorted(t for t in rows if t not in children and t != "sqlite_sequence")
    with store.transaction() as db:
        for table in [*children, *parents]:
            db.execute(f"DELETE FROM {table}")
        # Inserting rows with explicit keys moves the AUTOINCREMENT counters: set them last.
        for table in [*parents, *children, "sqlite_sequence"]:
            if table == "sqlite_sequence":
                db.execute("DELETE FROM sqlite_sequence")
            if rows[table]:
                marks = ",".join("?" * len(rows[table][0]))
                db.executemany(f"INSERT INTO {table} VALUES ({marks})", rows[table])


@dataclass
class Answer:
    status: int
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


class FuzzStub:
    """One stub (store, app, event loop) reused by every example of a test."""

    def __init__(self, profile: str = "spec", reports: int = 3) -> None:
        self.profile = server_profile(profile)
        self.store = Store()
        self.demo = seed_store(self.store, reports=reports)
        self.app = create_app(self.store, profile=self.profile, tokens=standard_registry(ADMIN, READONLY))
        self.baseline = snapshot(self.store)
        self._baseline_changes = self._total_changes()
        self.loop = asyncio.new_event_loop()
        self.requests = 0

    def _total_changes(self) -> int:
        with self.store.reading() as db:
            return db.total_changes

    def rows(self) -> Snapshot:
        """The stored rows now (``snapshot``): ``baseline`` itself while they are the baseline's."""
        changes = self._total_changes()
        if changes == self._baseline_changes:
            return self.baseline
        rows = snapshot(self.store)
        if rows == self.baseline:  # written and undone (a rolled-back transaction): still the baseline
            self._baseline_changes = changes
            return self.baseline
        return rows

    def restore(self) -> None:
        """Put the baseline's rows back."""
        restore(self.store, self.baseline)
        self._baseline_changes = self._total_changes()

    @property
    def using(self) -> list[str]:
        return [CORE_CAPABILITY, self.profile.capability]

    def close(self) -> None:
        self.loop.close()
        self.store.close()

    def __enter__(self) -> FuzzStub:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def request(self, method: str, path: str, body: bytes = b"", token: str | None = ADMIN) -> Answer:
        self.requests += 1
        return self.loop.run_until_complete(self._asgi(method, path, body, token))

    def post_api(self, body: bytes, token: str | None = ADMIN) -> Answer:
        return self.request("POST", self.profile.api_path, body, token)

    def calls(self, calls: list[list[Any]], token: str | None = ADMIN) -> Answer:
        return self.post_api(json.dumps({"using": self.using, "methodCalls": calls}).encode(), token)

    async def _asgi(self, method: str, path: str, body: bytes, token: str | None) -> Answer:
        headers = [(b"host", HOST), (b"content-type", b"application/json"),
                   (b"content-length", str(len(body)).encode())]
        if token is not None:
            headers.append((b"authorization", f"Bearer {token}".encode()))
        scope = {
            "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": method,
            "scheme": "http", "path": path, "raw_path": path.encode(), "query_string": b"",
            "headers": headers, "server": ("stub.test", 80), "client": ("127.0.0.1", 50000),
        }
        delivered = False

        async def receive() -> dict[str, Any]:
            nonlocal delivered
            if delivered:
                return {"type": "http.disconnect"}
            delivered = True
            return {"type": "http.request", "body": body, "more_body": False}

        started: dict[str, Any] = {}
        chunks: list[bytes] = []

        async def send(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                started.update(message)
            else:
                chunks.append(message.get("body", b""))

        await self.app(scope, receive, send)
        response_headers = {k.decode().lower(): v.decode() for k, v in started.get("headers", [])}
        return Answer(started["status"], response_headers, b"".join(chunks))
