"""A mixed get / query / set load from many concurrent clients, and the ledger to check it by.

Used by ``bench/bench_concurrency.py`` (prints requests/s and latency percentiles) and by
``tests/reliability/test_concurrency.py`` (bounded, asserts consistency); it lives in ``bench/`` so
that the benchmark needs nothing from ``tests/``. Each client is its own :class:`JmapClient` (own
connection pool) in one event loop. Clients change only their own directories; they also share
a counter (the ``orgName`` of one DMARC report, a type nothing else writes) that they increment
by compare-and-swap with ``ifInState``: a lost update would show as a counter lower than the
number of acknowledged increments.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections import Counter
from collections.abc import Awaitable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from jmapclient import JmapClient
from jmapclient.errors import JmapError, MethodError

T = TypeVar("T")
COUNTER_PREFIX = "counter="
OPERATIONS = ("get", "query", "query_reports", "create", "update", "destroy", "increment")
WEIGHTS = (3, 3, 2, 2, 2, 1, 2)


def _oidc(description: str) -> dict[str, Any]:
    return {"@type": "Oidc", "description": description, "issuerUrl": "https://sso.example.com/realms/load"}


@dataclass
class Tally:
    """One client's record: what it did, how long each request took, and what it owns."""

    index: int
    operations: Counter[str] = field(default_factory=Counter)
    latencies: list[float] = field(default_factory=list)
    live: dict[str, str] = field(default_factory=dict)
    changes: int = 0
    """Directory changes acknowledged (each bumps the Directory state by one)."""
    increments: int = 0
    state_mismatches: int = 0
    errors: list[str] = field(default_factory=list)


@dataclass
class LoadResult:
    tallies: list[Tally]
    seconds: float
    counter_id: str
    initial_states: tuple[int, int]
    """Directory and DmarcExternalReport states before the load."""

    @property
    def requests(self) -> int:
        return sum(len(t.latencies) for t in self.tallies)

    @property
    def errors(self) -> list[str]:
        return [e for t in self.tallies for e in t.errors]

    def percentile(self, fraction: float) -> float:
        ordered = sorted(x for t in self.tallies for x in t.latencies)
        return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))] if ordered else 0.0


async def _timed(tally: Tally, action: Awaitable[T]) -> T:
    started = time.perf_counter()
    try:
        return await action
    finally:
        tally.latencies.append(time.perf_counter() - started)


async def _increment(client: JmapClient, tally: Tally, counter_id: str) -> None:
    got = await _timed(tally, client.dmarc_reports.get([counter_id], properties=["report"]))
    value = int(got.raw[0]["report"]["orgName"].removeprefix(COUNTER_PREFIX))
    try:
        await _timed(tally, client.dmarc_reports.update(
            counter_id, {"report/orgName": f"{COUNTER_PREFIX}{value + 1}"}, if_in_state=got.state))
    except MethodError as error:
        if error.type != "stateMismatch":  # the one error ifInState may bring
            raise
        tally.state_mismatches += 1
        return
    tally.increments += 1


async def _step(client: JmapClient, tally: Tally, operation: str, rng: random.Random, counter_id: str) -> None:
    directories = client.directories
    own = sorted(tally.live)
    if operation == "get":
        await _timed(tally, directories.get([*rng.sample(own, min(3, len(own))), "d1"]))
    elif operation == "query":
        await _timed(tally, directories.query(sort=[{"property": "id", "isAscending": rng.random() < 0.5}],
                                              limit=20, calculate_total=True))
    elif operation == "query_reports":
        domain_filter = {"totalFailedSessionsIsGreaterThan": rng.randint(0, 50)}
        await _timed(tally, client.dmarc_reports.query_and_get(
            domain_filter, [{"property": "receivedAt", "isAscending": False}], limit=10, properties=["id"]))
    elif operation == "create" or (not own and operation in ("update", "destroy")):
        name = f"c{tally.index}-{tally.operations['create']}"
        created = await _timed(tally, directories.create(_oidc(name)))
        tally.live[created] = name
        tally.changes += 1
        operation = "create"
    elif operation == "update":
        target = rng.choice(own)
        name = f"c{tally.index}-u{tally.operations['update']}"
        await _timed(tally, directories.update(target, {"description": name}))
        tally.live[target] = name
        tally.changes += 1
    elif operation == "destroy":
        target = rng.choice(own)
        result = await _timed(tally, directories.destroy([target]))
        result.raise_for_failures()
        del tally.live[target]
        tally.changes += 1
    else:
        await _increment(client, tally, counter_id)
    tally.operations[operation] += 1


async def _client(base_url: str, token: str, tally: Tally, counter_id: str, deadline: float, max_steps: int) -> None:
    rng = random.Random(tally.index)
    async with JmapClient(base_url, token, timeout=30) as client:
        for _ in range(max_steps):
            if time.monotonic() > deadline:
                return
            operation = rng.choices(OPERATIONS, WEIGHTS)[0]
            try:
                await _step(client, tally, operation, rng, counter_id)
            except JmapError as error:
                tally.errors.append(f"client {tally.index} {operation}: {error}")


async def run_load(
    base_url: str, token: str, *, clients: int = 20, seconds: float = 3.0, max_steps: int = 200
) -> LoadResult:
    """Run ``clients`` concurrent clients for at most ``seconds`` and ``max_steps`` operations each."""
    async with JmapClient(base_url, token, timeout=30) as setup:
        counter_id = (await setup.dmarc_reports.query(limit=1)).ids[0]
        await setup.dmarc_reports.update(counter_id, {"report/orgName": f"{COUNTER_PREFIX}0"})
        initial_states = (int((await setup.directories.get(["d1"])).state),
                          int((await setup.dmarc_reports.get([counter_id])).state))
    tallies = [Tally(index) for index in range(clients)]
    started = time.monotonic()
    deadline = started + seconds
    await asyncio.gather(*(_client(base_url, token, t, counter_id, deadline, max_steps) for t in tallies))
    return LoadResult(tallies, time.monotonic() - started, counter_id, initial_states)


async def final_state_problems(base_url: str, token: str, result: LoadResult, baseline_count: int) -> list[str]:
    """Everything in which the server's final data disagrees with what the clients were told."""
    problems: list[str] = []
    async with JmapClient(base_url, token, timeout=30) as client:
        listed = await client.directories.query(calculate_total=True)
        got = await client.directories.get(listed.ids)
        counter = await client.dmarc_reports.get([result.counter_id], properties=["report"])
    by_id = {item["id"]: item["description"] for item in got.raw}
    live = {object_id: name for tally in result.tallies for object_id, name in tally.live.items()}
    expected_total = baseline_count + len(live)
    if listed.total != expected_total or len(by_id) != expected_total:
        problems.append(f"{listed.total} directories (listed {len(by_id)}), expected {expected_total}")
    for object_id, name in live.items():
        if by_id.get(object_id) != name:
            problems.append(f"{object_id} is {by_id.get(object_id)!r}, its client last set {name!r}")
    owned = {i for i, name in by_id.items() if name.startswith("c") and name[1:].split("-")[0].isdigit()}
    if strays := owned - set(live):
        problems.append(f"directories no client holds: {sorted(strays)}")
    increments = sum(t.increments for t in result.tallies)
    counted = counter.raw[0]["report"]["orgName"]
    if counted != f"{COUNTER_PREFIX}{increments}":
        problems.append(f"counter is {counted!r} after {increments} acknowledged increments")
    changes = sum(t.changes for t in result.tallies)
    for name, state, before, done in (("Directory", got.state, result.initial_states[0], changes),
                                      ("DmarcExternalReport", counter.state, result.initial_states[1], increments)):
        if int(state) != before + done:
            problems.append(f"{name} state {state} != {before} + {done} acknowledged changes")
    return problems
