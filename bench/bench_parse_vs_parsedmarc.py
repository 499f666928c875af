"""Files parsed a second: our DMARC parser against parsedmarc, on the same corpus, in the same run.

Each side runs in its own fresh process: it reads every file of the corpus into memory, parses
each once to warm up (imports, caches; this pass also says which files it accepts), then parses
the whole corpus ``--passes`` times, timing each file by wall clock and by the process's CPU
time. A side's figure for a round is the median of its passes; the sides alternate which goes
first from round to round, and the figures printed are the medians of the rounds.

- ours: ``jmapclient.dmarc.loader.load_bytes``, what ``import-dmarc`` runs on each file after
  reading it (containers, XML, mapping, the wire object), in process, no server;
- parsedmarc: ``parsedmarc.parse_aggregate_report_file(data, offline=True,
  always_use_local_files=True)`` (no DNS, its bundled maps), in its own interpreter, given by
  ``--parsedmarc-python`` (a venv outside this project: it is no dependency of it).

Both are given the file's bytes, so the figures measure parsing, not the disk. Files one side
rejects are still timed: the headline ratio is on the files both sides parse, and the figure on
every file is printed too. Without ``--parsedmarc-python`` only our side runs (what CI does).
``--code DIR`` runs our side from another checkout (e.g. ``git archive`` of a base commit).

    python bench/bench_parse_vs_parsedmarc.py [--samples DIR] [--rounds 5] [--passes 5]
        [--parsedmarc-python /tmp/pm-venv/bin/python] [--code DIR]

Only the standard library is imported at the top: the same file is the worker in either
interpreter (``--worker ours|parsedmarc``, given the file list on stdin).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[1]
MAX_ROUNDS = 50  # keeps an accidental --rounds 1e9 from running all day
MAX_PASSES = 50
WORKER_TIMEOUT = 600


def default_samples() -> Path:
    env = os.environ.get("MAILADMIN_DMARC_SAMPLES")
    return Path(env) if env else REPO_ROOT / ".." / "shared" / "dmarc-samples"


def corpus_files(folder: Path) -> list[Path]:
    """The report files under ``folder``, as ``import-dmarc`` lists them (sorted; no hidden or .md files)."""
    found: list[Path] = []
    for root, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        found += [Path(root) / name for name in sorted(files)
                  if not name.startswith(".") and not name.lower().endswith(".md")]
    return found


# -- the worker: one side, one process ---------------------------------------------------------


def _our_parser(code: str) -> Any:
    sys.path.insert(0, code)
    from datetime import UTC, datetime

    from jmapclient.dmarc.loader import load_bytes

    now = datetime.now(UTC)

    def parse(path: Path, data: bytes) -> bool:
        return load_bytes(data, path, now=now).ok

    return parse


def _parsedmarc_parser() -> Any:
    import importlib
    import logging

    parsedmarc = importlib.import_module("parsedmarc")  # in its own venv: no stubs for this project's mypy
    logging.disable(logging.CRITICAL)  # it logs each rejection; the bench counts them instead

    def parse(path: Path, data: bytes) -> bool:
        try:
            parsedmarc.parse_aggregate_report_file(data, offline=True, always_use_local_files=True)
        except Exception:  # its rejections are of many kinds; each is one rejected file
            return False
        return True

    return parse


def worker(side: str, passes: int, code: str) -> int:
    paths = [Path(line) for line in sys.stdin.read().splitlines() if line]
    contents = [(path, path.read_bytes()) for path in paths]
    parse = _our_parser(code) if side == "ours" else _parsedmarc_parser()
    accepted = [parse(path, data) for path, data in contents]  # the warm-up pass
    cpu = [[0.0] * len(contents) for _ in range(passes)]
    wall = [[0.0] * len(contents) for _ in range(passes)]
    for round_cpu, round_wall in zip(cpu, wall, strict=True):
        for index, (path, data) in enumerate(contents):
            started, started_cpu = time.perf_counter(), time.process_time()
            parse(path, data)
            round_cpu[index] = time.process_time() - started_cpu
            round_wall[index] = time.perf_counter() - started
    json.dump({"accepted": accepted, "cpu": cpu, "wall": wall}, sys.stdout)
    return 0


# -- the driver --------------------------------------------------------------------------------


def run_side(python: str, side: str, paths: list[Path], passes: int, code: Path) -> dict[str, Any]:
    command = [python, str(Path(__file__).resolve()), "--worker", side, "--passes", str(passes),
               "--code", str(code)]
    done = subprocess.run(command, input="\n".join(map(str, paths)), capture_output=True, text=True,
                          timeout=WORKER_TIMEOUT, cwd=code if side == "ours" else None, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{side} worker failed ({done.returncode}):\n{done.stderr[-2000:]}")
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def files_per_second(result: dict[str, Any], clock: str, chosen: list[int]) -> float:
    """The median pass's files a second over the files ``chosen``."""
    return statistics.median(len(chosen) / sum(times[i] for i in chosen) for times in result[clock])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=Path, default=default_samples())
    parser.add_argument("--rounds", type=int, default=5, help=f"1..{MAX_ROUNDS} (default 5)")
    parser.add_argument("--passes", type=int, default=5, help=f"timed passes a process, 1..{MAX_PASSES} (default 5)")
    parser.add_argument("--parsedmarc-python", help="an interpreter that has parsedmarc installed")
    parser.add_argument("--code", type=Path, default=REPO_ROOT, help="the checkout our side runs from")
    parser.add_argument("--worker", choices=("ours", "parsedmarc"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    passes = max(1, min(args.passes, MAX_PASSES))
    code: Path = args.code.resolve()
    if args.worker:
        return worker(args.worker, passes, str(code))

    rounds = max(1, min(args.rounds, MAX_ROUNDS))
    folder: Path = args.samples.resolve()
    paths = corpus_files(folder) if folder.is_dir() else []
    if not paths:
        print(f"sample corpus not found or empty: {folder}", file=sys.stderr)
        return 2
    sides = ["ours"] + (["parsedmarc"] if args.parsedmarc_python else [])
    pythons = {"ours": sys.executable, "parsedmarc": args.parsedmarc_python}
    results: dict[str, list[dict[str, Any]]] = {side: [] for side in sides}
    for number in range(rounds):
        order = sides if number % 2 == 0 else sides[::-1]
        for side in order:
            results[side].append(run_side(pythons[side], side, paths, passes, code))
        every = list(range(len(paths)))
        print(f"round {number + 1}: " + ", ".join(
            f"{side} {files_per_second(results[side][-1], 'cpu', every):,.1f} files/s (CPU, all files)"
            for side in sides), flush=True)

    print(f"corpus: {folder} ({len(paths)} files); our code: {code}")
    print(f"rounds: {rounds}, {passes} timed passes a process after a warm-up; load: {os.getloadavg()[0]:.2f}")
    everything = list(range(len(paths)))
    accepted = {side: results[side][0]["accepted"] for side in sides}
    for side in sides:
        rejected = [paths[i].name for i in everything if not accepted[side][i]]
        print(f"{side} rejects {len(rejected)}: {', '.join(rejected) or '-'}")
    both = [i for i in everything if all(accepted[side][i] for side in sides)]
    figures: dict[tuple[str, str, str], float] = {}
    common = "files both parse" if len(sides) > 1 else "files it parses"
    for label, chosen in ((common, both), ("all files", everything)):
        for clock in ("cpu", "wall"):
            for side in sides:
                figures[label, clock, side] = statistics.median(
                    files_per_second(result, clock, chosen) for result in results[side])
            line = ", ".join(f"{side} {figures[label, clock, side]:,.1f}" for side in sides)
            ratio = (f"; ratio {figures[label, clock, 'ours'] / figures[label, clock, 'parsedmarc']:.2f}x"
                     if len(sides) > 1 else "")
            print(f"{label} ({len(chosen)}), files/s by {clock.upper()}, median of rounds: {line}{ratio}")
    if len(sides) == 1:
        print("reference not run: parsedmarc is measured only with --parsedmarc-python")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
