"""Durability (issue 8.2): SIGKILL the stub in the middle of a stream of set calls, restart it on
the same database file, and find every change it acknowledged, in a database that passes
``PRAGMA integrity_check``.
"""

from __future__ import annotations

import os
import signal
import sqlite3
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from bench.serve_process import start_serve, stop_serve
from jmapclient.models.objects import DIRECTORY
from jmapclient.session import CORE_CAPABILITY, SPEC_CAPABILITY

TOKEN = "durability-admin-token"
ROUNDS = 2
KILL_AFTER_ACKS = (40, 25)
"""Acknowledged requests before each SIGKILL; the stream keeps sending while the kill lands."""
MAX_REQUESTS = 400
STREAM_SECONDS = 20.0


@dataclass
class Ledger:
    """What the server acknowledged: the expected description of each live id, and destroyed ids."""

    live: dict[str, str] = field(default_factory=dict)
    destroyed: set[str] = field(default_factory=set)
    acknowledged: int = 0
    failures: list[str] = field(default_factory=list)
    in_flight: dict[str, str | None] = field(default_factory=dict)
    """Changes of the request the kill interrupted (None: a destroy): each may or may not have landed."""

    def settle(self, found: dict[str, str]) -> None:
        """Resolve the interrupted request from what the restarted server holds: all or nothing per object."""
        for object_id, intended in self.in_flight.items():
            actual = found.get(object_id)
            assert actual in (self.live[object_id], intended), f"{object_id} holds {actual!r}"
            if actual is None:
                del self.live[object_id]
                self.destroyed.add(object_id)
            else:
                self.live[object_id] = actual
        self.in_flight.clear()


def _set(http: httpx.Client, url: str, arguments: dict[str, Any]) -> dict[str, Any]:
    body = {"using": [CORE_CAPABILITY, SPEC_CAPABILITY], "methodCalls": [[DIRECTORY.method("set"), arguments, "s"]]}
    response = http.post(url, json=body, headers={"Authorization": f"Bearer {TOKEN}"})
    response.raise_for_status()
    name, result, _ = response.json()["methodResponses"][0]
    assert name == DIRECTORY.method("set"), result
    return result


def _stream(api_url: str, ledger: Ledger, round_number: int, stop: threading.Event) -> None:
    """Create one directory per request; every third also renames an earlier one, every fifth destroys one."""
    deadline = time.monotonic() + STREAM_SECONDS
    with httpx.Client(timeout=5) as http:
        for step in range(MAX_REQUESTS):
            if stop.is_set() or time.monotonic() > deadline:
                return
            arguments: dict[str, Any] = {"create": {"c": {
                "@type": "Oidc", "description": f"r{round_number}-item-{step}", "issuerUrl": "https://sso.example.com",
            }}}
            earlier = sorted(ledger.live)
            renamed = earlier[step % len(earlier)] if earlier and step % 3 == 0 else None
            if renamed:
                arguments["update"] = {renamed: {"description": f"r{round_number}-renamed-{step}"}}
            doomed = earlier[-1] if earlier and step % 5 == 4 and earlier[-1] != renamed else None
            if doomed:
                arguments["destroy"] = [doomed]
            ledger.in_flight = {**({renamed: f"r{round_number}-renamed-{step}"} if renamed else {}),
                                **({doomed: None} if doomed else {})}
            try:
                result = _set(http, api_url, arguments)
            except (httpx.HTTPError, OSError):
                return  # the server is gone: this request was never acknowledged
            ledger.in_flight = {}
            if result["notCreated"] or result["notUpdated"] or result["notDestroyed"]:
                ledger.failures.append(str(result))
            ledger.live[result["created"]["c"]["id"]] = f"r{round_number}-item-{step}"
            if renamed:
                ledger.live[renamed] = f"r{round_number}-renamed-{step}"
            if doomed:
                del ledger.live[doomed]
                ledger.destroyed.add(doomed)
            ledger.acknowledged += 1


def _descriptions(api_url: str, ids: list[str]) -> tuple[dict[str, str], list[str]]:
    """Descriptions of the ``ids`` that exist, and the ids that do not."""
    body = {"using": [CORE_CAPABILITY, SPEC_CAPABILITY], "methodCalls": [[DIRECTORY.method("get"), {"ids": ids}, "g"]]}
    answer = httpx.post(api_url, json=body, headers={"Authorization": f"Bearer {TOKEN}"}, timeout=10).json()
    got = answer["methodResponses"][0][1]
    return {item["id"]: item["description"] for item in got["list"]}, got["notFound"]


def _api_url(base: str) -> str:
    return httpx.get(base + "/jmap/session", headers={"Authorization": f"Bearer {TOKEN}"}, timeout=5).json()["apiUrl"]


def test_sigkill_mid_stream_loses_no_acknowledged_change(tmp_path: Path):
    database = tmp_path / "durable.sqlite3"
    env = {**os.environ, "MAILADMIN_DATA": str(tmp_path), "PYTHONPATH": str(Path.cwd())}
    arguments = ["--db", str(database), "--port", "0", "--reports", "0", "--admin-token", TOKEN]
    ledger = Ledger()
    for round_number, kill_after in enumerate(KILL_AFTER_ACKS[:ROUNDS]):
        process, lines = start_serve(arguments, env)
        try:
            api_url = _api_url(lines["url"])
            ledger.settle(_descriptions(api_url, list(ledger.in_flight))[0])
            stop = threading.Event()
            writer = threading.Thread(target=_stream, args=(api_url, ledger, round_number, stop), daemon=True)
            target = ledger.acknowledged + kill_after
            writer.start()
            deadline = time.monotonic() + STREAM_SECONDS
            while ledger.acknowledged < target and writer.is_alive() and time.monotonic() < deadline:
                time.sleep(0.002)
            os.kill(process.pid, signal.SIGKILL)  # no shutdown, no checkpoint: as a crash would
            process.wait(timeout=10)
            stop.set()
            writer.join(timeout=10)
            assert not writer.is_alive()
            assert ledger.acknowledged >= target, "the stream ended before the kill"
        finally:
            if process.poll() is None:
                stop_serve(process)
    assert not ledger.failures

    process, lines = start_serve(arguments, env)
    try:
        api_url = _api_url(lines["url"])
        ledger.settle(_descriptions(api_url, list(ledger.in_flight))[0])
        found, not_found = _descriptions(api_url, sorted(ledger.live) + sorted(ledger.destroyed))
    finally:
        stop_serve(process)
    assert ledger.acknowledged >= sum(KILL_AFTER_ACKS[:ROUNDS])
    assert {i: found.get(i) for i in ledger.live} == ledger.live  # every acknowledged create and rename
    assert set(not_found) == ledger.destroyed  # every acknowledged destroy
    with sqlite3.connect(database) as db:
        assert db.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        assert db.execute("PRAGMA foreign_key_check").fetchall() == []
