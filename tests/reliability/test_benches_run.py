"""Every bench under ``bench/`` runs to its end, once, on a small size (seconds each).

A bench is run by hand, rarely, and a change elsewhere had broken one unseen
(``bench_dmarc_console.py`` gave up waiting for a next page). Here each runs as a person
would run it, in its own process and temp directory; its figures are not judged, only that
it finished and printed them. Run only these: ``pytest -m bench``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.samples import SAMPLES

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "bench"

SMALL_RUNS: dict[str, list[str]] = {
    # Each stub-backed bench its own size: they keep seeded databases by size in the temp directory.
    "bench_concurrency": ["--clients", "2", "--seconds", "1", "--reports", "50"],
    "bench_dmarc_advice": ["--sizes", "210", "--flood", "12000"],  # past the 10,000 judged: the rest counted
    "bench_dmarc_analytics": ["--sizes", "220"],
    "bench_dmarc_console": ["--sizes", "400"],
    "bench_dmarc_fetch": ["--size", "270", "--rounds", "1", "--phases"],
    "bench_dmarc_import": ["--rounds", "1"],
    "bench_export_memory": ["--sizes", "250,260", "--rounds", "1"],
    "bench_hostile_files": [],
    "bench_inbox_marks": ["--reports", "60", "--presses", "4"],
    "bench_import_scale": ["--small", "100", "--large", "300", "--files", "40", "--rounds", "1"],
    "bench_parse_vs_parsedmarc": ["--rounds", "1", "--passes", "1"],  # ours alone: no parsedmarc in CI
    "bench_records_table": ["--records", "300", "--rounds", "1"],
    "bench_startup": ["--runs", "1"],
    "bench_startup_side_by_side": ["--before", ".", "--runs", "1", "--no-console"],  # this tree against itself
    "bench_stub_get": ["--reports", "100", "--rounds", "1"],
    "bench_stub_query": ["--sizes", "230", "--repeat", "1"],
    "bench_stub_seed": ["--sizes", "240"],
    "bench_typed_ahead": ["--rounds", "1"],
    "bench_suite": ["--runs", "1", "--", "tests/test_rules.py", "-n", "0", "-p", "no:cacheprovider"],
    "explore": ["--minutes", "0.02"],
}
NEEDS_SAMPLES = {"bench_dmarc_import", "bench_import_scale", "bench_parse_vs_parsedmarc", "bench_records_table"}
TIMEOUT = 240


def test_every_bench_has_a_small_run() -> None:
    runnable = {path.stem for path in BENCH.glob("*.py") if "__main__" in path.read_text(encoding="utf-8")}
    assert runnable == set(SMALL_RUNS)


@pytest.mark.bench
@pytest.mark.parametrize("name", sorted(SMALL_RUNS))
def test_the_bench_runs_to_its_end(name: str, tmp_path: Path) -> None:
    if name in NEEDS_SAMPLES and not SAMPLES.is_dir():
        pytest.skip(f"DMARC sample corpus not found at {SAMPLES}")
    env = {**os.environ, "TMPDIR": str(tmp_path), "MAILADMIN_DATA": str(tmp_path / "data"),
           "MAILADMIN_DMARC_SAMPLES": str(SAMPLES), "TEXTUAL_ANIMATIONS": "none"}
    done = subprocess.run([sys.executable, "-m", f"bench.{name}", *SMALL_RUNS[name]], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=TIMEOUT, check=False)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    assert done.stdout.strip(), "the bench printed no figures"
