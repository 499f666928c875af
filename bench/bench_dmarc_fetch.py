"""Fetching a period's reports (analytics, ``dmarc-advice``) against fetching the same reports raw: the ratios.

The stub serves ``--size`` reports (its own process, seeded once, as in ``bench_dmarc_analytics.py``);
the period is the last ``--days`` days of its data. Each round runs, in alternating order, each in a
fresh process on an empty data directory:

- **raw**: gets of the period's reports, 500 a request, as many in flight as the sync has (the server's
  ``maxConcurrentRequests`` less one), properties ``id`` and ``report``, the answers decoded and thrown
  away (the floor: what the server and HTTP cost, overlapped with decoding as in the sync);
- **raw-process**: the same gets as raw, in a process of their own started as a ``mailadmin`` command is
  (``mailadmin.startup``) and timed as the advice is, from its exec to its exit: the interpreter, importing
  the client (httpx, pydantic), the session and reading the ids included (the floor of a command that
  fetches the same reports; ``dmarc-advice`` is printed against it too);
- **sync**: the digest store's sync for the period (``DigestStore.sync(since=…)``, what the console's
  analytics and ``dmarc-advice`` both run): listing, finding the period's reports, fetching,
  digesting and storing;
- **advice**: ``mailadmin dmarc-advice --offline`` over the period, the whole process (start-up and
  the judging included);
- **console**: the console's first visit to analytics, from pressing ``a`` to the figures on screen
  (``bench_dmarc_analytics.py``'s visit).

"The period's reports" for raw are those the first (untimed) sync stored. Prints each round's
seconds, then the medians and each one's ratio to raw's (the aim: at most 1.3), and the median of
each round's own ratio (the advice's also to raw-process's); for raw and sync also the client's CPU
seconds (its process time over the same span), for raw-process and advice the whole process's, which
the machine's load moves less than the wall clock. ``--code DIR`` runs
sync, advice and console from another checkout (an earlier commit, for the before figures; its sync
without ``since`` fetches every report, as it did).

Run: ``python bench/bench_dmarc_fetch.py [--size 20000] [--days 30] [--rounds 3] [--code DIR]``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections import deque
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SIDES = ("raw", "raw-process", "sync", "advice", "console")
RAW_CHUNK = 500
TIMEOUT = 1800


async def side_raw(base_url: str, token: str, ids_file: Path) -> dict[str, Any]:
    from jmapclient import JmapClient
    from jmapclient.models.objects import DMARC_EXTERNAL_REPORT

    ids = json.loads(ids_file.read_text())
    client = JmapClient(base_url, token)
    api = client.objects(DMARC_EXTERNAL_REPORT)
    limits = (await client.session()).limits
    began, cpu = time.perf_counter(), time.process_time()
    got = 0
    # The sync's request sizes and in-flight count (maxConcurrentRequests less one), so the floor
    # overlaps the server's work with the client's decoding as the sync does.
    chunks = iter(range(0, len(ids), RAW_CHUNK))
    in_flight: deque[asyncio.Task[Any]] = deque()

    def send_next() -> None:
        at = next(chunks, None)
        if at is not None:
            in_flight.append(asyncio.create_task(api.get(ids[at:at + RAW_CHUNK], properties=("id", "report"))))

    for _ in range(max(1, limits.max_concurrent_requests - 1)):
        send_next()
    while in_flight:
        answer = await in_flight.popleft()
        send_next()
        got += len(answer.raw)
    seconds, cpu = time.perf_counter() - began, time.process_time() - cpu
    await client.aclose()
    return {"seconds": seconds, "cpu": cpu, "reports": got}


async def side_sync(base_url: str, token: str, data: Path, first: str) -> dict[str, Any]:
    import inspect

    from jmapclient import JmapClient
    from jmapclient.dmarc.digest_store import DigestStore
    from jmapclient.models.objects import DMARC_EXTERNAL_REPORT

    client = JmapClient(base_url, token)
    store = DigestStore(data / "digests.sqlite")
    api = client.objects(DMARC_EXTERNAL_REPORT)
    await client.session()
    since = {"since": datetime.fromisoformat(first).date()} if "since" in inspect.signature(store.sync).parameters \
        else {}  # an earlier checkout fetches everything
    began, cpu = time.perf_counter(), time.process_time()
    result = await store.sync(api, **since)
    seconds, cpu = time.perf_counter() - began, time.process_time() - cpu
    await client.aclose()
    store.close()
    return {"seconds": seconds, "cpu": cpu, "reports": result.fetched}


CPU: dict[str, list[float]] = {}
"""The client's CPU seconds of each raw, raw-process, sync and console side run, by side."""
WHOLE: list[float] = []
"""The console's seconds until its figures were whole (the visit ends at their headline), where it says."""
PHASES: dict[str, list[float]] = {}
"""With ``--phases``: the advice's seconds by phase, each run's (``bench_dmarc_advice.phase_split``)."""


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_side(side: str, code: Path, base_url: str, data: Path, first: str, ids_file: Path,
             phases: bool = False) -> float:
    """One side in a fresh process on the empty data directory ``data``; its seconds (raw's and sync's
    CPU seconds into :data:`CPU`); ``phases``: the advice's split into :data:`PHASES`."""
    from bench.bench_dmarc_advice import cli_run
    from bench.bench_dmarc_console import NOW, TOKEN

    data.mkdir(parents=True, exist_ok=True)
    for path in data.rglob("*"):
        if path.is_file():
            path.unlink()
    if side == "advice":
        today = datetime.now(UTC).date()
        days = (today - datetime.fromisoformat(first).date()).days + 1
        cpu = _children_cpu()
        wall = cli_run(base_url, TOKEN, data, code, days, phases=PHASES if phases else None)[0]
        CPU.setdefault(side, []).append(_children_cpu() - cpu)
        return wall
    if side == "console":
        if (NOW.date() - datetime.fromisoformat(first).date()).days != 29:
            raise SystemExit("the console's first visit is of its default period, 30 days: use --days 30")
        done = subprocess.run([sys.executable, str(code / "bench" / "bench_dmarc_analytics.py"), "--visit",
                               base_url, "1"], capture_output=True, text=True, timeout=TIMEOUT, check=False,
                              env={**os.environ, "MAILADMIN_DATA": str(data), "TEXTUAL_ANIMATIONS": "none"}, cwd=code)
        if done.returncode:
            raise RuntimeError(f"the console run failed:\n{done.stderr[-3000:]}")
        visit = json.loads(done.stdout.strip().splitlines()[-1])
        if visit.get("cpus"):  # an earlier checkout's console does not say
            CPU.setdefault(side, []).append(float(visit["cpus"][0]))
        if visit.get("wholes"):  # nor this
            WHOLE.append(float(visit["wholes"][0]))
        return float(visit["visits"][0])
    where = ROOT if side in ("raw", "raw-process") else code
    began, cpu = time.perf_counter(), _children_cpu()
    done = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--side", side, base_url, TOKEN,
                           str(data), first, str(ids_file), "--code", str(where)],
                          capture_output=True, text=True, timeout=TIMEOUT, check=False, cwd=where)
    wall, cpu = time.perf_counter() - began, _children_cpu() - cpu
    if done.returncode:
        raise RuntimeError(f"the {side} side failed:\n{done.stderr[-3000:]}")
    if side == "raw-process":  # the whole process, as the advice's is timed (bench_dmarc_advice.cli_run)
        CPU.setdefault(side, []).append(cpu)
        return wall
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    CPU.setdefault(side, []).append(float(figures["cpu"]))
    return float(figures["seconds"])


def compiled(*trees: Path) -> None:
    """Each tree's modules compiled once before the rounds, as an installed package's are. A shell with
    PYTHONDONTWRITEBYTECODE (as on these machines) and a tree unpacked by ``git archive`` (``--code``) made
    every timed process compile the modules it imported: more for the advice than for raw-process."""
    import compileall

    for tree in dict.fromkeys(trees):
        for package in ("jmapclient", "mailadmin", "bench", "server_stub"):
            if (tree / package).is_dir():
                compileall.compile_dir(tree / package, quiet=1)


def loadavg() -> str:
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=20_000)
    parser.add_argument("--days", type=int, default=30)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--sides", default=",".join(SIDES))
    parser.add_argument("--code", type=Path, default=ROOT, help="the checkout whose sync, advice and console run")
    parser.add_argument("--side", nargs=6, help=argparse.SUPPRESS)
    parser.add_argument("--phases", action="store_true",
                        help="also print where the advice's time went: start-up, sync, judging, output")
    args = parser.parse_args()
    code = args.code.resolve()
    if args.side:
        sys.path.insert(0, str(code))
        side, base_url, token, data, first, ids_file = args.side
        if side == "raw-process":
            # Started as a mailadmin command is (mailadmin.startup, as dmarc-advice runs): a floor that
            # skipped nothing the advice skips, and paid nothing the advice does not.
            from mailadmin.startup import apply, resume_collector, skip_exit_collection

            apply()
            skip_exit_collection()
            resume_collector()
        if side in ("raw", "raw-process"):
            figures = asyncio.run(side_raw(base_url, token, Path(ids_file)))
        else:
            figures = asyncio.run(side_sync(base_url, token, Path(data), first))
        print(json.dumps(figures))
        return
    sys.path.insert(0, str(ROOT))
    from bench.bench_dmarc_analytics import stub_serving
    from bench.bench_dmarc_console import NOW

    compiled(ROOT, code)

    sides = [s for s in args.sides.split(",") if s]
    first = (NOW.date() - timedelta(days=args.days - 1)).isoformat()
    work = Path(tempfile.gettempdir()) / "mailadmin-dmarc-bench"
    work.mkdir(exist_ok=True)
    data = work / f"fetch-data-{args.size}"
    ids_file = work / f"fetch-ids-{args.size}.json"
    times: dict[str, list[float]] = {side: [] for side in sides}
    print(f"{args.size:,} reports in the stub, period from {first} ({args.days} days), load {loadavg()}", flush=True)
    with stub_serving(args.size, work, data) as base_url:
        # Untimed: the current sync once, to learn the period's reports (and warm the stub's caches).
        run_side("sync", ROOT, base_url, data, first, ids_file)
        CPU.clear()
        with sqlite3.connect(data / "digests.sqlite") as db:
            ids_file.write_text(json.dumps([i for (i,) in db.execute("SELECT id FROM reports ORDER BY key")]))
        print(f"the period's reports: {len(json.loads(ids_file.read_text())):,}", flush=True)
        for round_ in range(args.rounds):
            order = sides if round_ % 2 == 0 else sides[::-1]
            for side in order:
                times[side].append(run_side(side, code, base_url, data, first, ids_file, args.phases))
            print(f"round {round_ + 1}: " + ", ".join(f"{s} {times[s][-1]:.2f}s" for s in sides)
                  + f" (load {loadavg()})", flush=True)
    medians = {side: statistics.median(values) for side, values in times.items()}
    raw = medians.get("raw")
    process = medians.get("raw-process")
    print("medians: " + ", ".join(
        f"{side} {value:.2f}s" + (f" (×{value / raw:.2f} raw)" if raw and side != "raw" else "")
        + (f" (×{value / process:.2f} raw-process)" if process and side == "advice" else "")
        for side, value in medians.items()))
    if WHOLE and raw:  # the console's visit ends at the headline; the Failures tab's records come after
        print(f"console, until the figures were whole (Failures tab included): {statistics.median(WHOLE):.2f}s"
              f" (×{statistics.median(WHOLE) / raw:.2f} raw)")
    if "raw" in times:  # each round's own ratio: the load moves between rounds more than within one
        print("medians of each round's ratio to raw: " + ", ".join(
            f"{side} ×{statistics.median(t / r for t, r in zip(values, times['raw'], strict=True)):.2f}"
            for side, values in times.items() if side != "raw"))
    if "raw-process" in times and "advice" in times:  # the advice is a whole process: against one too
        ratios = [t / r for t, r in zip(times["advice"], times["raw-process"], strict=True)]
        print(f"median of each round's ratio to raw-process: advice ×{statistics.median(ratios):.2f}")
    if CPU:
        print("client CPU, medians: " + ", ".join(
            f"{side} {statistics.median(values):.2f}s" for side, values in CPU.items())
              + (f" (sync ×{statistics.median(CPU['sync']) / statistics.median(CPU['raw']):.2f} raw)"
                 if "sync" in CPU and "raw" in CPU else "")
              + (f" (console ×{statistics.median(CPU['console']) / statistics.median(CPU['sync']):.2f} sync)"
                 if "console" in CPU and "sync" in CPU else "")
              + (f" (advice ×{statistics.median(CPU['advice']) / statistics.median(CPU['raw-process']):.2f}"
                 " raw-process)" if "advice" in CPU and "raw-process" in CPU else ""))
    if PHASES:  # the start's wall leaves out the interpreter's own start, counted with its exit
        print("advice by phase, medians: " + ", ".join(
            f"{name} {statistics.median(values):.3f}s" for name, values in PHASES.items()))


if __name__ == "__main__":
    main()
