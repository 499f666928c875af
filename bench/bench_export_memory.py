"""``mailadmin export-dmarc``'s peak memory against the number of reports it exports.

For each size a stub of that many reports runs in its own process (the console benches' seeded
databases, under the system temp directory); the export runs in a fresh process that prints its
own peak resident memory; sizes alternate, medians over ``--rounds``. Target: flat, the largest
at most 1.5× the smallest. Run: ``python bench/bench_export_memory.py [--sizes 1000,10000] [--rounds 3]``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.bench_dmarc_analytics import stub_serving  # noqa: E402
from bench.bench_dmarc_console import TOKEN  # noqa: E402


def child(base_url: str, output: str) -> None:
    """In a fresh process: the export, then its peak RSS (MiB) and seconds as JSON."""
    from mailadmin.main import main

    began = time.perf_counter()
    code = main(["export-dmarc", "--format", "csv", "-o", output, "--url", base_url, "--token", TOKEN])
    seconds = time.perf_counter() - began
    print(json.dumps({"code": code, "peak_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                      "seconds": seconds}))


def export_once(base_url: str, work: Path) -> dict[str, float]:
    output = work / "export.csv"
    done = subprocess.run([sys.executable, __file__, "--child", base_url, str(output)], capture_output=True,
                          text=True, timeout=1800, check=False, cwd=ROOT,
                          env={**os.environ, "MAILADMIN_CONFIG": str(work / "config.toml")})
    if done.returncode:
        raise RuntimeError(f"the export failed:\n{done.stderr[-3000:]}")
    figures: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    if figures["code"]:
        raise RuntimeError(f"the export exited {figures['code']}:\n{done.stderr[-2000:]}")
    output.unlink()
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(*args.child)
        return 0
    sizes = [int(size) for size in args.sizes.split(",")]
    work = Path(tempfile.gettempdir()) / "mailadmin-dmarc-bench"
    work.mkdir(exist_ok=True)
    runs: dict[int, list[dict[str, float]]] = {size: [] for size in sizes}
    with ExitStack() as stack:
        urls = {size: stack.enter_context(stub_serving(size, work, work / f"export-data-{size}")) for size in sizes}
        for _ in range(max(1, args.rounds)):
            for size in sizes:
                runs[size].append(export_once(urls[size], work))
    print(f"{'reports':>9}  {'peak RSS':>9}  {'seconds':>8}")
    peaks = {}
    for size in sizes:
        peaks[size] = statistics.median(r["peak_mib"] for r in runs[size])
        print(f"{size:>9,}  {peaks[size]:>5.0f} MiB  {statistics.median(r['seconds'] for r in runs[size]):>8.2f}")
    print(f"peak RSS, largest / smallest: ×{peaks[max(sizes)] / peaks[min(sizes)]:.2f} (target ≤ 1.5)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
