"""How fast the stub answers a filtered, sorted page over 1k, 10k and 100k DMARC reports.

Run: ``python bench/bench_stub_query.py [--sizes 1000,10000,100000] [--repeat 20]``.
For each size it bulk-loads demo reports into a temporary SQLite file (and prints how
long that took), then times queries through the full JMAP method path (envelope,
filter-to-SQL, index lookups) in process, without HTTP. Bounded: a fixed number of
repeats per query, sizes capped at 200,000.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from jmapclient.session import CORE_CAPABILITY, SPEC_CAPABILITY
from server_stub.auth import Principal, all_permissions
from server_stub.demo_data import seed_store
from server_stub.methods.context import CallContext
from server_stub.profiles import SPEC
from server_stub.protocol import Dispatcher
from server_stub.store import Store

MAX_SIZE = 200_000
NEWEST_FIRST = [{"property": "receivedAt", "isAscending": False}]
QUERIES: dict[str, dict[str, Any]] = {
    "newest page, no filter": {"sort": NEWEST_FIRST, "limit": 50},
    "domain + newest, total": {"filter": {"domain": "example.org"}, "sort": NEWEST_FIRST, "limit": 50,
                               "calculateTotal": True},
    "failed>40 + newest": {"filter": {"totalFailedSessionsIsGreaterThan": 40}, "sort": NEWEST_FIRST, "limit": 50},
    "text AND expires<, by expiry": {
        "filter": {"text": "lists.community.example", "expiresAtIsLessThan": "2026-05-01T00:00:00Z"},
        "sort": [{"property": "expiresAt"}], "limit": 50},
    "OR of domains, page 100": {
        "filter": {"operator": "OR", "conditions": [{"domain": "example.dev"}, {"domain": "shop.example.net"}]},
        "sort": NEWEST_FIRST, "position": 200, "limit": 50},
    "query + get of 50 (one request)": {},
}


def _request(arguments: dict[str, Any]) -> dict[str, Any]:
    if arguments:
        calls = [["x:DmarcExternalReport/query", arguments, "q"]]
    else:
        reference = {"resultOf": "q", "name": "x:DmarcExternalReport/query", "path": "/ids"}
        calls = [["x:DmarcExternalReport/query", {"sort": NEWEST_FIRST, "limit": 50}, "q"],
                 ["x:DmarcExternalReport/get", {"#ids": reference}, "g"]]
    return {"using": [CORE_CAPABILITY, SPEC_CAPABILITY], "methodCalls": calls}


def bench(size: int, repeat: int, directory: Path) -> None:
    store = Store(directory / f"bench-{size}.sqlite3")
    summary = seed_store(store, reports=size, directories=False)
    print(f"\n{size:,} reports ({summary.records:,} records): generated, validated and loaded "
          f"in {summary.seconds:.1f}s ({summary.seconds / size * 1e6:.0f} µs/report)")
    dispatcher = Dispatcher(SPEC)
    principal = Principal("bench", all_permissions())
    for label, arguments in QUERIES.items():
        request = _request(arguments)
        timings = []
        for _ in range(repeat):
            started = time.perf_counter()
            answer = dispatcher.run(request, CallContext(store, SPEC, principal), "s")
            timings.append((time.perf_counter() - started) * 1000)
        first = answer["methodResponses"][0]
        assert first[0] != "error", first
        found = len(first[1]["ids"])
        total = first[1].get("total")
        extra = f", total {total}" if total is not None else ""
        print(f"  {label:34s} median {statistics.median(timings):7.2f} ms  max {max(timings):7.2f} ms"
              f"  ({found} ids{extra})")
    store.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    sizes = [min(int(s), MAX_SIZE) for s in args.sizes.split(",")]
    with tempfile.TemporaryDirectory() as directory:
        for size in sizes:
            bench(size, max(1, min(args.repeat, 200)), Path(directory))
    return 0


if __name__ == "__main__":
    sys.exit(main())
