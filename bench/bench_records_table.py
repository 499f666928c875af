"""Opening the records of a big report, against one ``get`` of that report, in the same run.

A stub (in this process, on loopback) holds one report of ``--records`` records (the sample
corpus's largest report, its records repeated with other source addresses). Each round times,
alternating: a client's ``get`` of the report (the reference: what the console must wait for
anyway), and in the console, from pressing enter on the opened report to its records table on
screen. Target: the table within 2× of the get. Run:
``python bench/bench_records_table.py [--records 5000] [--rounds 5]``.

``--against DIR`` measures this tree and the tree ``DIR`` (a ``git archive`` of the base) in the same
minutes: ``--rounds`` fresh processes each, alternating between the trees (which goes first too), each
process timing ``--per-process`` rounds; medians of all the rounds of a tree. ``--collect``: see
:data:`GARBAGE`. ``--drawn``: see :data:`DRAWN`. Each figure is also given as the process's CPU (less
moved by the load).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import statistics
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def _code() -> Path:
    """The tree whose client and console are measured: ``--code DIR`` (a run of ``--against``), else this one."""
    if "--code" in sys.argv[:-1]:
        return Path(sys.argv[sys.argv.index("--code") + 1]).resolve()
    return ROOT


CODE = _code()
sys.path.insert(0, str(CODE))

from bench.bench_dmarc_console import wait_for  # noqa: E402
from bench.bench_dmarc_import import default_samples  # noqa: E402

NOW = datetime(2026, 3, 1, 6, 0, tzinfo=UTC)
GARBAGE = """With ``--collect``, each timed part starts from a collected heap. With the report's 5,000
records loaded a full collection takes about 0.15 s, and it runs in whichever part crosses the
collector's threshold: the garbage of one side is paid by the other (a get slowed by the table's
leavings reads as a better ratio). Each part then still pays for the collections its own garbage
brings. Without it (the default, as the figures so far), the collections fall where they fall."""
BIGGEST = "accurateplastics_empty-orgname-2286-records.xml"
DRAWN = """How a round knows the table is on screen. ``frame`` (the default): the enter key is posted as the
terminal's driver posts it, and the round ends when the screen has completed its first refresh after the
table holds its rows (``wait_for_refresh``: Textual runs it once the layout and the paint pending at that
point are done, the table's first rows among them); that the table was laid out on the screen is checked
after the clock stops. ``pilot`` (the figures before): ``pilot.press`` then ``pilot.pause()``, which each
wait until a 20 ms sleep of the process used under 1 ms of CPU: at least 40-60 ms after the last frame
that no user waits for. With ``frame`` the time to the frame that draws the table's scrollbar too (a frame
or two later, Textual's own) is given beside it: the whole view, untimed by the CPU figures."""
DRAWN_WAYS = ("frame", "pilot")


def big_report(samples: Path, records: int) -> dict[str, Any]:
    """The corpus's biggest report with ``records`` records: its own, repeated from other addresses."""
    from jmapclient.dmarc.loader import load_file
    from jmapclient.encoding import list_from_wire

    parsed = load_file(samples / BIGGEST, now=NOW)
    if parsed.wire is None:
        raise RuntimeError(f"{BIGGEST} did not parse: {parsed.reason}")
    wire = parsed.wire
    own = list_from_wire(wire["report"]["records"])
    grown = [{**own[index % len(own)], "sourceIp": f"10.{index // 65536 % 256}.{index // 256 % 256}.{index % 256}"}
             for index in range(records)]
    wire["report"]["records"] = {str(index): record for index, record in enumerate(grown)}
    return wire


async def measure(base_url: str, token: str, report_id: str, rounds: int, collect: bool,
                  drawn: str = "frame") -> dict[str, list[float]]:
    """Seconds of each round's get and table (``gets``, ``tables``), and the process's CPU seconds in them
    (``get_cpus``, ``table_cpus``: the stub's thread included, the idle waits not). ``drawn``: :data:`DRAWN`."""
    from textual import events

    from jmapclient import JmapClient
    from tui.app import MailAdminApp
    from tui.context import ConsoleContext
    from tui.reports.detail import RecordsTable, RecordsView, ReportView
    from tui.reports.inbox import DmarcInbox

    figures: dict[str, list[float]] = {"gets": [], "tables": [], "get_cpus": [], "table_cpus": []}
    client = JmapClient(base_url, token)
    context = ConsoleContext(client=client, server_label=base_url, username="admin", now=lambda: NOW)
    app = MailAdminApp(context, start_section="dmarc")
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(lambda: app.query(DmarcInbox) and app.query_one(DmarcInbox).page is not None, "first page")
        await pilot.press("enter")
        await wait_for(lambda: app.query(ReportView) and app.query_one(ReportView).report is not None, "report")
        await app.workers.wait_for_complete()
        for _ in range(rounds):
            if collect:
                gc.collect()  # each side pays for the garbage it makes, not for the other's: see GARBAGE
            began, cpu = time.perf_counter(), time.process_time()
            got = await client.dmarc_reports.get([report_id])
            figures["gets"].append(time.perf_counter() - began)
            figures["get_cpus"].append(time.process_time() - cpu)
            assert got.items, "the report is gone"

            def table_shown() -> bool:
                views = app.query(RecordsView)
                tables = views.first().query(RecordsTable) if views else ()  # composed, not only made
                return any(table.row_count > 0 for table in tables)

            if collect:
                gc.collect()
            began, cpu = time.perf_counter(), time.process_time()
            if drawn == "pilot":
                await pilot.press("enter")
                await wait_for(table_shown, "the records table")
                await pilot.pause()  # drawn, not only filled
            else:
                app.post_message(events.Key("enter", "\r"))  # as the driver posts a key read from the terminal
                await wait_for(table_shown, "the records table")
                await app.query_one(RecordsView).query_one("#records").wait_for_refresh()
            figures["tables"].append(time.perf_counter() - began)
            figures["table_cpus"].append(time.process_time() - cpu)
            if drawn != "pilot":
                figures.setdefault("whole", []).append(await _scrollbars_drawn(app) - began)
                _check_painted(app)
            await pilot.press("escape")
            await wait_for(lambda: not app.query(RecordsView), "back to the report")
            await pilot.pause()
    await client.aclose()
    return figures


async def _scrollbars_drawn(app: Any) -> float:
    """When the table's scrollbar was drawn too (Textual shows it a frame or two after the rows): the
    whole view, for the figure beside the first frame's."""
    from tui.reports.detail import RecordsView

    table = app.query_one(RecordsView).query_one("#records")
    await wait_for(lambda: table.show_vertical_scrollbar or table.virtual_size.height <= table.size.height,
                   "the table's scrollbar")
    await table.wait_for_refresh()
    return time.perf_counter()


def _check_painted(app: Any) -> None:
    """The table's first rows are where the screen was last laid out and painted (the clock stopped)."""
    from tui.reports.detail import RecordsView

    table = app.query_one(RecordsView).query_one("#records")
    region = table.region
    assert region.height > 1 and table.row_count > 0, "the round ended before the table was laid out"
    # The widget the screen's last layout put under the table's second line (its first row) is the table.
    widget, _ = app.screen.get_widget_at(region.x + 1, region.y + 1)
    assert widget is table, f"the round ended before the table was on screen: {widget!r} there"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=5000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--samples", type=Path, default=default_samples())
    parser.add_argument("--against", type=Path, help="another tree (the base), measured in the same minutes")
    parser.add_argument("--per-process", type=int, default=3, help="rounds each process times (with --against)")
    parser.add_argument("--collect", action="store_true", help="collect the garbage before each timed part")
    parser.add_argument("--drawn", choices=DRAWN_WAYS, default="frame",
                        help="how a round knows the table is on screen: frame (its first refresh with the rows) "
                             "or pilot (pilot.press and pilot.pause, as before)")
    parser.add_argument("--code", type=Path, help=argparse.SUPPRESS)  # read at import: the tree measured
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)  # a child's figures, one line
    args = parser.parse_args()
    samples: Path = args.samples.resolve()
    if not (samples / BIGGEST).is_file():
        print(f"sample corpus not found: {samples}", file=sys.stderr)
        return 2
    if args.against is not None:
        return against(args.against.resolve(), samples, args.records, max(1, args.rounds), max(1, args.per_process),
                       args.collect, args.drawn)
    os.environ.setdefault("TEXTUAL_ANIMATIONS", "none")
    from server_stub.runner import StubServer

    with StubServer(reports=0, directories=False) as stub:
        report_id = _create(stub, big_report(samples, args.records))
        figures = asyncio.run(measure(stub.base_url, stub.admin_token, report_id, max(1, args.rounds), args.collect,
                                      args.drawn))
    if args.json:
        print(json.dumps(figures))
        return 0
    get_s, table_s = statistics.median(figures["gets"]), statistics.median(figures["tables"])
    print(f"report of {args.records:,} records: get {get_s * 1000:.0f} ms, records table {table_s * 1000:.0f} ms: "
          f"×{table_s / get_s:.2f} (target ≤ 2; drawn: {args.drawn})")
    if figures.get("whole"):
        whole_s = statistics.median(figures["whole"])
        print(f"  with its scrollbar drawn too: {whole_s * 1000:.0f} ms: ×{whole_s / get_s:.2f}")
    get_cpu, table_cpu = statistics.median(figures["get_cpus"]), statistics.median(figures["table_cpus"])
    print(f"CPU of the process: get {get_cpu * 1000:.0f} ms, records table {table_cpu * 1000:.0f} ms: "
          f"×{table_cpu / get_cpu:.2f}")
    return 0


CHILD_TIMEOUT = 600
"""Seconds a child process may take (seeding the report, then its rounds)."""


def against(base: Path, samples: Path, records: int, rounds: int, per_process: int, collect: bool,
            drawn: str = "frame") -> int:
    """This tree and ``base``, ``rounds`` processes each, alternating; medians and ratios of both."""
    if not (base / "tui" / "reports" / "detail.py").is_file():
        print(f"not a tree of this project: {base}", file=sys.stderr)
        return 2
    figures: dict[Path, dict[str, list[float]]] = {ROOT: {}, base: {}}
    loads = [os.getloadavg()[0]]
    for index in range(rounds):
        for code in (ROOT, base) if index % 2 == 0 else (base, ROOT):
            done = subprocess.run(
                [sys.executable, str(Path(__file__).resolve()), "--code", str(code), "--json", "--records",
                 str(records), "--rounds", str(per_process), "--samples", str(samples), *(["--collect"] * collect),
                 "--drawn", drawn],
                capture_output=True, text=True, timeout=CHILD_TIMEOUT, check=False, cwd=code,
                env={**os.environ, "PYTHONPATH": str(code), "TEXTUAL_ANIMATIONS": "none"})
            if done.returncode:
                print(f"the run of {code} failed:\n{done.stderr[-3000:]}", file=sys.stderr)
                return 1
            child = json.loads(done.stdout.strip().splitlines()[-1])
            for key, values in child.items():
                figures[code].setdefault(key, []).extend(values)
        loads.append(os.getloadavg()[0])
    ratios = {}
    for code, name in ((base, "before"), (ROOT, "after")):
        get_s, table_s = statistics.median(figures[code]["gets"]), statistics.median(figures[code]["tables"])
        ratios[name] = table_s / get_s
        print(f"{name} ({code}): report of {records:,} records: get {get_s * 1000:.0f} ms, records table "
              f"{table_s * 1000:.0f} ms: ×{ratios[name]:.2f} (target ≤ 2), {len(figures[code]['tables'])} rounds")
        if figures[code].get("whole"):
            whole_s = statistics.median(figures[code]["whole"])
            print(f"  with its scrollbar drawn too: {whole_s * 1000:.0f} ms: ×{whole_s / get_s:.2f}")
        get_cpu = statistics.median(figures[code]["get_cpus"])
        table_cpu = statistics.median(figures[code]["table_cpus"])
        print(f"  CPU of the process: get {get_cpu * 1000:.0f} ms, records table {table_cpu * 1000:.0f} ms: "
              f"×{table_cpu / get_cpu:.2f}")
    after_before = statistics.median(figures[ROOT]["tables"]) / statistics.median(figures[base]["tables"])
    print(f"table time, after / before: ×{after_before:.2f}; drawn: {drawn}; "
          f"load average {min(loads):.1f}-{max(loads):.1f}")
    return 0


def _create(stub: Any, wire: dict[str, Any]) -> str:
    from jmapclient import JmapClient

    async def create() -> str:
        async with JmapClient(stub.base_url, stub.admin_token, timeout=120) as client:
            return await client.dmarc_reports.create(wire)

    return asyncio.run(create())


if __name__ == "__main__":
    raise SystemExit(main())
