"""The test suite as CI runs it: wall time, CPU time and how busy the cores were.

Runs the README's test command (``python -m pytest``, in parallel as ``pyproject.toml`` says)
``--runs`` times in a row and prints, for each run and as a median: the wall seconds (issue 17
asks for at most 180 s on 2 cores), the CPU seconds of every test process together (user +
system), the share of the machine's cores that CPU kept busy over the wall time, and the
tests counted. Busy near 100 % means the suite is bound by CPU and only less work makes it
faster; well below, the workers wait (sleeps, the end of the run with one test left).

The machine's load average is printed before each run: figures taken beside other work are
not comparable, and the bench says so rather than hide it.

    python bench/bench_suite.py [--runs 3] [-- extra pytest arguments]
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SUMMARY = re.compile(r"(\d+) passed|(\d+) failed")
TARGET_S = 180.0


@dataclass
class Run:
    wall: float
    cpu: float
    passed: int
    failed: int
    load: float

    def line(self, cores: int) -> str:
        busy = self.cpu / (self.wall * cores) * 100
        return (f"wall {self.wall:6.1f} s   cpu {self.cpu:6.1f} s   cores busy {busy:3.0f} %   "
                f"{self.passed} passed, {self.failed} failed   (load before: {self.load:.2f})")


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_suite(extra: list[str]) -> Run:
    load = os.getloadavg()[0]
    cpu_before, started = _children_cpu(), time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *extra],
                          cwd=ROOT, capture_output=True, text=True, check=False)
    wall, cpu = time.perf_counter() - started, _children_cpu() - cpu_before
    passed = failed = 0
    for match in SUMMARY.finditer(done.stdout.splitlines()[-1] if done.stdout else ""):
        passed = int(match.group(1) or passed)
        failed = int(match.group(2) or failed)
    for line in done.stdout.splitlines():
        if line.startswith(("FAILED ", "ERROR ")):
            print(f"  {line}", flush=True)  # a figure from a run that failed is no figure: say which
    return Run(wall, cpu, passed, failed, load)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("pytest_args", nargs="*", help="after --: passed to pytest")
    args = parser.parse_args()
    cores = os.cpu_count() or 1
    print(f"test suite, {cores} cores, {args.runs} run(s); target: at most {TARGET_S:.0f} s wall on 2 cores")
    runs = []
    for number in range(1, args.runs + 1):
        run = run_suite(args.pytest_args)
        runs.append(run)
        print(f"run {number}: {run.line(cores)}", flush=True)
    median = Run(statistics.median(r.wall for r in runs), statistics.median(r.cpu for r in runs),
                 runs[-1].passed, runs[-1].failed, statistics.median(r.load for r in runs))
    print(f"median: {median.line(cores)}")


if __name__ == "__main__":
    main()
