"""The DMARC import against the server's size, and against its own parsing.

Two ratios, each against its reference measured in the same run, rounds alternating, medians:

1. **Duplicate check flat in the store's size**: re-importing the sample corpus (every file
   already held) into a stub of ``--large`` reports, against the same into a stub of ``--small``.
   Target ≤ 1.5×.
2. **End-to-end import at parse speed**: importing ``--files`` synthetic report files into a
   stub over HTTP (the flow ``mailadmin import-dmarc`` runs), against parsing the same files in
   this process. Target: the import reaches ≥ 60% of the parse speed.

Each stub runs in its own process on an on-disk database: a copy, made afresh for each run, of one
seeded once and never written to (kept under the system temp directory, as the console benches keep
theirs). The imports add to the copy, so every run starts from the size it names: a database kept
from run to run had grown to 7,237 reports under the name of 1,000. Run:
``python bench/bench_import_scale.py [--small 1000] [--large 10000] [--files 1000] [--rounds 3]``;
the corpus comes from ``--samples``, else $MAILADMIN_DMARC_SAMPLES, else <repo>/../shared/dmarc-samples.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.bench_dmarc_analytics import stub_serving  # noqa: E402
from bench.bench_dmarc_console import NOW as SEEDED_AT  # noqa: E402
from bench.bench_dmarc_console import TOKEN, serve  # noqa: E402
from bench.bench_dmarc_import import default_samples  # noqa: E402
from bench.hostile_corpus import RECORD, feedback  # noqa: E402

NOW = datetime(2026, 3, 1, tzinfo=UTC)
RECORDS_A_FILE = 6


async def import_into(base_url: str, folder: Path) -> tuple[float, int, int]:
    """Seconds to import ``folder`` into the server, with the files imported and found held."""
    from jmapclient import JmapClient
    from jmapclient.dmarc.importing import import_reports

    async with JmapClient(base_url, TOKEN, timeout=120) as client:
        began = time.perf_counter()
        outcome = await import_reports(client.dmarc_reports, [folder], now=NOW)
        seconds = time.perf_counter() - began
    if outcome.refused:
        raise RuntimeError(f"the stub refused the import: {outcome.refused}")
    return seconds, len(outcome.summary.imported), len(outcome.summary.duplicates)


def parse_in_process(folder: Path) -> float:
    """Seconds to read and parse every file of ``folder`` here, as the importer reads them."""
    from jmapclient.dmarc.importing import list_report_files
    from jmapclient.dmarc.loader import load_file

    began = time.perf_counter()
    for path in list_report_files([folder]):
        load_file(path, now=NOW)
    return time.perf_counter() - began


def write_files(folder: Path, count: int, tag: str) -> None:
    """``count`` small reports, each with its own id (so each imports once), a few records each."""
    folder.mkdir(parents=True, exist_ok=True)
    records = "".join(RECORD.format(count=index + 1) for index in range(RECORDS_A_FILE))
    for index in range(count):
        (folder / f"{tag}-{index:05}.xml").write_bytes(feedback(report_id=f"{tag}-{index}", records=records))


def duplicate_check(small_url: str, large_url: str, samples: Path, rounds: int) -> tuple[float, float]:
    """Median seconds to re-import the corpus into the small and the large stub, alternating."""
    for url in (small_url, large_url):  # the first import stores the corpus; the rounds find it held
        asyncio.run(import_into(url, samples))
    times: dict[str, list[float]] = {small_url: [], large_url: []}
    for _ in range(rounds):
        for url in (small_url, large_url):
            seconds, imported, _ = asyncio.run(import_into(url, samples))
            if imported:
                raise RuntimeError(f"a re-import stored {imported} files again")
            times[url].append(seconds)
    return statistics.median(times[small_url]), statistics.median(times[large_url])


def server_cpu(data: Path) -> float | None:
    """CPU seconds the stub serving ``data`` has used so far (Linux: its /proc entry), None where unknown."""
    marker = f"ready-{data.name}".encode()  # the ready file stub_serving names after it, in its command line
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            command = (entry / "cmdline").read_bytes()
            if b"--serve" not in command or marker not in command:
                continue
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return None


def _per_file(seconds: float | None, files: int) -> str:
    return "?" if seconds is None else f"{seconds / files * 1e6:,.0f}"


def end_to_end(base_url: str, work: Path, files: int, rounds: int, data: Path | None = None) -> tuple[float, float]:
    """Median files/s of the import and of in-process parsing of the same fresh files, alternating.

    Each round also prints the CPU a file took: parsing here, and the import's client (this process: parse,
    encode, HTTP) and server (the stub serving ``data``): on busy cores the two processes' CPU adds up,
    on idle ones it overlaps, so the speed ratio follows the load and the CPU says what each side costs.

    Every round's files come from the same reporter, alike but for their ids: from the second round on
    the server holds the earlier rounds' (1,000, then 2,000 alike), and finding that a new one is not
    among them reads them all once (no condition the server offers tells them apart; see StoredKeys).
    Each round is printed with what the server held of that reporter before it."""
    imports, parses = [], []
    stamp = time.time_ns()
    for round_index in range(rounds):
        folder = work / f"import-files-{stamp}-{round_index}"
        write_files(folder, files, f"e2e-{stamp}-{round_index}")
        parse_cpu = time.process_time()
        parses.append(files / parse_in_process(folder))
        parse_cpu = time.process_time() - parse_cpu
        server_before, client_cpu = server_cpu(data) if data else None, time.process_time()
        seconds, imported, _ = asyncio.run(import_into(base_url, folder))
        client_cpu = time.process_time() - client_cpu
        server_after = server_cpu(data) if data else None
        server = server_after - server_before if server_after is not None and server_before is not None else None
        if imported != files:
            raise RuntimeError(f"imported {imported} of {files} files")
        imports.append(files / seconds)
        print(f"  round {round_index + 1}: {round_index * files:,} alike held before, import {imports[-1]:,.0f} "
              f"files/s, parse {parses[-1]:,.0f} files/s: {imports[-1] / parses[-1]:.0%}; CPU a file (µs): parse "
              f"{_per_file(parse_cpu, files)}, import client {_per_file(client_cpu, files)} + server "
              f"{_per_file(server, files)}; load {os.getloadavg()[0]:.1f}", flush=True)
        for path in folder.iterdir():
            path.unlink()
        folder.rmdir()
    return statistics.median(imports), statistics.median(parses)


RUN_NAME = "import-run"
"""The databases the stubs serve: ``import-run-<size>.sqlite3``, copied from the seeded one."""


def fresh_database(work: Path, size: int) -> None:
    """Copy the database seeded with ``size`` reports (seeding it the first time) to the one a stub serves."""
    from server_stub.demo_data import seed_store
    from server_stub.store import Store
    from server_stub.tallies import FORMAT_VERSION

    seeded = work / f"import-seed-v{FORMAT_VERSION}-{size}.sqlite3"
    if not seeded.exists():
        building = seeded.with_suffix(".building")
        for leftover in work.glob(f"{building.name}*"):
            leftover.unlink()
        store = Store(building)
        # As the console benches seed theirs (bench_dmarc_console.serve): the same reports.
        seed_store(store, reports=size, directories=False, seed=3, now=SEEDED_AT)
        store.close()  # checkpointed: the one file holds everything
        building.rename(seeded)
        for leftover in work.glob(f"{building.name}-*"):
            leftover.unlink()
    target = work / f"{RUN_NAME}-{size}.sqlite3"
    for suffix in ("", "-wal", "-shm"):
        Path(f"{target}{suffix}").unlink(missing_ok=True)
    shutil.copyfile(seeded, target)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", type=int, default=1000)
    parser.add_argument("--large", type=int, default=10000)
    parser.add_argument("--files", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--samples", type=Path, default=default_samples())
    parser.add_argument("--serve", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(int(args.serve[0]), Path(args.serve[1]), Path(args.serve[2]))
        return 0
    samples: Path = args.samples.resolve()
    if not samples.is_dir():
        print(f"sample corpus not found: {samples}", file=sys.stderr)
        return 2
    rounds = max(1, min(args.rounds, 20))
    work = Path(tempfile.gettempdir()) / "mailadmin-dmarc-bench"
    work.mkdir(exist_ok=True)
    for size in {args.small, args.large}:
        fresh_database(work, size)
    with (stub_serving(args.small, work, work / "import-data-small", RUN_NAME) as small,
          stub_serving(args.large, work, work / "import-data-large", RUN_NAME) as large):
        small_s, large_s = duplicate_check(small, large, samples, rounds)
        print(f"re-import of the corpus (all duplicates): {args.small:,} stored {small_s:.3f}s, "
              f"{args.large:,} stored {large_s:.3f}s: ×{large_s / small_s:.2f} (target ≤ 1.5)", flush=True)
        imported, parsed = end_to_end(small, work, args.files, rounds, work / "import-data-small")
        print(f"{args.files:,} files: import {imported:,.0f} files/s, parse in process {parsed:,.0f} files/s: "
              f"{imported / parsed:.0%} of parse speed (target ≥ 60%)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
