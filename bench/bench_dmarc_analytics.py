"""Analytics over the whole inbox: first and second visit, and the console's memory, by inbox size.

For 1,000, 10,000 and 100,000 reports in the stub it prints, from pressing ``a`` to the
figures on screen: the first visit to analytics (every report fetched into an empty
cache), a second visit to the same period in the same console (the view kept from the
first: the listing checked, nothing fetched), and a visit in a restarted console (a new process on the same cache
file: nothing fetched, nothing remembered in memory); then the console's resident
memory (idle, after the visits, peak; and the restarted console's peak) and the cache
file's size. The stub runs in its own process on an on-disk database seeded once per
size (as in ``bench_dmarc_console.py``); each console run is a fresh process running
the real app headless, the first on an empty data directory, so neither the stub's data
nor an earlier run counts.

A visit ends when what it shows at first is on screen: the status line with the period's totals and
the Domains table (the figures' headline: :class:`~jmapclient.dmarc.figures.Headline`), the progress
gone. The sources and failing records (the Failures tab, hidden then) are still being added up; the
first visit's time until the figures are whole is printed too. For the first visit it also prints
where its seconds went: until the sync ended, the figures' computation (SQL in a thread, after the
sync), and from the end of the sync to the headline shown.

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
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

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


MARKS: list[tuple[str, float]] = []
"""When the store's sync and figures of this process began and ended (``perf_counter``), in order."""


@contextmanager
def phases_marked() -> Iterator[None]:
    """Mark the sync's and the figures' begin and end (the view's flow: sync, then figures, then drawing),
    so a first visit says where its seconds went; the methods are put back after."""
    from jmapclient.dmarc.digest_store import DigestStore

    sync, figures = DigestStore.sync, DigestStore.figures

    async def marked_sync(self: DigestStore, *args: Any, **options: Any) -> Any:
        MARKS.append(("sync", time.perf_counter()))
        try:
            return await sync(self, *args, **options)
        finally:
            MARKS.append(("synced", time.perf_counter()))

    def marked_figures(self: DigestStore, *args: Any, **options: Any) -> Any:
        MARKS.append(("figures", time.perf_counter()))
        try:
            return figures(self, *args, **options)
        finally:
            MARKS.append(("figured", time.perf_counter()))

    DigestStore.sync, DigestStore.figures = marked_sync, marked_figures  # type: ignore[method-assign,assignment]
    try:
        yield
    finally:
        DigestStore.sync, DigestStore.figures = sync, figures  # type: ignore[method-assign]


def phases(began: float, ended: float, whole: float) -> dict[str, float]:
    """A visit's seconds: until the sync ended, the figures' computation (until they were whole), and
    from the sync's end until the headline showed (the last sync and figures before ``whole``: a visit
    may compute again after a period change)."""
    marks = [(what, at) for what, at in MARKS if began <= at <= whole]
    last = {what: at for what, at in marks}
    if not {"synced", "figures", "figured"} <= last.keys():
        return {}
    return {"to_synced": last["synced"] - began, "figures": last["figured"] - last["figures"],
            "to_shown": ended - last["synced"]}


async def timed_visit(app: Any, pilot: Any, cpu: list[float] | None = None,
                      parts: list[dict[str, float]] | None = None, wholes: list[float] | None = None) -> float:
    """Seconds from pressing ``a`` until the view shows its figures' headline (and, into ``cpu``, the
    console's CPU seconds over the same span: its process time, threads included, which the load moves
    less; into ``wholes``, the seconds until the figures were whole, the Failures tab's records added up).

    Watched by a task on the app's own loop, so the moment counts, not the end of the
    press (Pilot waits for the whole app to go idle, the advice judged after the figures included).
    """
    from tui.reports.analytics_view import AnalyticsView

    found: list[Any] = []

    def shown() -> bool:
        # The console keeps the view between visits, hidden: a visit ends once it is shown again
        # with figures checked against the server (it is fetching from the press on until then).
        # The view is looked up until it is there, then only read: a query of the whole DOM every
        # 2 ms took a fifth of the console's CPU during the visit it measures. Looked up by the visit
        # it is on, not by being shown: a new view shows only once it is mounted whole.
        if not found:
            found.extend(view for view in app.query(AnalyticsView) if view.visiting)
        return bool(found) and found[0].display and found[0].headline is not None and not found[0].fetching

    def whole() -> bool:
        figures = found[0].figures
        return figures is not None and figures.headline == found[0].headline

    async def seen() -> tuple[float, float]:
        await wait_for(shown, "the figures")
        ended = time.perf_counter()
        if cpu is not None:
            cpu.append(time.process_time() - cpu_began)
        await wait_for(whole, "the whole figures")
        return ended, time.perf_counter()

    began, cpu_began = time.perf_counter(), time.process_time()
    watcher = asyncio.create_task(seen())
    await pilot.press("a")
    ended, completed = await watcher
    if parts is not None:
        parts.append(phases(began, ended, completed))
    if wholes is not None:
        wholes.append(completed - began)
    return ended - began


async def console_visits(base_url: str, visits: int) -> dict[str, Any]:
    """A console's visits to analytics (each back to the inbox after); times in s, memory in MiB."""
    from jmapclient import JmapClient
    from tui.app import MailAdminApp
    from tui.context import ConsoleContext

    client = JmapClient(base_url, TOKEN)
    context = ConsoleContext(client=client, server_label=base_url, username="admin", now=lambda: NOW)
    app = MailAdminApp(context, start_section="dmarc")
    times: list[float] = []
    cpus: list[float] = []
    parts: list[dict[str, float]] = []
    wholes: list[float] = []
    with phases_marked():
        async with app.run_test(size=(120, 40)) as pilot:
            before, reports = await _visits(app, pilot, visits, times, cpus, parts, wholes)
            memory = rss_mib()
    await client.aclose()
    return {"visits": times, "cpus": cpus, "phases": parts, "wholes": wholes, "rss_before_mib": before,
            "rss_mib": memory, "peak_mib": peak_rss_mib(), "reports": reports}


async def _visits(app: Any, pilot: Any, visits: int, times: list[float], cpus: list[float],
                  parts: list[dict[str, float]], wholes: list[float]) -> tuple[float, int]:
    """``visits`` visits to analytics, each back to the inbox after; the RSS before them and the reports counted."""
    from tui.reports.analytics_view import AnalyticsView
    from tui.reports.inbox import DmarcInbox

    await wait_for(lambda: app.query(DmarcInbox) and app.query_one(DmarcInbox).page is not None, "first page")
    await app.workers.wait_for_complete()
    before = rss_mib()
    reports = 0
    for _ in range(visits):
        times.append(await timed_visit(app, pilot, cpus, parts, wholes))
        reports = app.query_one(AnalyticsView).figures.overview.reports  # type: ignore[union-attr]
        await app.workers.wait_for_complete()  # the advice too, before leaving
        await pilot.press("escape")
        await pilot.pause()
    return before, reports


def console_run(base_url: str, data: Path, visits: int) -> dict[str, Any]:
    """``console_visits`` in a fresh process on the data directory ``data``."""
    console = subprocess.run(
        [sys.executable, __file__, "--visit", base_url, str(visits)],
        capture_output=True, text=True, timeout=VISIT_TIMEOUT * 2, check=False,
        env={**os.environ, "MAILADMIN_DATA": str(data), "TEXTUAL_ANIMATIONS": "none"},
    )
    if console.returncode:
        raise RuntimeError(f"the console run failed:\n{console.stderr[-3000:]}")
    figures: dict[str, Any] = json.loads(console.stdout.strip().splitlines()[-1])
    return figures


@contextmanager
def stub_serving(size: int, work: Path, data: Path, name: str = "dmarc-bench") -> Iterator[str]:
    """The stub of ``size`` reports in its own process (its address), and ``data`` empty, removed after.

    ``name`` names its database: a bench that adds reports keeps its own, out of the others' way."""
    database = work / f"{name}-{size}.sqlite3"
    ready = work / f"ready-{data.name}"
    ready.unlink(missing_ok=True)
    stub = subprocess.Popen([sys.executable, __file__, "--serve", str(size), str(database), str(ready)])
    shutil.rmtree(data, ignore_errors=True)
    try:
        deadline = time.monotonic() + 900
        while not ready.exists() or not ready.read_text():
            if stub.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the stub for {size:,} reports did not start")
            time.sleep(0.1)
        yield ready.read_text()
    finally:
        stub.terminate()
        stub.wait(30)
        shutil.rmtree(data, ignore_errors=True)


def run_size(size: int, work: Path) -> dict[str, Any]:
    data = work / f"console-data-{size}"
    with stub_serving(size, work, data) as base_url:
        # A console with an empty cache visits twice; then a restarted console (a new process, the
        # cache file kept) visits once.
        first = console_run(base_url, data, 2)
        restarted = console_run(base_url, data, 1)
        figures = {"first_ms": first["visits"][0] * 1000, "second_ms": first["visits"][1] * 1000,
                   "restart_ms": restarted["visits"][0] * 1000, "rss_before_mib": first["rss_before_mib"],
                   "rss_mib": first["rss_mib"], "peak_mib": first["peak_mib"],
                   "restart_peak_mib": restarted["peak_mib"], "reports": first["reports"],
                   "first_phases": first["phases"][0], "first_whole_ms": first["wholes"][0] * 1000}
        figures["cache_mib"] = sum(p.stat().st_size for p in data.rglob("*") if p.is_file()) / 2**20
        return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--serve", nargs=3, help=argparse.SUPPRESS)
    parser.add_argument("--visit", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(int(args.serve[0]), Path(args.serve[1]), Path(args.serve[2]))
        return
    if args.visit:
        print(json.dumps(asyncio.run(console_visits(args.visit[0], int(args.visit[1])))))
        return
    work = Path(tempfile.gettempdir()) / "mailadmin-dmarc-bench"
    work.mkdir(exist_ok=True)
    sizes = [int(s) for s in args.sizes.split(",")]
    print(f"{'reports':>9}  {'in period':>9}  {'first visit':>12}  {'second visit':>13}  {'after restart':>14}  "
          f"{'RSS idle':>9}  "
          f"{'RSS after':>10}  {'RSS peak':>9}  {'peak, restart':>13}  {'cache file':>10}")
    results = {}
    for size in sizes:
        figures = run_size(size, work)
        results[size] = figures
        print(f"{size:>9,}  {figures['reports']:>9,}  {figures['first_ms'] / 1000:>11.2f}s  "
              f"{figures['second_ms'] / 1000:>12.2f}s  {figures['restart_ms'] / 1000:>13.2f}s  "
              f"{figures['rss_before_mib']:>5.0f} MiB  "
              f"{figures['rss_mib']:>6.0f} MiB  {figures['peak_mib']:>5.0f} MiB  "
              f"{figures['restart_peak_mib']:>9.0f} MiB  "
              f"{figures['cache_mib']:>6.1f} MiB",
              flush=True)
        if part := figures["first_phases"]:
            print(f"{'':>9}  first visit: synced at {part['to_synced']:.2f}s, shown {part['to_shown']:.2f}s after "
                  f"the sync; the figures took {part['figures']:.2f}s, whole at "
                  f"{figures['first_whole_ms'] / 1000:.2f}s", flush=True)
    smallest, largest = results[min(sizes)], results[max(sizes)]
    print(f"largest / smallest: RSS after ×{largest['rss_mib'] / smallest['rss_mib']:.2f}, "
          f"peak RSS ×{largest['peak_mib'] / smallest['peak_mib']:.2f}, "
          f"second visit ×{largest['second_ms'] / smallest['second_ms']:.2f}, "
          f"after restart ×{largest['restart_ms'] / smallest['restart_ms']:.2f}")


if __name__ == "__main__":
    main()
