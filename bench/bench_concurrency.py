"""Throughput and latency of the stub under 20 concurrent clients mixing get, query and set.

The stub runs as its own process (``python -m server_stub`` on 127.0.0.1, a throwaway database,
demo data); the clients are the workload of ``bench/workload.py`` in this process.
Prints requests/s, p50/p90/p99 latency, the operation mix and the consistency check.

    python bench/bench_concurrency.py [--clients 20] [--seconds 10] [--reports 1000]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.serve_process import start_serve, stop_serve  # noqa: E402
from bench.workload import final_state_problems, run_load  # noqa: E402

TOKEN = "bench-concurrency-token"


def start_stub(database: Path, reports: int) -> tuple[subprocess.Popen[str], str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    process, printed = start_serve(["--db", str(database), "--port", "0", "--reports", str(reports),
                                    "--admin-token", TOKEN], env)
    if "url" not in printed or "credentials file" not in printed:
        stop_serve(process)
        raise SystemExit(f"the stub did not start:\n{printed['printed']}")
    return process, printed["url"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--reports", type=int, default=1000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        process, url = start_stub(Path(folder) / "bench.sqlite3", args.reports)
        try:
            result = asyncio.run(run_load(url, TOKEN, clients=args.clients, seconds=args.seconds,
                                          max_steps=1_000_000))
            problems = asyncio.run(final_state_problems(url, TOKEN, result, baseline_count=3))
        finally:
            process.terminate()
            process.wait(timeout=10)
    mix: Counter[str] = Counter()
    for tally in result.tallies:
        mix.update(tally.operations)
    print(f"clients            {args.clients} (stub: separate process, {args.reports} reports, loopback)")
    print(f"duration           {result.seconds:.1f} s")
    print(f"requests           {result.requests}")
    print(f"requests/s         {result.requests / result.seconds:.0f}")
    print(f"latency p50        {result.percentile(0.50) * 1000:.1f} ms")
    print(f"latency p90        {result.percentile(0.90) * 1000:.1f} ms")
    print(f"latency p99        {result.percentile(0.99) * 1000:.1f} ms")
    print(f"operations         {dict(sorted(mix.items()))}")
    print(f"stateMismatch      {sum(t.state_mismatches for t in result.tallies)} "
          f"(increments acknowledged: {sum(t.increments for t in result.tallies)})")
    print(f"errors             {len(result.errors)}")
    print(f"consistency        {'ok' if not problems else '; '.join(problems)}")


if __name__ == "__main__":
    main()
