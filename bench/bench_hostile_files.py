"""Time and peak memory of the importer on each hostile file, each in a fresh interpreter.

Run: .venv/bin/python bench/bench_hostile_files.py (or -m bench.bench_hostile_files)
Prints one line per file of the hostile corpus (tests/hostile_files/corpus.py):
outcome, seconds and peak RSS of the process that loaded it.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run as a script too, like the other benches

from bench.hostile_corpus import CASES, write_case  # noqa: E402
from bench.hostile_measure import load_in_child  # noqa: E402


def main() -> None:
    with tempfile.TemporaryDirectory() as directory:
        print(f"{'file':32} {'bytes':>10} {'outcome':9} {'seconds':>8} {'peak MB':>8}")
        for case in CASES:
            path = write_case(case, Path(directory))
            measured = load_in_child(path, timeout=120)
            print(f"{case.name:32} {path.stat().st_size:>10,} {measured.status:9} "
                  f"{measured.seconds:>8.2f} {measured.peak_mb:>8.1f}", flush=True)


if __name__ == "__main__":
    main()
