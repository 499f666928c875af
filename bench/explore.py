"""The long random exploration of the console: ``python -m bench.explore --minutes 30``.

Prints the steps run, each distinct crash signature with how often it happened, and for each a
reproduction (seed, world, shrunk steps) to paste into a regression test. The engine is
:mod:`bench.explore_engine`; ``tests/tui/exploration/test_explore.py`` runs a bounded slice of it in CI.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import os
import time

from bench.explore_engine import explore


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=10.0, help="how long to explore (default 10)")
    parser.add_argument("--first-seed", type=int, default=1000, help="seeds run from here upwards")
    parser.add_argument("--steps", type=int, default=60, help="steps per episode (default 60)")
    parser.add_argument("--shrink-seconds", type=float, default=90.0, help="time to shrink each new crash")
    args = parser.parse_args()
    os.environ.setdefault("TEXTUAL_ANIMATIONS", "none")
    started = time.monotonic()
    report = asyncio.run(explore(itertools.count(args.first_seed), args.steps, args.minutes * 60,
                                 shrink_budget_s=args.shrink_seconds))
    elapsed = time.monotonic() - started
    print(f"episodes: {report.episodes}  steps: {report.steps}  time: {elapsed:.0f} s  "
          f"steps/s: {report.steps / max(elapsed, 1e-9):.1f}")
    print(f"distinct crashes: {len(report.crashes)}")
    for name, crash in report.crashes.items():
        print(f"\n=== {name}  (seen {report.counts[name]} times; seed {crash.episode.seed}, "
              f"{len(crash.episode.steps)} steps after shrinking)")
        print(crash.episode.replay())
        print(crash.text.rstrip().splitlines()[-1])
        print("\n".join(crash.text.rstrip().splitlines()[-12:]))


if __name__ == "__main__":
    main()
