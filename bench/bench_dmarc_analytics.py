"""Analytics over the whole inbox: first and second visit, and the console's memory, by inbox size.

For 1,000, 10,000 and 100,000 reports in the stub it prints the time of the first visit
to analytics (every report fetched into an empty cache), of a second visit to the same
period (ids listed, nothing fetched), and the console's resident memory after the
visits, current and peak. "after restart" is the data work alone of a visit in a new
console with the cache on disk: list the ids, aggregate the period (nothing fetched,
nothing remembered). The stub runs in its own process on an on-disk database seeded
once per size (as in ``bench_dmarc_console.py``); each console run is a fresh process
running the real app headless, with an empty data directory, so neither the stub's data
nor an earlier run counts.

Run: ``python bench/bench_dmarc_analytics.py [--sizes 1000,10000,100000]``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.bench_dmarc_console import NOW, TOKEN, rss_mib, serve  # noqa: E402

VISIT_TIMEOUT = 900.0
"""Seconds a first visit of the largest inbox may take before the run is abandoned."""


async def wait_for(condition: Callable[[], object], what: str) -> None:
    """Like the console bench's, with room for a first visit of 100,000 reports."""
    deadline = time.monotonic() + VISIT_TIMEOUT
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError(f"gave up waiting for {what}")
        await asyncio.sleep(0.002)


def peak_rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


async def visit_twice(base_url: str) -> dict[str, float]:
    """Open analytics on an empty cache, go back, open it again; times in ms, memory in MiB."""
    from jmapclient import JmapClient
    from jmapclient.dmarc.digest_store import DigestStore
    from tui.app import MailAdminApp
    from tui.context import ConsoleContext
    from tui.reports.analytics_view import DEFAULT_PERIOD, LIST_LIMIT, AnalyticsView
    from tui.reports.inbox import DmarcInbox

    client = JmapClient(base_url, TOKEN)
    context = ConsoleContext(client=client, server_label=base_url, username="admin", now=lambda: NOW)
    app = MailAdminApp(context, start_section="dmarc")
    times = []
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(lambda: app.query(DmarcInbox) and app.query_one(DmarcInbox).page is not None, "first page")
        await app.workers.wait_for_complete()
        before = rss_mib()
        for _ in range(2):
            began = time.perf_counter()
            await pilot.press("a")
            await wait_for(lambda: app.query(AnalyticsView) and app.query_one(AnalyticsView).figures is not None
                           and not app.query_one(AnalyticsView).fetching, "the figures")
            times.append(time.perf_counter() - began)
            reports = app.query_one(AnalyticsView).cache.figures(NOW.date().replace(year=2000), NOW.date(), 1)
            await pilot.press("escape")
            await pilot.pause()
        memory = rss_mib()
        path = app.query_one(DmarcInbox).digests.path
    # After a restart: a new store on the cache file lists the ids and aggregates (nothing remembered).
    began = time.perf_counter()
    store = DigestStore(path)
    await store.sync(client.dmarc_reports)
    store.figures(NOW.date() - timedelta(days=DEFAULT_PERIOD - 1), NOW.date(), LIST_LIMIT)
    restarted = time.perf_counter() - began
    await client.aclose()
    return {"first_ms": times[0] * 1000, "second_ms": times[1] * 1000, "restart_ms": restarted * 1000,
            "rss_before_mib": before, "rss_mib": memory, "peak_mib": peak_rss_mib(),
            "reports": reports.overview.reports}


def run_size(size: int, work: Path) -> dict[str, float]:
    database = work / f"dmarc-bench-{size}.sqlite3"
    ready = work / f"ready-{size}"
    ready.unlink(missing_ok=True)
    stub = subprocess.Popen([sys.executable, __file__, "--serve", str(size), str(database), str(ready)])
    data = work / f"console-data-{size}"
    shutil.rmtree(data, ignore_errors=True)
    try:
        deadline = time.monotonic() + 900
        while not ready.exists() or not ready.read_text():
            if stub.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the stub for {size:,} reports did not start")
            time.sleep(0.1)
        console = subprocess.run(
            [sys.executable, __file__, "--visit", ready.read_text()],
            capture_output=True, text=True, timeout=VISIT_TIMEOUT * 2, check=False,
            env={**os.environ, "MAILADMIN_DATA": str(data), "TEXTUAL_ANIMATIONS": "none"},
        )
        if console.returncode:
            raise RuntimeError(f"the console run for {size:,} reports failed:\n{console.stderr[-3000:]}")
        figures: dict[str, float] = json.loads(console.stdout.strip().splitlines()[-1])
        figures["cache_mib"] = sum(p.stat().st_size for p in data.rglob("*") if p.is_file()) / 2**20
        return figures
    finally:
        stub.terminate()
        stub.wait(30)
        shutil.rmtree(data, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--serve", nargs=3, help=argparse.SUPPRESS)
    parser.add_argument("--visit", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(int(args.serve[0]), Path(args.serve[1]), Path(args.serve[2]))
        return
    if args.visit:
        print(json.dumps(asyncio.run(visit_twice(args.visit))))
        return
    work = Path(tempfile.gettempdir()) / "mailadmin-dmarc-bench"
    work.mkdir(exist_ok=True)
    sizes = [int(s) for s in args.sizes.split(",")]
    print(f"{'reports':>9}  {'counted':>8}  {'first visit':>12}  {'second visit':>13}  {'after restart':>14}  "
          f"{'RSS idle':>9}  "
          f"{'RSS after':>10}  {'RSS peak':>9}  {'cache file':>10}")
    results = {}
    for size in sizes:
        figures = run_size(size, work)
        results[size] = figures
        print(f"{size:>9,}  {figures['reports']:>8,}  {figures['first_ms'] / 1000:>11.2f}s  "
              f"{figures['second_ms'] / 1000:>12.2f}s  {figures['restart_ms'] / 1000:>13.2f}s  "
              f"{figures['rss_before_mib']:>5.0f} MiB  "
              f"{figures['rss_mib']:>6.0f} MiB  {figures['peak_mib']:>5.0f} MiB  {figures['cache_mib']:>6.1f} MiB",
              flush=True)
    smallest, largest = results[min(sizes)], results[max(sizes)]
    print(f"largest / smallest: RSS after ×{largest['rss_mib'] / smallest['rss_mib']:.2f}, "
          f"peak RSS ×{largest['peak_mib'] / smallest['peak_mib']:.2f}, "
          f"second visit ×{largest['second_ms'] / smallest['second_ms']:.2f}")


if __name__ == "__main__":
    main()
