"""Query page shapes over 1k, 10k and 100k DMARC reports in the stub, with each shape's ratio to 1k.

Run: ``python bench/bench_stub_query.py [--sizes 1000,10000,100000] [--repeat 7] [--dir DIR]``.
For each size it bulk-loads demo reports into a SQLite file (temporary, or ``bench-<size>.sqlite3``
in ``--dir``, seeded once and reused by later runs, as a restarted server keeps its data), then times every
shape through the full JMAP method path (envelope, filter-to-SQL, index lookups) in
process, without HTTP, asking for the total as the console's pager does:

- filters: none; a failed total above zero, above three, below two, above six, equal to four; a passed total
  above zero; one ``text`` word, two; an ``expiresAt`` range;
- sorts: newest received first, soonest expiry first, the default (id, descending);
- pages of 50: the first, a deep one (half-way through the results), the last.

The ratio column is the 100k/1k ratio of the medians (the target is at most 2). "Cold" is
the first call, timed apart: for a first page, the first query of its filter and sort
(nothing kept yet); for a deep or last page, its first call after that first page. "After a
write" is each page's first call after one report is written (an update, as the console's
edits and an arriving report are): what a query after a write costs once the server has run a
while. Each single call is timed after a garbage collection, so that a collector pause (a few
ms with 100,000 ids kept) lands in no one shape's figure. Bounded: a fixed number of repeats per
shape, sizes capped at 200,000.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from jmapclient.encoding import format_utc
from jmapclient.models.objects import DMARC_EXTERNAL_REPORT
from jmapclient.session import CORE_CAPABILITY, SPEC_CAPABILITY
from server_stub.auth import Principal, all_permissions
from server_stub.demo_data import DEMO_NOW, seed_store
from server_stub.methods.context import CallContext
from server_stub.profiles import SPEC
from server_stub.protocol import Dispatcher
from server_stub.store import Store
from server_stub.validation import stored_form

MAX_SIZE = 200_000
PAGE = 50
FILTERS: dict[str, dict[str, Any] | None] = {
    "none": None,
    "failed>0": {"totalFailedSessionsIsGreaterThan": 0},
    "passed>0": {"totalSuccessfulSessionsIsGreaterThan": 0},
    "failed>3": {"totalFailedSessionsIsGreaterThan": 3},
    "failed<2": {"totalFailedSessionsIsLessThan": 2},
    "failed>6": {"totalFailedSessionsIsGreaterThan": 6},  # about one report in a thousand
    "failed=4": {"totalFailedSessions": 4},
    "text": {"text": "sendgrid"},
    "text, two words": {"text": "sendgrid net"},
    "expiresAt range": {"expiresAtIsGreaterThan": format_utc(DEMO_NOW + timedelta(days=45)),
                        "expiresAtIsLessThan": format_utc(DEMO_NOW + timedelta(days=75))},
}
SORTS: dict[str, list[dict[str, Any]] | None] = {
    "newest": [{"property": "receivedAt", "isAscending": False}],
    "expiry": [{"property": "expiresAt", "isAscending": True}],
    "id": None,
}
PAGES = ("first", "deep", "last")


def _request(filter: dict[str, Any] | None, sort: list[dict[str, Any]] | None, position: int) -> dict[str, Any]:
    arguments: dict[str, Any] = {"position": position, "limit": PAGE, "calculateTotal": True}
    if filter is not None:
        arguments["filter"] = filter
    if sort is not None:
        arguments["sort"] = sort
    return {"using": [CORE_CAPABILITY, SPEC_CAPABILITY],
            "methodCalls": [["x:DmarcExternalReport/query", arguments, "q"]]}


def _write_one(store: Store, report_id: str) -> float:
    """Milliseconds to write one report (stored again as it is: an update that bumps the state)."""
    wire = {key: value for key, value in store.get(DMARC_EXTERNAL_REPORT, [report_id])[report_id].items()
            if key != "id"}
    model = DMARC_EXTERNAL_REPORT.read(wire)
    clock = time.perf_counter()
    store.replace(DMARC_EXTERNAL_REPORT, report_id, model, stored_form(model))
    return (time.perf_counter() - clock) * 1000


def bench(size: int, repeat: int, directory: Path) -> tuple[dict[str, tuple[float, float, float]], float]:
    """Each shape's (cold, median warm, after a write) milliseconds at ``size`` reports, and the
    median milliseconds of the writes."""
    store = Store(directory / f"bench-{size}.sqlite3")
    started = time.perf_counter()
    seeded = seed_store(store, reports=size, directories=False).reports
    print(f"{size:,} reports {'seeded' if seeded else 'reused'} in {time.perf_counter() - started:.1f}s", flush=True)
    dispatcher = Dispatcher(SPEC)
    context = CallContext(store, SPEC, Principal("bench", all_permissions()))
    figures: dict[str, tuple[float, float, float]] = {}
    written = store.all_ids(DMARC_EXTERNAL_REPORT)[size // 3]
    writes = []
    for filter_name, filter in FILTERS.items():
        for sort_name, sort in SORTS.items():
            gc.collect()
            clock = time.perf_counter()  # the first query of this filter and sort: nothing kept yet
            first = dispatcher.run(_request(filter, sort, 0), context, "s")["methodResponses"][0]
            first_ms = (time.perf_counter() - clock) * 1000
            assert first[0] != "error", first
            total = first[1]["total"]
            cold: dict[str, float] = {}
            warm: dict[str, float] = {}
            for page in PAGES:
                position = {"first": 0, "deep": total // 2, "last": -PAGE}[page]
                request = _request(filter, sort, position)
                gc.collect()
                timings = []
                for _ in range(repeat):
                    clock = time.perf_counter()
                    answer = dispatcher.run(request, context, "s")["methodResponses"][0]
                    timings.append((time.perf_counter() - clock) * 1000)
                assert answer[0] != "error", answer
                assert len(answer[1]["ids"]) == min(PAGE, total - answer[1]["position"]), answer
                # Cold: the first query of the filter and sort (the first page), else this page's first call.
                cold[page] = first_ms if page == "first" else timings[0]
                warm[page] = statistics.median(timings[1:])
            writes.append(_write_one(store, written))
            for page in PAGES:
                position = {"first": 0, "deep": total // 2, "last": -PAGE}[page]
                gc.collect()
                clock = time.perf_counter()
                answer = dispatcher.run(_request(filter, sort, position), context, "s")["methodResponses"][0]
                after = (time.perf_counter() - clock) * 1000
                assert answer[0] != "error" and len(answer[1]["ids"]) == min(PAGE, total - answer[1]["position"])
                figures[f"{filter_name:16s} {sort_name:7s} {page:5s}"] = (cold[page], warm[page], after)
    store.close()
    return figures, statistics.median(writes)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--dir", type=Path, help="keep the seeded databases here and reuse them")
    args = parser.parse_args()
    sizes = [min(int(s), MAX_SIZE) for s in args.sizes.split(",")]
    repeat = max(2, min(args.repeat, 100))
    with tempfile.TemporaryDirectory() as scratch:
        directory = args.dir or Path(scratch)
        directory.mkdir(parents=True, exist_ok=True)
        measured = {size: bench(size, repeat, directory) for size in sizes}
    results = {size: figures for size, (figures, _) in measured.items()}
    header = "".join(f"{size:>10,}" for size in sizes)
    big, small = sizes[-1], sizes[0]
    print(f"\nmedian ms per query page ({PAGE} ids, with total); cold = first call, after = first call after a "
          f"write (see the docstring)\n{'filter':16s} {'sort':7s} {'page':5s}{header}   ratio  cold ratio"
          f"  cold ms at {big:,}  after ratio  after ms at {big:,}")
    worst = {"warm": 0.0, "cold": 0.0, "after": 0.0}
    for shape in results[small]:
        row = "".join(f"{results[size][shape][1]:10.2f}" for size in sizes)
        ratios = {kind: results[big][shape][index] / max(results[small][shape][index], 1e-6)
                  for index, kind in enumerate(("cold", "warm", "after"))}
        worst = {kind: max(worst[kind], ratios[kind]) for kind in worst}
        print(f"{shape}{row}  {ratios['warm']:5.2f}×  {ratios['cold']:9.2f}×  {results[big][shape][0]:14.2f}"
              f"  {ratios['after']:10.2f}×  {results[big][shape][2]:15.2f}")
    for kind, ratio in worst.items():
        print(f"worst {kind} ratio {big:,}/{small:,}: {ratio:.2f}×")
    writes = ", ".join(f"{size:,}: {write:.2f}" for size, (_, write) in measured.items())
    print(f"median ms to write one report (the kept results moved across it): {writes}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
