"""Deterministic demo data: three directories and DMARC reports that look like real ones.

Everything comes from a seeded ``random.Random`` and a fixed anchor date, so two runs
with the same seed give the same objects (tests and screenshots rely on it). Objects
are built as wire JSON and validated through the models before they are stored.
Reports are built already in the form the models write, so a seed stores its own JSON with
the declared defaults filled in (:func:`as_stored`) instead of writing each model out again;
the first report of every batch is still written out and compared (:func:`_checked`).

Addresses use the documentation ranges (192.0.2.0/24, 198.51.100.0/24, 203.0.113.0/24,
2001:db8::/32) and domains under example.* so that nothing points at a real host.
"""

from __future__ import annotations

import copy
import gc
import json
import queue
import random
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import cache, lru_cache
from itertools import accumulate
from typing import Any, TypeVar

from jmapclient.encoding import format_utc, list_to_wire, set_to_wire
from jmapclient.models import WireModel
from jmapclient.models.introspect import fields_of
from jmapclient.models.objects import DIRECTORY, DMARC_EXTERNAL_REPORT
from server_stub.seed_sizes import DEFAULT_REPORTS, SEED_BATCH, Progress
from server_stub.store import Store
from server_stub.validation import stored_form, validate_incoming

T = TypeVar("T")

DEFAULT_SEED = 2026
DEMO_NOW = datetime(2026, 3, 1, 6, 0, 0, tzinfo=UTC)
"""The anchor of every demo date: reports cover the 60 days before it."""
DAYS = 60
RETENTION = timedelta(days=90)
LINKED_OBJECTS = (("Authentication", "singleton"), ("Domain", "e"))
"""The objects that use the first demo directory (the LDAP one), so it cannot be destroyed: a domain
(the real server names it by an opaque id, never its name) and the authentication settings."""


@dataclass(frozen=True)
class DemoSummary:
    directories: int
    reports: int
    records: int
    messages: int
    seconds: float
    secrets: tuple[str, ...]
    """Plaintext secrets stored, so tests can prove no response ever carries one."""

    def __repr__(self) -> str:
        return (
            f"DemoSummary(directories={self.directories}, reports={self.reports}, records={self.records}, "
            f"messages={self.messages}, seconds={self.seconds:.2f})"
        )


# --- directories ------------------------------------------------------------------------------


def demo_directories(rng: random.Random) -> tuple[list[dict[str, Any]], list[str]]:
    ldap_secret = f"ldap-{rng.getrandbits(64):016x}"
    ldap = {
        "@type": "Ldap",
        "description": "Corporate OpenLDAP (service account)",
        "url": "ldaps://ldap.corp.example.com:636",
        "baseDn": "ou=people,dc=corp,dc=example,dc=com",
        "useTls": True,
        "timeout": 15000,
        "bindDn": "cn=mail-service,ou=services,dc=corp,dc=example,dc=com",
        "bindSecret": {"@type": "Value", "secret": ldap_secret},
        # Service-user mode (rule L1): read the password hash instead of binding as the user.
        "bindAuthentication": False,
        "filterLogin": "(&(objectClass=inetOrgPerson)(|(mail=?)(uid=?)))",
        "attrEmail": set_to_wire(["mail"]),
        "attrEmailAlias": set_to_wire(["mailAlias", "mailAlternateAddress"]),
        "attrSecret": set_to_wire(["userPassword"]),
        "poolMaxConnections": 20,
    }
    sql = {
        "@type": "Sql",
        "description": "Customer accounts in PostgreSQL",
        "store": {
            "@type": "PostgreSql",
            "host": "pg-primary.db.example.com",
            "port": 5432,
            "database": "mail_accounts",
            "authUsername": "mail_reader",
            "authSecret": {"@type": "EnvironmentVariable", "variableName": "MAIL_DB_PASSWORD"},
            "useTls": True,
            "poolMaxConnections": 25,
            "poolRecyclingMethod": "verified",
            "readReplicas": list_to_wire(
                [
                    {
                        "host": "pg-replica-1.db.example.com",
                        "database": "mail_accounts",
                        "authUsername": "mail_reader",
                        "authSecret": {"@type": "EnvironmentVariable", "variableName": "MAIL_DB_PASSWORD"},
                        "options": "sslmode=verify-full",
                    }
                ]
            ),
        },
        "queryLogin": "SELECT name, secret, description, type FROM accounts WHERE name = $1 AND active = true",
    }
    oidc = {
        "@type": "Oidc",
        "description": "Staff single sign-on (Keycloak)",
        "issuerUrl": "https://sso.example.com/realms/staff",
        "requireAudience": "mail-server",
        "requireScopes": set_to_wire(["openid", "email", "profile"]),
        "usernameDomain": "example.com",
        "claimGroups": "groups",
    }
    return [ldap, sql, oidc], [ldap_secret]


# --- DMARC reports ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Reporter:
    org_name: str
    email: str
    sender: str
    submitter: str
    weight: int
    extra_contact: str | None = None
    generator: str | None = None
    dmarcbis: bool = False
    """DMARCbis reporters fill generator, np, testing and discovery method, and mark passing records ``pass``."""
    omits_envelope_from: bool = False
    """Google's records carry no envelope-from: stored as ``""``."""
    omits_selectors: bool = False
    """DKIM results without a selector (optional in RFC 7489): stored as ``""``."""
    omits_subject: bool = False
    """The report e-mail has no subject: stored as ``""``."""


REPORTERS = (
    Reporter("google.com", "noreply-dmarc-support@google.com", "noreply-dmarc-support@google.com", "google.com",
             30, extra_contact="https://support.google.com/a/answer/2466580", omits_envelope_from=True),
    Reporter("Enterprise Outlook", "dmarcreport@microsoft.com", "dmarcreport@microsoft.com",
             "enterprise.protection.outlook.com", 22),
    Reporter("Yahoo", "dmarchelp@yahooinc.com", "noreply@dmarc.yahoo.com", "yahoo.com", 15, omits_selectors=True),
    Reporter("Mail.Ru", "dmarc_support@corp.mail.ru", "dmarc_support@corp.mail.ru", "mail.ru", 10,
             omits_subject=True),
    Reporter("Fastmail Pty Ltd", "dmarc-reports@fastmail.com", "noreply-dmarc@fastmail.com", "fastmail.com",
             8, generator="Fastmail DMARC reporter"),
    Reporter("GMX", "dmarc_agg@gmx.net", "dmarc-noreply@gmx.net", "gmx.net", 10,
             extra_contact="https://www.gmx.net/dmarc", generator="GMX DMARC Reporter 2.1", dmarcbis=True),
)


@dataclass(frozen=True)
class PolicyDomain:
    name: str
    adkim: str
    aspf: str
    p: str
    sp: str
    np: str
    testing: bool
    selectors: tuple[str, ...]
    outbound: tuple[str, ...]
    weight: int


DOMAINS = (
    PolicyDomain("example.com", "relaxed", "relaxed", "reject", "reject", "reject", False,
                 ("mail2025", "mail2024"), ("192.0.2.10", "192.0.2.11", "2001:db8:10::25"), 45),
    PolicyDomain("example.org", "strict", "relaxed", "quarantine", "quarantine", "reject", False,
                 ("s1", "s2"), ("192.0.2.40", "2001:db8:40::25"), 25),
    PolicyDomain("shop.example.net", "relaxed", "strict", "none", "none", "none", True,
                 ("shop2025",), ("192.0.2.80",), 20),
    PolicyDomain("example.dev", "relaxed", "relaxed", "quarantine", "none", "quarantine", False,
                 ("google", "dev1"), ("192.0.2.120", "2001:db8:120::1"), 10),
)

ESP = ("198.51.100.21", "sendgrid.net", "s1")
FORWARDERS = (
    ("203.0.113.15", "mx.alumni.example.edu", "alumni.example.edu"),
    ("2001:db8:f0::15", "relay.forward.example", "forward.example"),
)
MAILING_LIST = ("198.51.100.77", "lists.community.example")
SPOOF_FROM = ("examp1e.com", "secure-login.example.biz", "billing-notice.example.info", "mailer.example.top")


@cache
def _cumulative_weights(options: tuple[Any, ...]) -> list[int]:
    return list(accumulate(option.weight for option in options))


def _pick(rng: random.Random, options: tuple[Any, ...]) -> Any:
    # The same draw as weights=..., which random.choices accumulates on every call.
    return rng.choices(options, cum_weights=_cumulative_weights(options))[0]


def _record(
    source_ip: str,
    count: int,
    domain: str,
    *,
    disposition: str = "none",
    dkim: str,
    spf: str,
    envelope_from: str,
    dkim_results: list[dict[str, Any]],
    spf_results: list[dict[str, Any]],
    overrides: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    return {
        "sourceIp": source_ip,
        "count": count,
        "evaluatedDisposition": disposition,
        "evaluatedDkim": dkim,
        "evaluatedSpf": spf,
        "policyOverrideReasons": list_to_wire(overrides or []),
        "envelopeTo": domain,
        "envelopeFrom": envelope_from,
        "headerFrom": domain,
        "dkimResults": list_to_wire(dkim_results),
        "spfResults": list_to_wire(spf_results),
    }


def _records(rng: random.Random, domain: PolicyDomain, volume: int) -> list[dict[str, Any]]:
    name = domain.name
    records = [
        _record(
            ip, rng.randint(1, volume), name, dkim="pass", spf="pass", envelope_from=name,
            dkim_results=[{"domain": name, "selector": rng.choice(domain.selectors), "result": "pass"}],
            spf_results=[{"domain": name, "scope": "mailFrom", "result": "pass"}],
        )
        for ip in domain.outbound
        if rng.random() < 0.85
    ]
    if rng.random() < 0.3:  # newsletters through an ESP: DKIM aligned, SPF for the ESP's bounce domain
        ip, esp_domain, selector = ESP
        records.append(_record(
            ip, rng.randint(1, volume * 2), name, dkim="pass", spf="fail", envelope_from=f"bounces.{esp_domain}",
            dkim_results=[{"domain": name, "selector": selector, "result": "pass"},
                          {"domain": esp_domain, "selector": "smtpapi", "result": "pass"}],
            spf_results=[{"domain": f"bounces.{esp_domain}", "scope": "mailFrom", "result": "pass"}],
        ))
    if rng.random() < 0.25:  # forwarding breaks SPF; DKIM usually survives
        ip, helo, forwarder = rng.choice(FORWARDERS)
        survived = rng.random() < 0.6
        records.append(_record(
            ip, rng.randint(1, 12), name, dkim="pass" if survived else "fail", spf="fail", envelope_from=name,
            dkim_results=[{"domain": name, "selector": rng.choice(domain.selectors),
                           "result": "pass" if survived else "fail",
                           "humanResult": None if survived else "body hash did not verify"}],
            spf_results=[{"domain": name, "scope": "mailFrom", "result": "softFail"},
                         {"domain": helo, "scope": "helo", "result": "pass"}],
            overrides=[{"overrideType": rng.choice(["Forwarded", "TrustedForwarder"]),
                        "comment": f"forwarded by {forwarder}"}],
        ))
    if rng.random() < 0.15:  # a mailing list rewrites the subject: DKIM breaks, SPF passes for the list
        ip, list_domain = MAILING_LIST
        records.append(_record(
            ip, rng.randint(1, 30), name, dkim="fail", spf="fail", envelope_from=list_domain,
            dkim_results=[{"domain": name, "selector": rng.choice(domain.selectors), "result": "fail",
                           "humanResult": "signature did not verify"}],
            spf_results=[{"domain": list_domain, "scope": "mailFrom", "result": "pass"}],
            overrides=[{"overrideType": "MailingList", "comment": f"list: announce@{list_domain}"}],
        ))
    if rng.random() < 0.35:  # someone spoofing the domain
        ipv6 = rng.random() < 0.3
        ip = f"2001:db8:bad:{rng.randint(1, 0xffff):x}::{rng.randint(1, 0xff):x}" if ipv6 \
            else f"203.0.113.{rng.randint(100, 254)}"
        testing = domain.testing
        disposition = "none" if testing or domain.p == "none" else domain.p
        records.append(_record(
            ip, rng.randint(1, 40), name, disposition=disposition, dkim="fail", spf="fail",
            envelope_from=rng.choice(SPOOF_FROM),
            dkim_results=[{"domain": rng.choice(SPOOF_FROM), "selector": "default",
                           "result": rng.choice(["none", "fail"])}],
            spf_results=[{"domain": name, "scope": "mailFrom", "result": rng.choice(["fail", "softFail"])}],
            overrides=[{"overrideType": "PolicyTestMode"}] if testing else
            ([{"overrideType": "SampledOut", "comment": "pct"}] if rng.random() < 0.1 else []),
        ))
    if not records:
        ip = domain.outbound[0]
        records.append(_record(
            ip, 1, name, dkim="pass", spf="pass", envelope_from=name,
            dkim_results=[{"domain": name, "selector": domain.selectors[0], "result": "pass"}],
            spf_results=[{"domain": name, "scope": "mailFrom", "result": "pass"}],
        ))
    return records


def _as_reported_by(reporter: Reporter, records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The records as this reporter writes them: what it leaves out is ``""``, as the real server stores it."""
    for record in records:
        if reporter.omits_envelope_from:
            record["envelopeFrom"] = ""
        if reporter.omits_selectors:
            for result in record["dkimResults"].values():
                result["selector"] = ""
        if reporter.dmarcbis and "pass" in (record["evaluatedDkim"], record["evaluatedSpf"]):
            record["evaluatedDisposition"] = "pass"  # DMARCbis names the disposition of passing mail
    return records


def _report_id(rng: random.Random, reporter: Reporter, begin: datetime) -> str:
    if reporter.org_name == "google.com":
        return str(rng.getrandbits(63))
    if reporter.org_name == "Yahoo":
        return f"{int(begin.timestamp())}.{rng.randint(100000, 999999)}"
    if reporter.org_name == "Mail.Ru":
        return str(rng.randint(10**9, 10**10))
    return f"{rng.getrandbits(128):032x}"


@lru_cache(maxsize=128)
def _day(now: datetime, days_ago: int) -> tuple[datetime, datetime, str, str]:
    """The report period ``days_ago`` days before ``now``: its first and last second, and both as text."""
    begin = (now - timedelta(days=days_ago)).replace(hour=0, minute=0, second=0, microsecond=0)
    end = begin + timedelta(days=1) - timedelta(seconds=1)
    return begin, end, format_utc(begin), format_utc(end)


def demo_report(rng: random.Random, now: datetime, index: int, total: int) -> dict[str, Any]:
    """One report; ``index`` spreads reports evenly over the 60 days, oldest first."""
    reporter = _pick(rng, REPORTERS)
    domain = _pick(rng, DOMAINS)
    begin, end, begin_text, end_text = _day(now, DAYS - (index * DAYS) // max(total, 1))
    received = min(end + timedelta(minutes=rng.randint(30, 600)), now)  # never from the future
    report_id = _report_id(rng, reporter, begin)
    volume = 400 if reporter.weight >= 20 else 60
    report: dict[str, Any] = {
        "version": 1.0,
        "orgName": reporter.org_name,
        "email": reporter.email,
        "extraContactInfo": reporter.extra_contact,
        "reportId": report_id,
        "dateRangeBegin": begin_text,
        "dateRangeEnd": end_text,
        "policyDomain": domain.name,
        "policyAdkim": domain.adkim,
        "policyAspf": domain.aspf,
        "policyDisposition": domain.p,
        "policySubdomainDisposition": domain.sp,
        "policyFailureReportingOptions": set_to_wire(["any"] if domain.name == "example.com" else []),
        "records": list_to_wire(_as_reported_by(reporter, _records(rng, domain, volume))),
        "generator": reporter.generator,
    }
    if reporter.dmarcbis:
        report.update(
            policyVersion="DMARC1",
            policyNp=domain.np,
            policyTestingMode=domain.testing,
            policyDiscoveryMethod="treewalk",
        )
    return {
        "report": report,
        "from": reporter.sender,
        "subject": "" if reporter.omits_subject else
        f"Report Domain: {domain.name} Submitter: {reporter.submitter} Report-ID: <{report_id}>",
        "to": set_to_wire([f"dmarc-reports@{domain.name}"]),
        "receivedAt": format_utc(received),
        "expiresAt": format_utc(received + RETENTION),
    }


def add_demo_reports(
    store: Store, count: int, rng: random.Random, now: datetime = DEMO_NOW, progress: Progress | None = None
) -> tuple[int, int, int]:
    """Bulk-insert ``count`` reports in streamed batches; returns (reports, records, messages).

    They are read, not validated as a create would be: the real server stores what arrives by mail
    without validation (wire-notes.md), so ``""`` stands where a reporter left a string out.
    Memory stays bounded by one batch, whatever ``count`` is; ``progress`` hears of each batch.
    """
    totals = [0, 0]  # records, messages
    model_type = DMARC_EXTERNAL_REPORT.annotation

    def batches() -> Iterator[list[dict[str, Any]]]:
        batch: list[dict[str, Any]] = []
        day = None
        for index in range(count):
            wire = demo_report(rng, now, index, count)
            # The real server numbers reports as they arrive (wire-notes.md): inserted in receivedAt order,
            # so sorting by id, its only order, is sorting by receivedAt. A day's reports arrive after the
            # previous day's, so a batch of whole days sorted alone is in the order of the whole seed.
            if len(batch) >= SEED_BATCH and wire["report"]["dateRangeBegin"] != day:
                yield _arrival_order(batch)
                batch = []
            day = wire["report"]["dateRangeBegin"]
            counts = [record["count"] for record in wire["report"]["records"].values()]
            totals[0] += len(counts)
            totals[1] += sum(counts)
            stored = as_stored(model_type, wire)
            # No model per report: the first of each batch is read through the models and must match.
            batch.append(stored if batch else _checked(DMARC_EXTERNAL_REPORT.read(wire), stored))
        if batch:
            yield _arrival_order(batch)

    def stored(done: int) -> None:
        if progress is not None:
            progress(done, count)

    with _collector_paused(), _made_ahead(batches()) as ready:
        inserted = store.insert_batches(DMARC_EXTERNAL_REPORT, ready, progress=stored)
    return inserted, totals[0], totals[1]


_DONE = object()


@contextmanager
def _made_ahead(items: Iterator[T], depth: int = 1) -> Iterator[Iterator[T]]:
    """``items``, made by a second thread while this one stores the previous ones.

    SQLite and zlib let go of the interpreter while they write, so building the next batch of
    reports (all Python) overlaps the writing of this one: on two cores a seed's wall time drops
    by the time spent writing. At most ``depth`` finished batches wait, so memory stays bounded.
    An error in the maker is raised here; leaving early (an error in the store) stops the maker.
    """
    waiting: queue.Queue[Any] = queue.Queue(maxsize=depth)
    stop = threading.Event()

    def offer(item: Any) -> bool:
        while not stop.is_set():
            try:
                waiting.put(item, timeout=0.1)
                return True
            except queue.Full:
                continue
        return False

    def make() -> None:
        try:
            for item in items:
                if not offer(item):
                    return
            offer(_DONE)
        except BaseException as error:  # handed to the consumer, which raises it
            offer(error)

    def taken() -> Iterator[T]:
        while True:
            item = waiting.get()
            if item is _DONE:
                return
            if isinstance(item, BaseException):
                raise item
            yield item

    maker = threading.Thread(target=make, name="demo-reports", daemon=True)
    maker.start()
    try:
        yield taken()
    finally:
        stop.set()
        maker.join()


_ABSENT = object()
"""Stands in a template for a field that has no value to fill in (required, or server-set and unset)."""


@dataclass(frozen=True)
class _StoredPlan:
    template: dict[str, Any]
    """Every declared wire key in declared order, at its default or ``_ABSENT``."""
    absent: tuple[str, ...]
    containers: tuple[tuple[str, Any], ...]
    """Keys whose default is a dict or list: each report gets its own copy."""
    nested: tuple[tuple[str, type[WireModel], bool], ...]
    """Keys holding nested models: True where the field is one object, False for a List of them."""


_PLANS: dict[type[WireModel], _StoredPlan] = {}


def _stored_plan(model: type[WireModel]) -> _StoredPlan:
    plan = _PLANS.get(model)
    if plan is None:
        specs = {spec.wire: spec for spec in fields_of(model)}
        template: dict[str, Any] = {}
        for name, info in model.model_fields.items():
            spec = specs.get(info.alias or name)
            # Written out, a server-set property still unset (None) is left out (WireModel.to_wire).
            fills = spec is not None and not spec.required and not (spec.server_set and spec.default is None)
            template[info.alias or name] = spec.default if fills and spec is not None else _ABSENT
        plan = _PLANS[model] = _StoredPlan(
            template,
            tuple(key for key, value in template.items() if value is _ABSENT),
            tuple((key, value) for key, value in template.items() if isinstance(value, dict | list)),
            tuple((s.wire, s.item_model, s.kind == "object") for s in specs.values() if s.item_model is not None),
        )
    return plan


def as_stored(model: type[WireModel], wire: dict[str, Any]) -> dict[str, Any]:
    """``wire`` as the model writes it, for wire JSON already in the models' canonical form: the
    declared fields in declared order, each missing one at its declared default, then the others.

    The demo builds reports that way (canonical addresses, times and sets); this costs half of
    writing validated models out again. ``_checked`` holds it to that.
    """
    plan = _stored_plan(model)
    stored = {**plan.template, **wire}  # the template's key order, the wire's values, extras last
    for key in plan.absent:
        if stored[key] is _ABSENT:
            del stored[key]
    for key, default in plan.containers:
        if key not in wire:
            stored[key] = copy.deepcopy(default) if default else type(default)()
    for key, item_model, single in plan.nested:
        value = stored.get(key)
        if isinstance(value, dict):
            stored[key] = as_stored(item_model, value) if single else {
                position: as_stored(item_model, item) for position, item in value.items()
            }
    return stored


def _checked(model: WireModel, stored: dict[str, Any]) -> dict[str, Any]:
    """``stored`` if it is exactly what the validated path stores (same JSON, same key order)."""
    written = stored_form(model)
    if json.dumps(stored) != json.dumps(written):
        raise AssertionError("a demo report is not in the models' canonical form; fix demo_report")
    return stored


@contextmanager
def _collector_paused() -> Iterator[None]:
    """The models a seed builds hold no cycles, so reference counting frees each batch; the cycle
    collector only rescans them (a third of a seed's time). Paused for the seed, then restored."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _arrival_order(batch: list[dict[str, Any]]) -> list[dict[str, Any]]:
    # Stored times are all written alike (format_utc), so their text sorts as their time does.
    return sorted(batch, key=lambda stored: stored["receivedAt"])


def current_hour() -> datetime:
    """The anchor for a seed people will look at (`serve`, `demo`): reports up to now, not expired.

    Tests pass their own fixed ``now`` (or get DEMO_NOW) so that their data never moves.
    """
    return datetime.now(UTC).replace(minute=0, second=0, microsecond=0)


def seed_store(
    store: Store,
    *,
    reports: int = DEFAULT_REPORTS,
    directories: bool = True,
    seed: int | None = None,
    now: datetime | None = None,
    progress: Progress | None = None,
) -> DemoSummary:
    """Fill ``store`` with demo objects, unless it already holds some (a restart keeps its data)."""
    started = time.perf_counter()
    rng = random.Random(DEFAULT_SEED if seed is None else seed)
    anchor = now or DEMO_NOW
    secrets: list[str] = []
    directory_count = report_count = record_count = messages = 0
    if directories and store.count(DIRECTORY) == 0:
        wires, secrets = demo_directories(rng)
        models = [validate_incoming(DIRECTORY, wire) for wire in wires]
        store.insert_many(DIRECTORY, [(model, stored_form(model)) for model in models])
        directory_count = len(models)
        # The LDAP directory is in use by a domain: the real server refuses to destroy it (objectIsLinked).
        for linked_type, linked_id in LINKED_OBJECTS:
            store.link(store.all_ids(DIRECTORY)[0], linked_type, linked_id)
    if reports and store.count(DMARC_EXTERNAL_REPORT) == 0:
        report_count, record_count, messages = add_demo_reports(store, reports, rng, anchor, progress)
    return DemoSummary(
        directory_count, report_count, record_count, messages, time.perf_counter() - started, tuple(secrets)
    )
