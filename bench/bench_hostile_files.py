"""Time and peak memory of the importer on each hostile file, each in a fresh interpreter.

Run: .venv/bin/python -m bench.bench_hostile_files
Prints one line per file of the hostile corpus (tests/hostile_files/corpus.py):
outcome, seconds and peak RSS of the process that loaded it.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from bench.hostile_corpus import CASES, write_case
from bench.hostile_measure import load_in_child


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
