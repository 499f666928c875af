"""The demo data: deterministic, valid through the models, and as varied as real reports."""

from __future__ import annotations

import ipaddress
from datetime import UTC, datetime, timedelta

import pytest

from jmapclient.models.objects import DIRECTORY, DMARC_EXTERNAL_REPORT
from server_stub import demo_data
from server_stub.demo_data import DAYS, DEMO_NOW, seed_store
from server_stub.store import Store


def _load(reports: int = 200, **kwargs) -> tuple[Store, dict, dict]:
    store = Store()
    seed_store(store, reports=reports, **kwargs)
    return (
        store,
        store.get(DIRECTORY, store.all_ids(DIRECTORY)),
        store.get(DMARC_EXTERNAL_REPORT, store.all_ids(DMARC_EXTERNAL_REPORT)),
    )


def test_same_seed_same_data_other_seed_other_data():
    _, dirs_a, reports_a = _load(seed=5)
    _, dirs_b, reports_b = _load(seed=5)
    _, _, reports_c = _load(seed=6)
    assert (dirs_a, reports_a) == (dirs_b, reports_b)
    assert reports_a != reports_c


def test_three_directories_as_described():
    _, directories, _ = _load(reports=0)
    by_type = {d["@type"]: d for d in directories.values()}
    assert set(by_type) == {"Ldap", "Sql", "Oidc"}
    ldap, sql, oidc = by_type["Ldap"], by_type["Sql"], by_type["Oidc"]
    assert ldap["bindAuthentication"] is False and ldap["bindSecret"]["@type"] == "Value"
    assert sql["store"]["@type"] == "PostgreSql" and len(sql["store"]["readReplicas"]) == 1
    assert sql["store"]["authSecret"]["@type"] == "EnvironmentVariable"
    assert oidc["usernameDomain"] and "/realms/" in oidc["issuerUrl"]


def test_reports_cover_reporters_domains_days_and_kinds_of_source():
    _, _, reports = _load(reports=300)
    assert len(reports) == 300
    org_names = {r["report"]["orgName"] for r in reports.values()}
    assert {"google.com", "Enterprise Outlook", "Yahoo", "Mail.Ru", "Fastmail Pty Ltd", "GMX"} <= org_names
    assert len({r["report"]["policyDomain"] for r in reports.values()}) >= 3
    received = sorted(datetime.fromisoformat(r["receivedAt"].replace("Z", "+00:00")) for r in reports.values())
    assert received[-1] <= DEMO_NOW and received[-1] - received[0] >= timedelta(days=DAYS - 2)
    records = [rec for r in reports.values() for rec in r["report"]["records"].values()]
    overrides = {o["overrideType"] for rec in records for o in rec["policyOverrideReasons"].values()}
    assert {"MailingList", "PolicyTestMode"} <= overrides and overrides & {"Forwarded", "TrustedForwarder"}
    versions = {ipaddress.ip_address(rec["sourceIp"]).version for rec in records}
    assert versions == {4, 6}
    selectors = {d["selector"] for rec in records for d in rec["dkimResults"].values()}
    assert len(selectors) >= 4
    spoofed = [rec for rec in records if rec["evaluatedDkim"] == rec["evaluatedSpf"] == "fail"
               and rec["evaluatedDisposition"] in ("reject", "quarantine")]
    assert spoofed
    gmx = [r["report"] for r in reports.values() if r["report"]["orgName"] == "GMX"]
    assert gmx and all(g["generator"] and g["policyDiscoveryMethod"] == "treewalk" for g in gmx)


def test_dates_follow_the_given_anchor():
    now = datetime(2030, 6, 1, tzinfo=UTC)
    _, _, reports = _load(reports=20, now=now)
    latest = max(r["receivedAt"] for r in reports.values())
    assert latest.startswith("2030-05") or latest.startswith("2030-06")


def test_seeding_an_existing_database_adds_nothing():
    store, _, _ = _load(reports=10)
    summary = seed_store(store, reports=10)
    assert (summary.directories, summary.reports) == (0, 0)
    assert store.count(DMARC_EXTERNAL_REPORT) == 10 and store.count(DIRECTORY) == 3


def test_a_streamed_seed_stores_what_one_batch_would(monkeypatch: pytest.MonkeyPatch):
    """Batches end on a day's boundary, so each sorted alone gives the whole seed's arrival order."""
    _, _, whole = _load(reports=400, directories=False)
    heard: list[tuple[int, int]] = []
    monkeypatch.setattr(demo_data, "SEED_BATCH", 25)
    store = Store()
    seed_store(store, reports=400, directories=False, progress=lambda done, asked: heard.append((done, asked)))
    streamed = store.get(DMARC_EXTERNAL_REPORT, store.all_ids(DMARC_EXTERNAL_REPORT))
    assert streamed == whole
    assert len(heard) > 5 and heard[-1] == (400, 400)
    assert [done for done, _ in heard] == sorted({done for done, _ in heard})  # it only moves forwards
    arrivals = [streamed[i]["receivedAt"] for i in store.all_ids(DMARC_EXTERNAL_REPORT)]
    assert arrivals == sorted(arrivals)  # ids grow with arrival, as on the real server


def test_an_interrupted_seed_leaves_no_reports(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(demo_data, "SEED_BATCH", 25)
    store = Store()

    def interrupt(done: int, asked: int) -> None:
        if done > 100:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        seed_store(store, reports=400, directories=False, progress=interrupt)
    assert store.count(DMARC_EXTERNAL_REPORT) == 0  # so the next start seeds them all, not a partial set
    assert seed_store(store, reports=50, directories=False).reports == 50
