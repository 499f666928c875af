"""Source names with a fake resolver: confirmation, failures, timeouts, the cache and the offline switch."""

from __future__ import annotations

import asyncio
import json
import stat
import time
from datetime import date
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from jmapclient.dmarc.digest_store import DigestStore
from jmapclient.dmarc.insight import names
from jmapclient.dmarc.insight.judge import Tallies, report_context, source_bound
from jmapclient.dmarc.insight.names import NameCache, NameResolver, NameStatus
from jmapclient.dmarc.insight.services import Service
from tests.support.fake_dns import BROKEN, HANG, FakeResolver
from tests.support.insight_reports import PERIOD, aligned, record, report

GOOGLE_IP = "209.85.220.41"
GOOGLE_PTR = "mail-sor-f41.google.com"


def resolver_for(fake: FakeResolver, **options) -> NameResolver:
    return NameResolver(fake, **options)


async def test_a_confirmed_name_is_kept_with_its_base_domain_and_service() -> None:
    fake = FakeResolver(ptr={GOOGLE_IP: [GOOGLE_PTR + "."]}, addresses={GOOGLE_PTR: ["209.85.220.41"]})
    names = await resolver_for(fake).resolve_all([GOOGLE_IP])
    name = names[GOOGLE_IP]
    assert (name.status, name.ptr, name.base) == (NameStatus.CONFIRMED, GOOGLE_PTR, "google.com")
    assert name.service == Service("Google Workspace", "mailbox") and name.label == "Google Workspace"


async def test_a_ptr_the_forward_lookup_does_not_confirm_is_dropped() -> None:
    # Anyone who holds an address block can point its PTR at google.com.
    fake = FakeResolver(ptr={"203.0.113.9": ["mail.google.com"]}, addresses={"mail.google.com": ["142.250.1.1"]})
    name = (await resolver_for(fake).resolve_all(["203.0.113.9"]))["203.0.113.9"]
    assert name.status is NameStatus.UNCONFIRMED
    assert name.ptr is None and name.service is None and name.label == ""


async def test_ipv6_is_compared_in_its_canonical_spelling() -> None:
    fake = FakeResolver(ptr={"2001:db8::25": ["mx.example.net"]}, addresses={"mx.example.net": ["2001:DB8:0::25"]})
    name = (await resolver_for(fake).resolve_all(["2001:db8:0:0::25"]))["2001:db8:0:0::25"]
    assert name.status is NameStatus.CONFIRMED and name.base == "example.net"


async def test_nxdomain_a_failure_and_a_timeout() -> None:
    fake = FakeResolver(ptr={"192.0.2.2": BROKEN, "192.0.2.3": HANG, "192.0.2.4": ["slow.example"]},
                        addresses={"slow.example": HANG})
    started = time.monotonic()
    names = await resolver_for(fake, timeout=0.05).resolve_all(["192.0.2.1", "192.0.2.2", "192.0.2.3", "192.0.2.4"])
    assert time.monotonic() - started < 2  # two hangs, each cut at 0.05 s
    assert {ip: n.status for ip, n in names.items()} == {
        "192.0.2.1": NameStatus.NO_NAME, "192.0.2.2": NameStatus.FAILED,
        "192.0.2.3": NameStatus.TIMEOUT, "192.0.2.4": NameStatus.TIMEOUT,
    }


async def test_not_an_address_is_never_looked_up() -> None:
    fake = FakeResolver()
    hostile = "1.2.3.4\x1b]52;c;aGk=\x07"
    names = await resolver_for(fake).resolve_all([hostile, ""])
    assert fake.calls == [] and {n.status for n in names.values()} == {NameStatus.FAILED}


async def test_a_scoped_address_is_never_looked_up_and_a_mapped_one_is_looked_up_as_ipv4() -> None:
    # A scope id names an interface of a host, no sender; '::ffff:192.0.2.1' is the sender 192.0.2.1 (the tester's).
    fake = FakeResolver(ptr={"192.0.2.1": ["mx.example.net"]}, addresses={"mx.example.net": ["192.0.2.1"]})
    names = await resolver_for(fake).resolve_all(["2001:db8::1%a", "::ffff:192.0.2.1"])
    assert names["2001:db8::1%a"].status is NameStatus.FAILED
    assert names["::ffff:192.0.2.1"].status is NameStatus.CONFIRMED
    assert fake.calls == ["192.0.2.1", "mx.example.net"]


LOCAL_ADDRESSES = ["10.1.2.3", "172.16.0.9", "192.168.1.1", "100.64.0.1", "127.0.0.1", "169.254.9.9", "0.0.0.0",
                   "fd00::25", "fe80::1", "::1", "::ffff:10.0.0.5", "224.0.0.1"]


async def test_a_local_address_is_never_looked_up_nor_named_from_the_cache(tmp_path: Path) -> None:
    # A forged report claiming mail from an internal address: the admin's own resolver would name it, and confirm
    # the name, dressing the outside claim as the admin's own server.
    internal = {ip: ["mail.corp.example."] for ip in LOCAL_ADDRESSES}
    fake = FakeResolver(ptr=internal, addresses={"mail.corp.example": LOCAL_ADDRESSES})
    cache = NameCache(tmp_path / "names.json")
    cache.put("192.168.1.1", NameStatus.CONFIRMED, "mail.corp.example")  # kept by an earlier version
    resolver = NameResolver(fake, cache)
    names = await resolver.resolve_all(LOCAL_ADDRESSES)
    local = (NameStatus.LOCAL, None)
    assert {ip: (n.status, n.ptr) for ip, n in names.items()} == dict.fromkeys(LOCAL_ADDRESSES, local)
    assert fake.calls == [] and resolver.lookups == 0


async def test_public_and_documentation_addresses_are_still_looked_up() -> None:
    # The demo's reports use the documentation ranges; only local networks are set aside.
    fake = FakeResolver(ptr={GOOGLE_IP: [GOOGLE_PTR + "."]}, addresses={GOOGLE_PTR: [GOOGLE_IP]})
    names = await resolver_for(fake).resolve_all([GOOGLE_IP, "192.0.2.7", "2001:db8::7", "172.32.0.1"])
    assert {ip: n.status for ip, n in names.items()} == {
        GOOGLE_IP: NameStatus.CONFIRMED, "192.0.2.7": NameStatus.NO_NAME, "2001:db8::7": NameStatus.NO_NAME,
        "172.32.0.1": NameStatus.NO_NAME}


async def test_offline_does_no_lookups_and_loads_no_dns_library(tmp_path: Path) -> None:
    fake = FakeResolver(ptr={GOOGLE_IP: [GOOGLE_PTR]}, addresses={GOOGLE_PTR: [GOOGLE_IP]})
    resolver = NameResolver(fake, NameCache(tmp_path / "names.json"), offline=True)
    names = await resolver.resolve_all([GOOGLE_IP, "192.0.2.1"])
    assert {n.status for n in names.values()} == {NameStatus.OFFLINE}
    assert fake.calls == [] and resolver.lookups == 0
    assert not (tmp_path / "names.json").exists()
    assert resolver.known(GOOGLE_IP).status is NameStatus.OFFLINE


async def test_concurrency_is_bounded() -> None:
    ips = [f"192.0.2.{n}" for n in range(1, 41)]
    fake = FakeResolver(delay=0.01)
    names = await resolver_for(fake, concurrency=4).resolve_all(ips)
    assert len(names) == 40 and fake.most_running <= 4 and len(fake.calls) == 40


async def test_only_so_many_sources_are_looked_up_the_first_given_and_no_task_an_address(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # tester86: twenty forged reports of 20,000 addresses each had the console ask 400,000 questions about the
    # forger's own reverse zone, one task each made up front.
    monkeypatch.setattr(names, "MAX_LOOKUPS", 30)
    ips = [f"198.51.100.{n}" for n in range(1, 41)]  # the most messages first, as the callers give them
    fake = FakeResolver(delay=0.001)
    resolver = resolver_for(fake, concurrency=4)
    tasks_before = len(asyncio.all_tasks())
    most_tasks = 0
    got = {}
    async for name in resolver.stream(ips):
        got[name.ip] = name.status
        most_tasks = max(most_tasks, len(asyncio.all_tasks()) - tasks_before)
    assert sorted(fake.calls) == sorted(ips[:30]) and fake.most_running <= 4
    assert [ip for ip in ips if got[ip] is NameStatus.NOT_LOOKED_UP] == ips[30:]
    # A worker a lookup that may run at once (and its query's own timeout task), not one task an address.
    assert most_tasks <= 2 * 4, most_tasks


async def test_names_stream_cached_first_then_as_they_arrive(tmp_path: Path) -> None:
    cache = NameCache(tmp_path / "names.json")
    cache.put("192.0.2.1", NameStatus.CONFIRMED, "mx.example.com")
    fake = FakeResolver(ptr={"192.0.2.2": HANG, "192.0.2.3": ["a.example"]}, addresses={"a.example": ["192.0.2.3"]})
    resolver = NameResolver(fake, cache, timeout=0.5)
    assert resolver.known("192.0.2.1").ptr == "mx.example.com"  # at once, before any lookup
    assert resolver.known("192.0.2.3").status is NameStatus.PENDING
    order = [name.ip async for name in resolver.stream(["192.0.2.2", "192.0.2.1", "192.0.2.3"])]
    assert order == ["192.0.2.1", "192.0.2.3", "192.0.2.2"]  # the hang comes last, as its timeout


async def test_a_consumer_that_stops_early_cancels_the_lookups() -> None:
    fake = FakeResolver(ptr={f"192.0.2.{n}": HANG for n in range(2, 10)})
    resolver = NameResolver(fake, timeout=30)
    stream = resolver.stream([f"192.0.2.{n}" for n in range(1, 10)])
    first = await anext(stream)
    assert first.ip == "192.0.2.1"
    await stream.aclose()
    assert fake.running == 0


async def test_the_cache_answers_until_it_expires(tmp_path: Path) -> None:
    now = [1_000_000.0]
    path = tmp_path / "data" / "names.json"
    fake = FakeResolver(ptr={GOOGLE_IP: [GOOGLE_PTR], "192.0.2.1": BROKEN}, addresses={GOOGLE_PTR: [GOOGLE_IP]})
    first = NameResolver(fake, NameCache(path, ttl=100, clock=lambda: now[0]))
    await first.resolve_all([GOOGLE_IP, "192.0.2.1"])
    assert sorted(fake.calls) == sorted([GOOGLE_IP, "192.0.2.1", GOOGLE_PTR])
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    stored = json.loads(path.read_text())
    assert set(stored) == {GOOGLE_IP}  # a failure is not cached: it is asked again next time

    fake.calls.clear()
    now[0] += 99
    second = NameResolver(fake, NameCache(path, ttl=100, clock=lambda: now[0]))
    names = await second.resolve_all([GOOGLE_IP])
    assert fake.calls == [] and second.lookups == 0  # a hit, from the file
    assert names[GOOGLE_IP].service == Service("Google Workspace", "mailbox")  # the map is applied on reading

    now[0] += 2
    third = NameResolver(fake, NameCache(path, ttl=100, clock=lambda: now[0]))
    await third.resolve_all([GOOGLE_IP])
    assert fake.calls == [GOOGLE_IP, GOOGLE_PTR]  # expired: looked up again


@pytest.mark.parametrize("content", ["{not json", "[1, 2]", '{"192.0.2.1": {"status": "weird", "at": "x"}}', ""])
async def test_a_damaged_cache_file_is_ignored(tmp_path: Path, content: str) -> None:
    path = tmp_path / "names.json"
    path.write_text(content)
    fake = FakeResolver()
    names = await NameResolver(fake, NameCache(path)).resolve_all(["192.0.2.1"])
    assert names["192.0.2.1"].status is NameStatus.NO_NAME and fake.calls == ["192.0.2.1"]
    assert json.loads(path.read_text())["192.0.2.1"]["status"] == "no name"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


async def test_a_cache_that_cannot_be_written_is_not_fatal(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    names = await NameResolver(FakeResolver(), NameCache(blocker / "names.json")).resolve_all(["192.0.2.1"])
    assert names["192.0.2.1"].status is NameStatus.NO_NAME


async def test_dnspython_answers_are_mapped_to_the_protocol() -> None:
    import dns.exception
    import dns.resolver

    from jmapclient.dmarc.insight.names import DnsResolver, LookupFailed

    def failing(error: Exception):
        async def lookup():
            raise error
        return lookup

    resolver = DnsResolver()
    assert await resolver._answers(failing(dns.resolver.NXDOMAIN())) == []
    assert await resolver._answers(failing(dns.resolver.NoAnswer())) == []
    with pytest.raises(TimeoutError):
        await resolver._answers(failing(dns.exception.Timeout()))
    with pytest.raises(LookupFailed):
        await resolver._answers(failing(dns.resolver.NoNameservers()))


async def test_a_budget_bounds_the_whole_naming(tmp_path: Path) -> None:
    ips = [f"192.0.2.{n}" for n in range(1, 60)]
    fake = FakeResolver(ptr={ip: HANG for ip in ips[1:]})
    cache = NameCache(tmp_path / "names.json")
    started = time.monotonic()
    # The budget (1 s) bounds the whole naming although each lookup may take 30 s; it is wide
    # enough for the one answering lookup to finish on a busy machine (0.2 s was not, in a full run).
    names = await NameResolver(fake, cache, concurrency=4, timeout=30).resolve_all(ips, budget=1.0)
    assert time.monotonic() - started < 10
    assert list(names) == ips and names[ips[0]].status is NameStatus.NO_NAME
    assert {names[ip].status for ip in ips[1:]} == {NameStatus.TIMEOUT}
    assert fake.running == 0  # nothing left running behind the answer
    assert json.loads((tmp_path / "names.json").read_text()).keys() == {ips[0]}  # what was learnt is kept


def _normal_by_ipaddress(text: str) -> str | None:
    import ipaddress

    try:
        address = ipaddress.ip_address(text.strip())
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.scope_id is not None:
        return None  # a scope id names no sender
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return str(address.ipv4_mapped)  # the IPv4 sender it maps
    return str(address)


_QUAD_PARTS = st.one_of(st.integers(0, 300).map(str), st.sampled_from(["00", "01", "010", "255", "256", " 1", "1 ",
                                                                        "", "-1", "1a", "٣"]))


@given(st.one_of(st.lists(_QUAD_PARTS, min_size=3, max_size=5).map(".".join), st.text(max_size=20),
                 st.ip_addresses().map(str), st.ip_addresses(v=4).map(lambda ip: f"::ffff:{ip}"),
                 st.tuples(st.ip_addresses(v=6), st.text(max_size=5)).map(lambda pair: f"{pair[0]}%{pair[1]}")))
def test_normal_ip_agrees_with_ipaddress(text: str) -> None:
    # The canonical-IPv4 pattern answers without ipaddress: it must never answer otherwise than it.
    assert names.normal_ip(text) == _normal_by_ipaddress(text)


async def test_the_sources_are_given_for_naming_the_most_messages_first() -> None:
    # Only MAX_LOOKUPS are looked up: the ones that matter most, not the first in address order.
    reports = [report(aligned("192.0.2.1", 5), record("203.0.113.9", 900), record("198.51.100.4", 40),
                      day=date(2026, 3, 2), rid="a"),
               report(aligned("192.0.2.1", 5), day=date(2026, 3, 3), rid="b")]
    store = DigestStore(None)
    store.put(reports)
    store.mark_listed([r.id for r in reports])
    try:
        assert source_bound(store, *PERIOD).ips == ("203.0.113.9", "198.51.100.4", "192.0.2.1")
    finally:
        store.close()
    contexts = {n: report_context(r) for n, r in enumerate(reports)}
    records = [(n, *fields) for n, r in enumerate(reports) for fields in (
        (x.source_ip, x.count, x.dkim, x.spf, x.header_from, x.overrides, x.dkim_auth, x.spf_auth) for x in r.records)]
    assert Tallies(records, contexts).ips() == ["203.0.113.9", "198.51.100.4", "192.0.2.1"]
