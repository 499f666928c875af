"""The bundled server's ``get`` of DMARC reports: server CPU a report, this checkout against another.

Each side runs in its own process on the code of its checkout (``--code``, default this one;
``--against`` the reference, e.g. the main branch's checkout): it seeds an in-memory store with
``--reports`` demo reports and times its ASGI application answering gets of 500 reports, as
analytics and the advisor ask for them (``properties: [id, report]``) and as a report is opened
(all properties), request body to response bytes, no network. Rounds alternate between the two
sides; the figures are medians. Run:
``python bench/bench_stub_get.py [--reports 2000] [--rounds 5] [--against /path/to/other/checkout]``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
TOKEN = "bench-stub-get-token"
PAGE = 500


async def _call(app: Any, body: bytes) -> bytes:
    """One POST to the application, as uvicorn hands it over; the response body."""
    scope = {"type": "http", "method": "POST", "path": "/api", "scheme": "http", "server": ("127.0.0.1", 80),
             "headers": [(b"authorization", f"Bearer {TOKEN}".encode()), (b"content-type", b"application/json"),
                         (b"content-length", str(len(body)).encode())]}
    sent: list[bytes] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": body, "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.body":
            sent.append(message.get("body", b""))

    await app(scope, receive, send)
    return b"".join(sent)


def child(reports: int, rounds: int) -> None:
    """In the checkout's own interpreter: seed, then time the gets; prints JSON µs a report."""
    from server_stub.app import create_app
    from server_stub.auth import standard_registry
    from server_stub.demo_data import seed_store
    from server_stub.schema import REPORT_SCHEMA
    from server_stub.store import Store

    store = Store()
    seed_store(store, reports=reports, directories=False, seed=7)
    app = create_app(store, tokens=standard_registry(TOKEN, TOKEN + "-ro"))
    using = ["urn:ietf:params:jmap:core", "urn:service:jmap"]
    ids = store.select_ids(f"SELECT id FROM {REPORT_SCHEMA.table} ORDER BY seq", ())

    def body(chunk: list[str], properties: list[str] | None) -> bytes:
        arguments: dict[str, Any] = {"ids": chunk}
        if properties is not None:
            arguments["properties"] = properties
        return json.dumps({"using": using, "methodCalls": [["x:DmarcExternalReport/get", arguments, "g"]]}).encode()

    figures: dict[str, float] = {}
    for label, properties in (("id+report", ["id", "report"]), ("all", None)):
        requests = [body(ids[start:start + PAGE], properties) for start in range(0, len(ids), PAGE)]
        best = []
        for _ in range(rounds):
            began = time.process_time()
            for request in requests:
                answer = asyncio.run(_call(app, request))
            best.append((time.process_time() - began) / len(ids) * 1e6)
        if b"notFound" not in answer or b'"list":[{' not in answer:
            raise RuntimeError(f"the get did not answer reports: {answer[:300]!r}")
        figures[label] = statistics.median(best)
    print(json.dumps(figures))


def run_side(code: Path, reports: int) -> dict[str, float]:
    env = {**os.environ, "PYTHONPATH": str(code)}
    done = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--child", str(reports)],
                          cwd=code, env=env, capture_output=True, text=True, timeout=900, check=False)
    if done.returncode:
        raise RuntimeError(f"the get bench failed in {code}:\n{done.stderr[-3000:]}")
    figures: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reports", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--code", type=Path, default=ROOT)
    parser.add_argument("--against", type=Path, default=None, help="the reference checkout (omitted: none)")
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        sys.path.insert(0, os.getcwd())
        child(args.child, 3)
        return 0
    sides = {"this": args.code.resolve()}
    if args.against:
        sides["reference"] = args.against.resolve()
    results: dict[str, list[dict[str, float]]] = {name: [] for name in sides}
    for _ in range(max(1, args.rounds)):
        for name, code in sides.items():
            results[name].append(run_side(code, args.reports))
    print(f"get of {args.reports:,} reports, {PAGE} a request: server CPU µs a report (median of {args.rounds})")
    medians = {name: {label: statistics.median(r[label] for r in runs) for label in runs[0]}
               for name, runs in results.items()}
    for label in medians["this"]:
        line = f"  {label:>10}: this {medians['this'][label]:7.1f} µs"
        if "reference" in medians:
            reference = medians["reference"][label]
            line += f", reference {reference:7.1f} µs: ×{reference / medians['this'][label]:.2f} faster"
        print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
