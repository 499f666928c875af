"""Concurrency (issue 8.3): 20 clients on loopback mixing get, query and set, bounded in count and time.

No error but ``stateMismatch`` (and only where ``ifInState`` was sent), and a final state that
reconciles with every client's acknowledged changes (see ``workload.final_state_problems``).
"""

from __future__ import annotations

from bench.workload import final_state_problems, run_load
from server_stub.runner import StubServer

CLIENTS = 20
# Bounded by count first: every client does its steps, however busy the machine (a 3 s window
# left some clients with fewer than 5 operations when other tests ran beside this one).
# The time bound only stops a hung run.
SECONDS = 30.0
MAX_STEPS = 30
REPORTS = 40


async def test_twenty_clients_mixed_load_stays_consistent():
    with StubServer(reports=REPORTS) as server:
        result = await run_load(server.base_url, server.admin_token, clients=CLIENTS, seconds=SECONDS,
                                max_steps=MAX_STEPS)
        problems = await final_state_problems(server.base_url, server.admin_token, result, baseline_count=3)
    assert result.errors == []
    assert problems == []
    done = sum((t.operations for t in result.tallies), start=result.tallies[0].operations.__class__())
    # Every kind of operation really ran, from every client, and the counter saw real contention.
    assert set(done) == {"get", "query", "query_reports", "create", "update", "destroy", "increment"}
    assert all(sum(t.operations.values()) >= 5 for t in result.tallies)
    assert sum(t.increments for t in result.tallies) > 0
    assert result.seconds < SECONDS + 10
