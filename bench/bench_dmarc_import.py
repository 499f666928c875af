"""Throughput of the DMARC importer over the shared sample corpus.

Prints files/s and records/s; it is a measurement, not a test. Each round parses the whole
corpus once; the figures are the median round's and the fastest round's, by wall clock and by
this process's CPU time (on a shared machine the CPU figures say more: waiting for a core
stretches the wall clock, not the CPU time). Usage:

    python bench/bench_dmarc_import.py [--rounds N] [--samples DIR]

The corpus is found like the tests do: --samples, else $MAILADMIN_DMARC_SAMPLES,
else <repo>/../shared/dmarc-samples.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT))

from jmapclient.dmarc import load_bytes, load_reports  # noqa: E402

MAX_ROUNDS = 100  # keeps an accidental --rounds 1e9 from running all day


def default_samples() -> Path:
    env = os.environ.get("MAILADMIN_DMARC_SAMPLES")
    return Path(env) if env else REPO_ROOT / ".." / "shared" / "dmarc-samples"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5, help=f"1..{MAX_ROUNDS} (default 5)")
    parser.add_argument("--samples", type=Path, default=default_samples())
    args = parser.parse_args()
    rounds = max(1, min(args.rounds, MAX_ROUNDS))
    folder: Path = args.samples.resolve()
    if not folder.is_dir():
        print(f"sample corpus not found: {folder}", file=sys.stderr)
        return 2

    # Read once so the figures measure parsing, not the disk.
    paths = [r.path for r in load_reports([folder])]
    contents = [(p, p.read_bytes()) for p in paths]
    now = datetime.now(UTC)

    files = records = rejected = 0
    walls: list[float] = []
    cpus: list[float] = []
    for _ in range(rounds):
        started, started_cpu = time.perf_counter(), time.process_time()
        for path, data in contents:
            result = load_bytes(data, path, now=now)
            if result.wire is None:
                rejected += 1
            else:
                records += len(result.wire["report"]["records"])
        walls.append(time.perf_counter() - started)
        cpus.append(time.process_time() - started_cpu)
        files += len(contents)
    per_round = files // rounds, records // rounds

    print(f"corpus: {folder} ({len(contents)} files)")
    print(f"rounds: {rounds}, elapsed: {sum(walls):.3f} s wall, {sum(cpus):.3f} s CPU")
    print(f"files: {files} ({rejected} rejected), records: {records} total")
    for clock, times in (("wall", walls), ("CPU", cpus)):
        for label, seconds in (("median", statistics.median(times)), ("fastest", min(times))):
            print(f"files/s ({clock}, {label} round): {per_round[0] / seconds:,.1f}")
            print(f"records/s ({clock}, {label} round): {per_round[1] / seconds:,.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
