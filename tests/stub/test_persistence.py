"""Data survives a restart; the database is SQLite in WAL mode with an index behind every query."""

from __future__ import annotations

import sqlite3
import zlib
from pathlib import Path

from jmapclient import JmapClient
from jmapclient.models.objects import DIRECTORY, DMARC_EXTERNAL_REPORT
from server_stub.demo_data import seed_store
from server_stub.runner import StubServer
from server_stub.schema import REPORT_SCHEMA
from server_stub.store import Store
from tests.support.stub import make_stub


async def test_changes_survive_a_restart_of_the_real_server(tmp_path: Path):
    db = tmp_path / "stub.sqlite3"
    with StubServer(db, reports=10) as first:
        async with JmapClient(first.base_url, first.admin_token, timeout=10) as client:
            new_id = await client.directories.create(
                {"@type": "Oidc", "description": "Survivor", "issuerUrl": "https://idp.example.com"}
            )
            page = await client.dmarc_reports.query()
            await client.dmarc_reports.destroy([page.ids[0]])
            state = (await client.directories.get([new_id])).state
    with StubServer(db, reports=10) as second:  # same file: the demo data is not added again
        async with JmapClient(second.base_url, second.admin_token, timeout=10) as client:
            again = await client.directories.get([new_id])
            assert again.items[0].description == "Survivor" and again.state == state
            assert len((await client.directories.get(None)).items) == 4
            remaining = await client.dmarc_reports.query(calculate_total=True)
            assert remaining.total == 9 and page.ids[0] not in remaining.ids


async def test_a_failed_change_leaves_the_file_untouched(tmp_path: Path):
    db = tmp_path / "stub.sqlite3"
    stub, _ = await make_stub("spec", Store(db), reports=5)
    async with stub.http:
        before = stub.store.get(DIRECTORY, stub.store.all_ids(DIRECTORY))
        _, result = await stub.call(DIRECTORY.method("set"), {"update": {"d1": {"poolMaxConnections": -1}}})
        assert result["notUpdated"]
    stub.store.close()
    reopened = Store(db)
    assert reopened.get(DIRECTORY, reopened.all_ids(DIRECTORY)) == before
    reopened.close()


def test_wal_mode_and_indexes(tmp_path: Path):
    db = tmp_path / "stub.sqlite3"
    Store(db).close()
    connection = sqlite3.connect(db)
    assert connection.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    indexed = {row[2] for name in connection.execute(
        "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ?", (REPORT_SCHEMA.table,)
    ) for row in connection.execute(f"PRAGMA index_info({name[0]})") if row[0] == 0}
    assert {c.name for c in REPORT_SCHEMA.columns} <= indexed
    # A filtered, sorted page is answered from an index, not a scan of the table.
    plan = " ".join(
        row[3] for row in connection.execute(
            f"EXPLAIN QUERY PLAN SELECT id FROM {REPORT_SCHEMA.table} WHERE policy_domain = ? "
            "ORDER BY received_at DESC, seq DESC LIMIT 50", ("example.com",)
        )
    )
    assert "USING INDEX" in plan and "SCAN " + REPORT_SCHEMA.table + " " not in plan + " "
    connection.close()
    assert DMARC_EXTERNAL_REPORT.sorts == tuple(REPORT_SCHEMA.sorts)


def test_a_database_written_before_compaction_still_reads(tmp_path: Path):
    """Objects were stored as JSON text before they were deflated; such a database keeps working."""
    db = tmp_path / "old.sqlite3"
    store = Store(db)
    seed_store(store, reports=3, directories=False)
    ids = store.all_ids(DMARC_EXTERNAL_REPORT)
    stored = store.get(DMARC_EXTERNAL_REPORT, ids)
    with store.transaction() as raw:
        for seq, data in raw.execute("SELECT seq, data FROM dmarc_report_data").fetchall():
            raw.execute("UPDATE dmarc_report_data SET data = ? WHERE seq = ?", (zlib.decompress(data).decode(), seq))
    assert store.get(DMARC_EXTERNAL_REPORT, ids) == stored
    store.close()
