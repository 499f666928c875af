"""``mailadmin serve`` (server_stub.serve.main) as a user starts it: a real process on loopback."""

from __future__ import annotations

import os
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import pytest

from server_stub.serve import main
from tests.support.serve_process import start_serve, stop_serve


def test_serve_prints_url_and_tokens_and_answers(tmp_path: Path):
    env = {**os.environ, "MAILADMIN_DATA": str(tmp_path), "PYTHONPATH": str(Path.cwd())}
    process, lines = start_serve(["--port", "0", "--reports", "12", "--admin-token", "given-admin"], env)
    try:
        assert lines["admin token"] == "given-admin"
        assert len(lines["read-only token"]) >= 20  # random when not given
        assert lines["url"].startswith("http://127.0.0.1:")
        assert lines["database"] == str(tmp_path / "stub.sqlite3")
        headers = {"Authorization": "Bearer given-admin"}
        session = httpx.get(lines["url"] + "/jmap/session", headers=headers, timeout=5).json()
        body = {"using": ["urn:ietf:params:jmap:core", "urn:service:jmap"],
                "methodCalls": [["x:DmarcExternalReport/query", {"calculateTotal": True}, "q"]]}
        answer = httpx.post(session["apiUrl"], json=body, headers=headers, timeout=5).json()
        assert answer["methodResponses"][0][1]["total"] == 12
        # Seeded up to now, so a person trying `serve` sees current reports, none expired yet.
        body = {"using": ["urn:ietf:params:jmap:core", "urn:service:jmap"], "methodCalls": [
            ["x:DmarcExternalReport/query", {"sort": [{"property": "receivedAt", "isAscending": False}],
                                             "limit": 1}, "q"],
            ["x:DmarcExternalReport/get", {"#ids": {"resultOf": "q", "name": "x:DmarcExternalReport/query",
                                                    "path": "/ids"}}, "g"]]}
        newest = httpx.post(session["apiUrl"], json=body, headers=headers, timeout=5).json()
        report = newest["methodResponses"][1][1]["list"][0]
        now = datetime.now(UTC)
        assert now - timedelta(days=10) < datetime.fromisoformat(report["receivedAt"]) <= now
        assert datetime.fromisoformat(report["expiresAt"]) > now
    finally:
        stop_serve(process)
    assert (tmp_path / "stub.sqlite3").exists()


def test_serve_rejects_bad_arguments(capsys: pytest.CaptureFixture[str]):
    assert main(["--reports", "-1", "--db", ":memory:"]) == 2
    with pytest.raises(SystemExit):
        main(["--profile", "other"])
