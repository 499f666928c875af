"""How the DMARC console's cost depends on the size of the inbox.

For 1,000, 10,000 and 100,000 reports in the stub it prints the time to the first page,
to the next page (not prefetched), to open a report, and the console's resident memory
after browsing. The stub runs in its own process (a loopback server on an on-disk
database seeded once per size), and each console run is a fresh process running the
real app headless (``App.run_test``), so neither the stub's data nor an earlier run
counts in the console's memory.

Run: ``python bench/bench_dmarc_console.py [--sizes 1000,10000,100000]``. Seeding 100,000
reports takes about a minute the first time; the databases are kept under the system
temp directory.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

NOW = datetime(2026, 3, 1, 6, 0, tzinfo=UTC)
TOKEN = "bench-dmarc-console-token"
NEXT_PAGES = 5
TIMEOUT = 120.0
"""Seconds any one wait may take before the run is abandoned."""


def rss_mib() -> float:
    with open("/proc/self/statm") as handle:
        resident_pages = int(handle.read().split()[1])
    return resident_pages * resource.getpagesize() / 2**20


async def wait_for(condition: object, what: str) -> None:
    deadline = time.monotonic() + TIMEOUT
    while not condition():  # type: ignore[operator]
        if time.monotonic() > deadline:
            raise TimeoutError(f"gave up waiting for {what}")
        await asyncio.sleep(0.002)


async def browse(base_url: str) -> dict[str, float]:
    """One console session: first page, several next pages, open a report; figures in ms / MiB."""
    from jmapclient import JmapClient
    from tui.app import MailAdminApp
    from tui.context import ConsoleContext
    from tui.reports.detail import ReportView
    from tui.reports.inbox import DmarcInbox

    client = JmapClient(base_url, TOKEN)
    context = ConsoleContext(client=client, server_label=base_url, username="admin", now=lambda: NOW)
    app = MailAdminApp(context, start_section="dmarc")
    started = time.perf_counter()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(lambda: app.query(DmarcInbox) and app.query_one(DmarcInbox).page is not None, "first page")
        first_page = time.perf_counter() - started
        inbox = app.query_one(DmarcInbox)
        inbox.prefetch = False  # measure a real fetch, not the page prefetched in the background
        await app.workers.wait_for_complete()
        inbox.pager.drop_pages()  # forget() would drop the total too, and with it the next page
        next_pages = []
        for _ in range(NEXT_PAGES):
            index = inbox.page_index
            began = time.perf_counter()
            await pilot.press("n")
            await wait_for(lambda i=index: inbox.page_index == i + 1 and inbox.page is not None, "next page")
            await app.workers.wait_for_complete()
            next_pages.append(time.perf_counter() - began)
        began = time.perf_counter()
        await pilot.press("enter")
        await wait_for(lambda: app.query(ReportView) and app.query_one(ReportView).report is not None, "report")
        open_report = time.perf_counter() - began
        await pilot.press("escape")
        await pilot.pause()
        memory = rss_mib()
    await client.aclose()
    return {
        "first_page_ms": first_page * 1000,
        "next_page_ms": sorted(next_pages)[len(next_pages) // 2] * 1000,
        "open_report_ms": open_report * 1000,
        "rss_mib": memory,
    }


def serve(size: int, database: Path, ready: Path) -> None:
    """The stub process: seed (once) and serve until killed."""
    from server_stub.runner import StubServer

    with StubServer(database, reports=size, directories=False, admin_token=TOKEN, seed=3, now=NOW) as server:
        ready.write_text(server.base_url)
        while True:
            time.sleep(3600)


def run_size(size: int, work: Path) -> dict[str, float]:
    database = work / f"dmarc-bench-{size}.sqlite3"
    ready = work / f"ready-{size}"
    ready.unlink(missing_ok=True)
    seeding = time.perf_counter()
    stub = subprocess.Popen([sys.executable, __file__, "--serve", str(size), str(database), str(ready)])
    try:
        deadline = time.monotonic() + 600
        while not ready.exists() or not ready.read_text():
            if stub.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the stub for {size:,} reports did not start")
            time.sleep(0.1)
        seeded = time.perf_counter() - seeding
        console = subprocess.run(
            [sys.executable, __file__, "--browse", ready.read_text()],
            capture_output=True, text=True, timeout=TIMEOUT * 3, check=True,
            env={**os.environ, "MAILADMIN_DATA": str(work / "console-data"), "TEXTUAL_ANIMATIONS": "none"},
        )
        figures = json.loads(console.stdout.strip().splitlines()[-1])
        figures["stub_ready_s"] = seeded
        return figures
    finally:
        stub.terminate()
        stub.wait(10)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--serve", nargs=3, help=argparse.SUPPRESS)
    parser.add_argument("--browse", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(int(args.serve[0]), Path(args.serve[1]), Path(args.serve[2]))
        return
    if args.browse:
        print(json.dumps(asyncio.run(browse(args.browse))))
        return
    work = Path(tempfile.gettempdir()) / "mailadmin-dmarc-bench"
    work.mkdir(exist_ok=True)
    sizes = [int(s) for s in args.sizes.split(",")]
    print(f"{'reports':>9}  {'first page':>11}  {'next page':>10}  {'open report':>12}  {'console RSS':>12}")
    results = {}
    for size in sizes:
        figures = run_size(size, work)
        results[size] = figures
        print(f"{size:>9,}  {figures['first_page_ms']:>9.0f}ms  {figures['next_page_ms']:>8.0f}ms  "
              f"{figures['open_report_ms']:>10.0f}ms  {figures['rss_mib']:>8.1f} MiB"
              f"   (stub ready in {figures['stub_ready_s']:.0f}s)", flush=True)
    smallest, largest = results[min(sizes)], results[max(sizes)]
    print(f"largest / smallest: first page ×{largest['first_page_ms'] / smallest['first_page_ms']:.2f}, "
          f"next page ×{largest['next_page_ms'] / smallest['next_page_ms']:.2f}, "
          f"open report ×{largest['open_report_ms'] / smallest['open_report_ms']:.2f}, "
          f"memory ×{largest['rss_mib'] / smallest['rss_mib']:.2f}")


if __name__ == "__main__":
    main()
