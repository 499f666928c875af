"""The digest store against the stub in both profiles: incremental, forgetting, private, hostile-proof."""

from __future__ import annotations

import gc
import random
import stat
from collections.abc import Iterator
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import pytest

from jmapclient.dmarc import digest_store
from jmapclient.dmarc.analytics import RecordDigest, ReportDigest
from jmapclient.dmarc.digest_store import MAX_COUNT, DigestStore, SyncProgress
from jmapclient.encoding import parse_utc
from jmapclient.objects import ObjectApi
from server_stub.demo_data import add_demo_reports
from tests.support.clock import FROZEN_NOW
from tests.support.console import PROFILES, StubWorld, make_world

EVERYTHING = (date(2000, 1, 1), date(2100, 1, 1))


@pytest.fixture(params=PROFILES)
def world(request: pytest.FixtureRequest) -> Iterator[StubWorld]:
    made = make_world(str(request.param), reports=60)
    yield made
    made.store.close()


def api(world: StubWorld) -> ObjectApi:
    return world.context().client.dmarc_reports


def total_reports(store: DigestStore) -> int:
    return store.figures(*EVERYTHING, limit=1).overview.reports


async def test_a_second_visit_lists_ids_and_fetches_nothing(world: StubWorld, tmp_path: Path) -> None:
    store = DigestStore(tmp_path / "d.sqlite")
    reports = api(world)
    first = await store.sync(reports)
    assert (first.listed, first.fetched, first.forgotten) == (60, 60, 0)
    assert total_reports(store) == 60
    before = world.transport.requests
    again = await store.sync(reports)
    assert (again.listed, again.fetched) == (60, 0)
    assert world.transport.requests - before == 1  # one query of ids, no get
    # The store survives a restart of the console: a new store on the same file fetches nothing.
    reopened = DigestStore(tmp_path / "d.sqlite")
    assert (await reopened.sync(api(world))).fetched == 0
    assert total_reports(reopened) == 60


async def test_only_new_reports_are_fetched(world: StubWorld) -> None:
    store = DigestStore()
    await store.sync(api(world))
    add_demo_reports(world.store, 7, random.Random(5), FROZEN_NOW)
    steps: list[SyncProgress] = []
    result = await store.sync(api(world), progress=steps.append)
    assert (result.listed, result.fetched) == (67, 7)
    fetching = [s for s in steps if s.phase == "fetching"]
    assert fetching[0].cached == 60 and fetching[-1].done == fetching[-1].total == 7
    assert [s.done for s in fetching] == sorted(s.done for s in fetching)
    assert total_reports(store) == 67


async def test_a_deleted_report_leaves_the_figures(world: StubWorld) -> None:
    store = DigestStore()
    await store.sync(api(world))
    victim = world.store.all_ids(digest_store_type())[0]
    messages = store.figures(*EVERYTHING, limit=1).overview.messages
    victim_messages = sum(r.count for r in store.get(victim).records)  # type: ignore[union-attr]
    await api(world).destroy([victim])
    result = await store.sync(api(world))
    assert result.forgotten == 1 and victim not in store
    after = store.figures(*EVERYTHING, limit=1).overview
    assert (after.reports, after.messages) == (59, messages - victim_messages)


async def test_with_a_filter_deleted_reports_leave_the_figures_too(world: StubWorld) -> None:
    store = DigestStore()
    await store.sync(api(world))
    victim = world.store.all_ids(digest_store_type())[0]
    await api(world).destroy([victim])
    # Any filter both profiles accept: every report expires after 2000.
    await store.sync(api(world), {"expiresAtIsGreaterThan": "2000-01-01T00:00:00Z"})
    assert total_reports(store) == 59


async def test_another_server_or_profile_starts_empty(tmp_path: Path) -> None:
    path = tmp_path / "d.sqlite"
    spec, stalwart = make_world("spec", reports=5), make_world("stalwart", reports=9)
    store = DigestStore(path)
    await store.sync(api(spec))
    assert len(store) == 5
    # The same address, now answering as the other profile (the real server): nothing is reused.
    result = await DigestStore(path).sync(api(stalwart))
    assert result.fetched == 9 and len(DigestStore(path)) == 9  # the spec profile's 5 are gone
    store.bind("another server")
    assert len(store) == 0
    spec.store.close()
    stalwart.store.close()


async def test_the_file_is_owner_only_and_alone(world: StubWorld, tmp_path: Path) -> None:
    path = tmp_path / "cache" / "d.sqlite"
    store = DigestStore(path)
    await store.sync(api(world))
    beside = sorted(p.name for p in path.parent.iterdir())
    assert beside == ["d.sqlite", "d.sqlite-shm", "d.sqlite-wal"]  # the log of an open store
    assert {stat.S_IMODE((path.parent / name).stat().st_mode) for name in beside} == {0o600}
    store.close()
    assert [p.name for p in path.parent.iterdir()] == ["d.sqlite"]  # no side file left after it


def test_a_damaged_file_costs_only_a_refetch(tmp_path: Path) -> None:
    path = tmp_path / "d.sqlite"
    path.write_bytes(b"not a database" * 100)
    store = DigestStore(path)
    assert len(store) == 0
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


async def test_an_unreadable_report_is_left_out_and_not_fetched_again(
    world: StubWorld, monkeypatch: pytest.MonkeyPatch
) -> None:
    bad = world.store.all_ids(digest_store_type())[3]
    real = digest_store.digest_report

    def refuse_one(wire: dict[str, Any]) -> ReportDigest:
        if wire.get("id") == bad:
            raise ValueError("unreadable")
        return real(wire)

    real_rows = digest_store.wire_rows

    def long_way_for_one(key: int, wire: dict[str, Any]) -> Any:
        return None if wire.get("id") == bad else real_rows(key, wire)

    monkeypatch.setattr(digest_store, "digest_report", refuse_one)
    monkeypatch.setattr(digest_store, "wire_rows", long_way_for_one)  # the one walk leaves it to digest_report
    store = DigestStore()
    result = await store.sync(api(world))
    assert (result.fetched, result.unreadable) == (59, 1)
    assert total_reports(store) == 59 and store.get(bad) is None
    assert (await store.sync(api(world))).fetched == 0


HOSTILE = ["\ud800lone", "nul\x00byte", "'); DROP TABLE reports; --", "%", "_", "😀" * 50, ""]


def test_hostile_strings_and_counts_are_stored_and_summed() -> None:
    begin = parse_utc("2026-03-01T00:00:00Z")
    digests = [
        ReportDigest(id=text or "empty", reporter=text, report_id=text, policy_domain=text, begin=begin,
                     end=begin + timedelta(hours=23),
                     records=(RecordDigest(text, 2**70, text, "fail", "fail", text, text, (text,),
                                           ((text, text),), ((text, "pass"),)),), p=text)
        for text in HOSTILE
    ]
    store = DigestStore()
    store.put(digests)
    store.mark_listed([d.id for d in digests])
    figures = store.figures(*EVERYTHING, limit=100)
    assert figures.overview.reports == len(HOSTILE)
    assert figures.overview.messages == MAX_COUNT * len(HOSTILE)  # clamped, never an overflow
    assert {f.report.reporter for f in figures.failing} >= {"nul\x00byte", "'); DROP TABLE reports; --"}
    assert store.get("'); DROP TABLE reports; --") is not None
    assert len(list(store.digests(*EVERYTHING))) == len(HOSTILE)


def digest_store_type() -> Any:
    from jmapclient.models.objects import DMARC_EXTERNAL_REPORT

    return DMARC_EXTERNAL_REPORT


async def test_figures_are_remembered_until_the_store_or_the_listing_changes(world: StubWorld) -> None:
    store = DigestStore()
    reports = api(world)
    await store.sync(reports)
    first = store.figures(*EVERYTHING, limit=10)
    await store.sync(reports)  # the same listing, nothing fetched: nothing to aggregate again
    assert store.figures(*EVERYTHING, limit=10) is first
    victim = world.store.all_ids(digest_store_type())[0]
    store.discard([victim])  # deleted from the console
    assert store.figures(*EVERYTHING, limit=10).overview.reports == 59
    add_demo_reports(world.store, 2, random.Random(9), FROZEN_NOW)
    await store.sync(reports)
    assert store.figures(*EVERYTHING, limit=10).overview.reports == 62  # the victim is back: it still exists


def test_a_cache_of_another_layout_is_made_again(tmp_path: Path) -> None:
    import sqlite3

    path = tmp_path / "d.sqlite"
    old = sqlite3.connect(path)
    old.executescript("CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT);"
                      "INSERT INTO meta VALUES ('schema', '2');"  # the version, but not its columns
                      "CREATE TABLE reports(key INTEGER PRIMARY KEY, id TEXT);"
                      "CREATE TABLE records(report INTEGER); INSERT INTO reports VALUES (1, 'a');")
    old.commit()
    old.close()
    store = DigestStore(path)
    begin = parse_utc("2026-03-01T00:00:00Z")
    store.put([ReportDigest(id="b", reporter="r", report_id="x", policy_domain="d.test", begin=begin, end=begin)])
    assert len(store) == 1 and "a" not in store


def test_a_cache_path_that_cannot_be_a_file_falls_back_to_memory(tmp_path: Path) -> None:
    blocked = tmp_path / "d.sqlite"
    (blocked / "inside").mkdir(parents=True)  # a directory where the file should be
    store = DigestStore(blocked)
    store.put([], ["some-id"])
    assert "some-id" in store and blocked.is_dir()


async def test_a_deletion_and_an_arrival_together_are_both_seen(world: StubWorld) -> None:
    store = DigestStore()
    reports = api(world)
    await store.sync(reports)
    victim = world.store.all_ids(digest_store_type())[-1]
    await reports.destroy([victim])
    add_demo_reports(world.store, 1, random.Random(11), FROZEN_NOW)  # the total is 60 again
    result = await store.sync(reports)
    assert (result.listed, result.fetched) == (60, 1)
    assert victim not in store and total_reports(store) == 60
    listed = {d.id for d in store.digests(*EVERYTHING)}
    assert listed == set(world.store.all_ids(digest_store_type()))


async def test_the_cycle_collector_rests_during_a_sync_and_is_left_as_it_was(world: StubWorld) -> None:
    """A sync decodes many answers: the collector took a quarter of a bare sync's CPU. It is off while the
    sync runs (the console, ``dmarc-advice``), on again after; and one that was off stays off."""
    seen: list[bool] = []
    assert gc.isenabled()
    await DigestStore().sync(api(world), progress=lambda step: seen.append(gc.isenabled()))
    assert seen and not any(seen)
    assert gc.isenabled()
    gc.disable()
    try:
        await DigestStore().sync(api(world))
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_the_busiest_sources_and_their_detail_match_a_plain_reckoning() -> None:
    """The sources' figures (messages, passed, who they sent as, who saw them, hints), the busiest first and
    ties by address, against adding the records up by hand: many sources, ties, several reporters,
    From domains and hints a source, more sources than the limit."""
    from jmapclient.dmarc.analytics import classify

    rng = random.Random(33)
    begin = parse_utc("2026-03-01T00:00:00Z")
    ips = [f"192.0.2.{n}" for n in range(40)] + [f"2001:db8::{n:x}" for n in range(20)]
    digests = []
    for n in range(120):
        records = tuple(
            RecordDigest(rng.choice(ips), rng.choice([1, 2, 2, 5, 10]), "none", rng.choice(["pass", "fail"]),
                         rng.choice(["pass", "fail"]), rng.choice(["", "example.com", "example.org"]), "",
                         (), (("example.com", "pass"),) if rng.random() < 0.5 else (), ())
            for _ in range(rng.randint(1, 6)))
        digests.append(ReportDigest(id=f"r{n}", reporter=rng.choice(["Google", "Microsoft", "Yahoo"]),
                                    report_id=f"id{n}", policy_domain="example.com", begin=begin + timedelta(hours=n),
                                    end=begin + timedelta(hours=n + 23), records=records, p="none"))
    store = DigestStore()
    store.put(digests)
    store.mark_listed([d.id for d in digests])
    by_ip: dict[str, list[Any]] = {}
    for digest in digests:
        for record in digest.records:
            seen = by_ip.setdefault(record.source_ip, [0, 0, set(), set(), {}])
            seen[0] += record.count
            seen[1] += record.count if "pass" in (record.dkim, record.spf) else 0
            if record.header_from:
                seen[2].add(record.header_from)
            seen[3].add(digest.reporter)
            if (hint := classify(record)) is not None:
                seen[4][hint] = seen[4].get(hint, 0) + record.count
    expected = sorted(by_ip.items(), key=lambda item: (-item[1][0], item[0]))
    assert len({messages for _, (messages, *_) in expected}) < len(expected)  # ties to order by address
    for limit in (1, 7, 25, 100):
        sources = store.figures(*EVERYTHING, limit=limit).sources
        assert [(s.source_ip, s.messages, s.passed, s.domains, s.reporters, s.hints) for s in sources] == [
            (ip, messages, passed, domains, reporters, hints)
            for ip, (messages, passed, domains, reporters, hints) in expected[:limit]]
