"""DMARC insight: the advisor over many stored reports, and naming many sources through a slow resolver.

Prints, for 1,000, 10,000 and 100,000 synthetic reports in an in-memory digest store
(5 records each, 200 distinct sources, 4 policy domains): the time of ``advise_stored``
offline (the period's stored rows and records read once, every record judged) and the process's
peak memory. Then the time to name 1,000 sources through a fake resolver that answers
each query after 20 ms, at the default concurrency and at 1, and how many were named:
what the bound on concurrency buys, without touching the network.

With ``--flood``, forged reports of that many distinct sources in all (20,000 a report, one failing
message each, every record authenticated by a domain of its own, as a forger writes them): the time and
peak memory of ``advise_stored`` offline, in a process of its own per size, so one size's peak is not
another's. The advice judges so many sources one by one only (``MAX_JUDGED_SOURCES``) and counts the
rest's mail.

With ``--cli-sizes``, it also runs ``dmarc-advice --offline --json`` itself against a stub
of that many reports (its own process, the database seeded once, as in
``bench_dmarc_console.py``): a first run on an empty data directory (every report
fetched), then a second run on the same one (the server's digest store kept: nothing
fetched), with the wall time and peak RSS of each. ``--code DIR`` runs the command from
another checkout (an earlier commit unpacked there), for a before/after on one machine.

Run: ``python bench/bench_dmarc_advice.py [--sizes 1000,10000,100000] [--flood 100000,400000]
[--cli-sizes 1000,100000]``.
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
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

from jmapclient.dmarc.analytics import RecordDigest, ReportDigest
from jmapclient.dmarc.digest_store import DigestStore
from jmapclient.dmarc.insight.advice import advise_stored
from jmapclient.dmarc.insight.names import DEFAULT_CONCURRENCY, NameResolver

DOMAINS = ("example.com", "example.org", "shop.example.net", "example.dev")
LAST = date(2026, 3, 1)
LATENCY = 0.02


def synthetic(count: int) -> list[ReportDigest]:
    reports = []
    for n in range(count):
        domain = DOMAINS[n % len(DOMAINS)]
        begin = datetime(2026, 1, 1, tzinfo=UTC) + timedelta(days=n % 60)
        records = tuple(
            RecordDigest(source_ip=f"192.0.2.{(n + k) % 200}", count=1 + (n * k) % 50, disposition="none",
                         dkim="pass" if k % 3 else "fail", spf="pass" if k % 2 else "fail", header_from=domain,
                         envelope_from=domain, dkim_auth=((domain if k % 4 else "sendgrid.net", "pass"),),
                         spf_auth=((domain, "pass" if k % 2 else "fail"),))
            for k in range(5)
        )
        reports.append(ReportDigest(id=f"r{n}", reporter="r", report_id=str(n), policy_domain=domain, begin=begin,
                                    end=begin + timedelta(hours=23), records=records, p="none", adkim="relaxed",
                                    aspf="relaxed"))
    return reports


FLOOD_DOMAIN = "flood.example"
FLOOD_PER_REPORT = 20_000


def flooded(sources: int) -> list[ReportDigest]:
    """Reports of ``sources`` distinct IPv6 sources in all, :data:`FLOOD_PER_REPORT` a report, a day apart."""
    reports = []
    for n, at in enumerate(range(0, sources, FLOOD_PER_REPORT)):
        begin = datetime(2026, 2, 1, tzinfo=UTC) + timedelta(days=n % 28)
        records = tuple(
            RecordDigest(source_ip=f"2001:db8:{n:x}::{k:x}", count=1, disposition="none", dkim="fail", spf="fail",
                         header_from=FLOOD_DOMAIN, envelope_from=FLOOD_DOMAIN,
                         spf_auth=((f"s{k}.spam{n}.test", "pass"),))
            for k in range(min(FLOOD_PER_REPORT, sources - at))
        )
        reports.append(ReportDigest(id=f"f{n}", reporter=f"Flood{n}", report_id=str(n), policy_domain=FLOOD_DOMAIN,
                                    begin=begin, end=begin + timedelta(hours=23), records=records))
    return reports


FLOODED = """
import asyncio, resource, sys, time
from datetime import timedelta
from bench.bench_dmarc_advice import LAST, flooded
from jmapclient.dmarc.digest_store import DigestStore
from jmapclient.dmarc.insight.advice import advise_stored
from jmapclient.dmarc.insight.names import NameResolver
store = DigestStore(None)
digests = flooded(int(sys.argv[1]))
store.put(digests)
store.mark_listed([d.id for d in digests])
del digests
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
began = time.perf_counter()
advice = asyncio.run(advise_stored(store, LAST - timedelta(days=29), LAST, resolver=NameResolver(offline=True)))
seconds = time.perf_counter() - began
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(f"{seconds:.2f} {before:.0f} {peak:.0f} {sum(len(a.sources) for a in advice)} {advice[0].verdict}")
"""
"""One flood's advice in a process of its own: seconds, peak RSS before and after judging (MiB), sources judged."""


def flood_figures(sources: int) -> None:
    done = subprocess.run([sys.executable, "-c", FLOODED, str(sources)], capture_output=True, text=True, timeout=1200,
                          check=True, cwd=ROOT)
    seconds, before, peak, judged, verdict = done.stdout.split(maxsplit=4)
    print(f"advice over a flood of {sources:>7} forged sources: {float(seconds):6.2f} s, {judged} judged one by one,"
          f" peak RSS {before} MiB stored, {peak} MiB after judging; verdict {verdict.strip()}")


class SlowResolver:
    async def reverse(self, ip: str) -> list[str]:
        await asyncio.sleep(LATENCY)
        return [f"host-{ip.replace('.', '-')}.example.net"]

    async def forward(self, name: str) -> list[str]:
        await asyncio.sleep(LATENCY)
        return [name.removeprefix("host-").removesuffix(".example.net").replace("-", ".")]


async def advice_figures(size: int) -> None:
    store = DigestStore(None)
    digests = synthetic(size)
    store.put(digests)
    store.mark_listed([d.id for d in digests])
    started = time.perf_counter()
    advice = await advise_stored(store, LAST - timedelta(days=29), LAST, resolver=NameResolver(offline=True))
    seconds = time.perf_counter() - started
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"advice over {size:>7} reports: {seconds:6.2f} s, {len(advice)} domains,"
          f" {sum(len(a.sources) for a in advice)} sources, peak RSS {peak:.0f} MB")
    store.close()


async def naming(concurrency: int, count: int) -> None:
    ips = [f"10.{n // 65536}.{n // 256 % 256}.{n % 256}" for n in range(count)]
    started = time.perf_counter()
    names = await NameResolver(SlowResolver(), concurrency=concurrency).resolve_all(ips)
    confirmed = sum(1 for n in names.values() if n.ptr)
    print(f"naming {count} sources, concurrency {concurrency:>2}, {LATENCY * 1000:.0f} ms a query:"
          f" {time.perf_counter() - started:6.2f} s, {confirmed} confirmed")


ROOT = Path(__file__).resolve().parents[1]
CLI_DAYS = 3660
"""The whole of the stub's data, whatever today is: the command judges every report."""


PHASED = """
import json, resource, sys, time
began, cpu = time.perf_counter(), time.process_time()
from mailadmin.main import main
import jmapclient.dmarc.digest_store as store
import jmapclient.dmarc.insight.advice as advice
marks = {"boot_cpu": cpu}
def timed(owner, name, label):
    inner = getattr(owner, name, None)
    if inner is None:
        return
    async def phase(*args, **kwargs):
        marks[label + "_from"] = time.perf_counter() - began
        marks[label + "_from_cpu"] = time.process_time()
        try:
            return await inner(*args, **kwargs)
        finally:
            marks[label] = time.perf_counter() - began - marks[label + "_from"]
            marks[label + "_cpu"] = time.process_time() - marks[label + "_from_cpu"]
    setattr(owner, name, phase)
timed(store.DigestStore, "sync", "sync")
timed(advice, "advise_stored", "judging")
code = main(sys.argv[1:])
marks["main"], marks["main_cpu"] = time.perf_counter() - began, time.process_time()
print(json.dumps(marks), file=sys.stderr)
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)
sys.exit(code)
"""
"""``dmarc-advice`` run with the start and end of its sync and its judging marked (wall and CPU seconds in the
process), for :func:`cli_run`'s ``phases``: where a run's time went, without changing what it runs."""


def cli_run(base_url: str, token: str, data: Path, code: Path, days: int = CLI_DAYS,
            phases: dict[str, list[float]] | None = None) -> tuple[float, float]:
    """(wall seconds, peak RSS MiB) of one ``dmarc-advice`` run in its own process, over the last ``days``.

    ``phases``: the run's split is appended to it (:func:`phase_split`), the sync and judging marked
    (:data:`PHASED`)."""
    program = PHASED if phases is not None else (
        "import resource, sys; from mailadmin.main import main; code = main(sys.argv[1:]);"
        " print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr); sys.exit(code)")
    command = [sys.executable, "-c", program,
               "dmarc-advice", "--offline", "--json", f"--days={days}", f"--url={base_url}"]
    env = {**os.environ, "MAILADMIN_DATA": str(data), "MAILADMIN_TOKEN": token, "PYTHONPATH": str(code)}
    began = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, timeout=1800, check=False, env=env, cwd=code)
    wall = time.perf_counter() - began
    if done.returncode:
        raise RuntimeError(f"dmarc-advice failed:\n{done.stderr[-3000:]}")
    lines = done.stderr.strip().splitlines()
    if phases is not None:
        for name, seconds in phase_split(json.loads(lines[-2]), wall).items():
            phases.setdefault(name, []).append(seconds)
    return wall, int(lines[-1]) / 1024


def phase_split(marks: dict[str, float], wall: float) -> dict[str, float]:
    """A marked run's wall and CPU seconds by phase: up to the sync (the interpreter, imports, session, store),
    the sync, the judging, what follows until the command returns (output, history), and the process's
    start and exit outside ``main`` (wall only: the interpreter before the first mark, and after the last)."""
    if "sync" not in marks or "judging" not in marks:
        return {}
    return {
        "start wall": marks["sync_from"], "start cpu": marks["sync_from_cpu"],
        "sync wall": marks["sync"], "sync cpu": marks["sync_cpu"],
        "judging wall": marks["judging"], "judging cpu": marks["judging_cpu"],
        "output wall": marks["main"] - marks["judging_from"] - marks["judging"],
        "output cpu": marks["main_cpu"] - marks["judging_from_cpu"] - marks["judging_cpu"],
        "outside main wall": wall - marks["main"],
    }


def cli_figures(size: int, code: Path) -> None:
    from bench.bench_dmarc_analytics import stub_serving
    from bench.bench_dmarc_console import TOKEN

    work = Path(tempfile.gettempdir()) / "mailadmin-dmarc-bench"
    work.mkdir(exist_ok=True)
    with stub_serving(size, work, work / f"advice-data-{size}") as base_url:
        for run in ("first run (empty cache)", "second run (cache kept)"):
            wall, peak = cli_run(base_url, TOKEN, work / f"advice-data-{size}", code)
            print(f"dmarc-advice over {size:>7} reports, {run}: {wall:6.2f} s, peak RSS {peak:.0f} MiB", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--flood", default="", help="sources a flood of forged reports names in all, comma-separated")
    parser.add_argument("--cli-sizes", default="")
    parser.add_argument("--code", type=Path, default=ROOT, help="the checkout whose dmarc-advice runs")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    for size in (int(s) for s in args.sizes.split(",") if s):
        asyncio.run(advice_figures(size))
    for sources in (int(s) for s in args.flood.split(",") if s):
        flood_figures(sources)
    for size in (int(s) for s in args.cli_sizes.split(",") if s):
        cli_figures(size, args.code.resolve())
    if not args.sizes:
        return
    asyncio.run(naming(DEFAULT_CONCURRENCY, 1000))
    asyncio.run(naming(1, 100))


if __name__ == "__main__":
    main()
