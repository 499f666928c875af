"""Marking a report with space against moving the cursor, in the same console, alternating.

The console runs headless on a stub of ``--reports`` reports (in this process, on loopback);
each round presses space (which marks and moves down) and ``j`` (which only moves down), each
timed until the screen is updated. Target: a mark costs what a cursor move costs. Run:
``python bench/bench_inbox_marks.py [--reports 200] [--presses 40]``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.bench_dmarc_console import NOW, wait_for  # noqa: E402


async def presses(base_url: str, token: str, count: int) -> tuple[list[float], list[float]]:
    from jmapclient import JmapClient
    from tui.app import MailAdminApp
    from tui.context import ConsoleContext
    from tui.reports.inbox import DmarcInbox

    marks, moves = [], []
    client = JmapClient(base_url, token)
    context = ConsoleContext(client=client, server_label=base_url, username="admin", now=lambda: NOW)
    app = MailAdminApp(context, start_section="dmarc")
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(lambda: app.query(DmarcInbox) and app.query_one(DmarcInbox).page is not None, "first page")
        await app.workers.wait_for_complete()
        for index in range(count):
            if index % 20 == 0:  # stay on the first page: back to its top now and then
                await pilot.press("g")
                await app.workers.wait_for_complete()
            for key, into in (("space", marks), ("j", moves)):
                began = time.perf_counter()
                await pilot.press(key)
                into.append(time.perf_counter() - began)
    await client.aclose()
    return marks, moves


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reports", type=int, default=200)
    parser.add_argument("--presses", type=int, default=40)
    args = parser.parse_args()
    os.environ.setdefault("TEXTUAL_ANIMATIONS", "none")
    from server_stub.runner import StubServer

    with StubServer(reports=args.reports, directories=False, seed=3, now=NOW) as stub:
        marks, moves = asyncio.run(presses(stub.base_url, stub.admin_token, max(2, args.presses)))
    mark, move = statistics.median(marks), statistics.median(moves)
    print(f"space (mark and move down) {mark * 1000:.1f} ms, j (move down) {move * 1000:.1f} ms: "
          f"×{mark / move:.2f} (target ≈ 1)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
