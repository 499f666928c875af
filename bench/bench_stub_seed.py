"""Seeding the stub: time, CPU, peak memory and database size for 1k, 10k and 100k demo reports.

Run: ``python bench/bench_stub_seed.py [--sizes 1000,10000,100000]``. Each size seeds a
fresh temporary SQLite file in its own process, so the peak RSS printed is that seed's
alone (``ru_maxrss`` of a process that imported the stub and seeded, nothing else).
Targets at 100,000 reports: at most 30 s and 400 MB. Sizes are capped at 200,000.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

MAX_SIZE = 200_000
CHILD_TIMEOUT = 900


def seed_once(size: int, path: Path) -> dict[str, float]:
    """In this process: seed ``size`` reports into ``path``; the figures as a dict."""
    from server_stub.demo_data import seed_store
    from server_stub.store import Store

    store = Store(path)
    wall, cpu = time.perf_counter(), time.process_time()
    seed_store(store, reports=size, directories=False)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    store.close()
    return {"wall": wall, "cpu": cpu, "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
            "bytes": os.path.getsize(path)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--path", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child is not None:
        print(json.dumps(seed_once(args.child, Path(args.path))))
        return 0
    print(f"{'reports':>9} {'wall s':>8} {'CPU s':>7} {'µs/report':>10} {'peak RSS MB':>12} {'DB B/report':>12}")
    with tempfile.TemporaryDirectory() as directory:
        for size in (min(int(s), MAX_SIZE) for s in args.sizes.split(",")):
            path = Path(directory) / f"seed-{size}.sqlite3"
            child = subprocess.run([sys.executable, __file__, "--child", str(size), "--path", str(path)],
                                   capture_output=True, text=True, check=True, timeout=CHILD_TIMEOUT)
            got = json.loads(child.stdout.strip().splitlines()[-1])
            print(f"{size:>9,} {got['wall']:8.1f} {got['cpu']:7.1f} {got['cpu'] / size * 1e6:10.0f} "
                  f"{got['rss_mb']:12.0f} {got['bytes'] / size:12.0f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
