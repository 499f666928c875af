"""DMARC insight: the advisor over many stored reports, and naming many sources through a slow resolver.

Prints, for 1,000, 10,000 and 100,000 synthetic reports in an in-memory digest store
(5 records each, 200 distinct sources, 4 policy domains): the time of ``advise_stored``
offline (reading the period's digests twice, judging every record) and the process's
peak memory. Then the time to name 1,000 sources through a fake resolver that answers
each query after 20 ms, at the default concurrency and at 1, and how many were named:
what the bound on concurrency buys, without touching the network.

Run: ``python bench/bench_dmarc_advice.py [--sizes 1000,10000,100000]``.
"""

from __future__ import annotations

import argparse
import asyncio
import resource
import time
from datetime import UTC, date, datetime, timedelta

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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,100000")
    args = parser.parse_args()
    for size in (int(s) for s in args.sizes.split(",")):
        asyncio.run(advice_figures(size))
    asyncio.run(naming(DEFAULT_CONCURRENCY, 1000))
    asyncio.run(naming(1, 100))


if __name__ == "__main__":
    main()
