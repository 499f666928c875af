"""How each object type is kept in SQLite: the indexed columns behind its filters and sorts.

The filter conditions and sort properties themselves come from
:class:`jmapclient.models.objects.ObjectType`; this module only says which column
answers each one, and checks at import time that every condition and sort has one.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

from jmapclient.encoding import format_utc
from jmapclient.models import DmarcExternalReport, WireModel
from jmapclient.models.objects import DIRECTORY, DMARC_EXTERNAL_REPORT, ObjectType

Match = Literal["equal", "compare", "lower", "words"]
"""How a condition matches: exact, exact or by IsGreaterThan-style suffixes, case-insensitive, word search."""


@dataclass(frozen=True)
class Column:
    name: str
    sql_type: Literal["TEXT", "INTEGER"]
    value: Callable[[WireModel], Any]


@dataclass(frozen=True)
class ConditionColumn:
    column: str
    match: Match
    value_kind: Literal["text", "int", "date", "id"]


@dataclass(frozen=True)
class TableSchema:
    object_type: ObjectType
    table: str
    id_prefix: str
    columns: tuple[Column, ...]
    conditions: dict[str, ConditionColumn]
    sorts: dict[str, str]
    """Sort property → column; ``seq`` is the insertion order, which is also the id order."""
    words: Callable[[WireModel], Iterable[str]] | None = None
    composite_indexes: tuple[tuple[str, ...], ...] = field(default_factory=tuple)

    def index_values(self, model: WireModel) -> dict[str, Any]:
        return {column.name: column.value(model) for column in self.columns}


def _tenant(model: WireModel) -> str | None:
    return getattr(model, "member_tenant_id", None)


def _report(model: WireModel) -> DmarcExternalReport:
    assert isinstance(model, DmarcExternalReport)
    return model


def total_sessions(model: WireModel, *, passing: bool) -> int:
    """wire-notes.md: messages in records that pass DMARC (DKIM or SPF pass), or that fail it."""
    records = _report(model).report.records
    return sum(record.count for record in records if record.passes_dmarc == passing)


def _domain_words(value: str | None) -> set[str]:
    """A domain or address and every parent domain, so ``example.com`` finds ``mail.example.com``."""
    if not value:
        return set()
    text = value.strip().lower()
    words = {text}
    domain = text.rpartition("@")[2]
    labels = domain.split(".")
    for start in range(len(labels) - 1):
        words.add(".".join(labels[start:]))
    return words


def report_words(model: WireModel) -> set[str]:
    """What ``text`` searches (wire-notes.md): policy domain, reporter address, envelope and
    header domains, DKIM and SPF domains, and the sender."""
    external = _report(model)
    report = external.report
    words = _domain_words(report.policy_domain) | _domain_words(report.email) | _domain_words(external.sender)
    for record in report.records:
        for value in (record.envelope_to, record.envelope_from, record.header_from):
            words |= _domain_words(value)
        for domain in (*(r.domain for r in record.dkim_results), *(r.domain for r in record.spf_results)):
            words |= _domain_words(domain)
    return words


def split_search_words(text: str) -> list[str]:
    return [word for word in text.lower().split() if word]


DIRECTORY_SCHEMA = TableSchema(
    object_type=DIRECTORY,
    table="directory",
    id_prefix="d",
    columns=(Column("member_tenant_id", "TEXT", _tenant),),
    conditions={"memberTenantId": ConditionColumn("member_tenant_id", "equal", "id")},
    sorts={"id": "seq"},
)

REPORT_SCHEMA = TableSchema(
    object_type=DMARC_EXTERNAL_REPORT,
    table="dmarc_report",
    id_prefix="r",
    columns=(
        Column("received_at", "TEXT", lambda m: format_utc(_report(m).received_at)),
        Column("expires_at", "TEXT", lambda m: format_utc(_report(m).expires_at)),
        Column("policy_domain", "TEXT", lambda m: _report(m).report.policy_domain.lower()),
        Column("member_tenant_id", "TEXT", _tenant),
        Column("total_failed", "INTEGER", lambda m: total_sessions(m, passing=False)),
        Column("total_successful", "INTEGER", lambda m: total_sessions(m, passing=True)),
    ),
    conditions={
        "domain": ConditionColumn("policy_domain", "lower", "text"),
        "text": ConditionColumn("", "words", "text"),
        "totalFailedSessions": ConditionColumn("total_failed", "compare", "int"),
        "totalSuccessfulSessions": ConditionColumn("total_successful", "compare", "int"),
        "expiresAt": ConditionColumn("expires_at", "compare", "date"),
        "memberTenantId": ConditionColumn("member_tenant_id", "equal", "id"),
    },
    sorts={"receivedAt": "received_at", "expiresAt": "expires_at", "id": "seq"},
    words=report_words,
    # A page of one policy domain sorted by date is the console's commonest query.
    composite_indexes=(("policy_domain", "received_at"), ("policy_domain", "expires_at")),
)

SCHEMAS: dict[str, TableSchema] = {s.object_type.name: s for s in (DIRECTORY_SCHEMA, REPORT_SCHEMA)}


def _check(schema: TableSchema) -> None:
    declared = {c.name for c in schema.object_type.filters}
    if declared != set(schema.conditions):
        raise RuntimeError(f"{schema.table}: conditions {sorted(declared ^ set(schema.conditions))} lack a column")
    if set(schema.object_type.sorts) != set(schema.sorts):
        raise RuntimeError(f"{schema.table}: sorts do not match {schema.object_type.sorts}")


for _schema in SCHEMAS.values():
    _check(_schema)


def schema_for(object_type: ObjectType) -> TableSchema:
    return SCHEMAS[object_type.name]
