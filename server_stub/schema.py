"""How each object type is kept in SQLite: the indexed columns behind its filters and sorts.

The filter conditions and sort properties themselves come from
:class:`jmapclient.models.objects.ObjectType`; this module only says which column
answers each one, and checks at import time that every condition and sort has one.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

from jmapclient.encoding import format_utc
from jmapclient.models import DmarcExternalReport, WireModel
from jmapclient.models.objects import DIRECTORY, DMARC_EXTERNAL_REPORT, ObjectType
from server_stub.tallies import TallyKind

COLLATIONS = ("i;ascii-numeric", "i;ascii-casemap", "i;unicode-casemap")
"""The collations the session advertises; a sort naming another gets ``unsupportedSort`` (RFC 8620 §5.5)."""

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
    tallied: dict[str, TallyKind] = field(default_factory=dict)
    """Columns whose bounds are counted from the tally table (:mod:`server_stub.tallies`)."""

    def index_values(self, model: WireModel) -> dict[str, Any]:
        return {column.name: column.value(model) for column in self.columns}


def _tenant(model: WireModel) -> str | None:
    return getattr(model, "member_tenant_id", None)


def _report(model: WireModel) -> DmarcExternalReport:
    assert isinstance(model, DmarcExternalReport)
    return model


def total_sessions(model: WireModel, *, passing: bool) -> int:
    """wire-notes.md, the only definition there is: each record adds ``min(count, 1)`` to the passing
    total when its evaluated disposition is ``pass``, and to the failing total otherwise. Records, not
    messages, and not DKIM or SPF results."""
    records = _report(model).report.records
    return sum(min(record.count, 1) for record in records if (record.evaluated_disposition == "pass") == passing)


_NOT_WORD = re.compile(r"[^\w]|_")


def split_search_words(text: str) -> list[str]:
    """The real server's words: split on every character that is not a letter or a digit, lowercased,
    one-character words dropped (wire-notes.md). The same split serves the index and the query."""
    return [word for word in _NOT_WORD.split(text.lower()) if len(word) > 1]


def report_words(model: WireModel) -> set[str]:
    """What ``text`` searches (wire-notes.md): the reporter's e-mail, the policy domain, each record's
    envelope-to, envelope-from and header-from, the DKIM and SPF domains, and the sender."""
    external = _report(model)
    report = external.report
    fields: list[str | None] = [report.email, report.policy_domain, external.sender]
    for record in report.records:
        fields += [record.envelope_to, record.envelope_from, record.header_from]
        fields += [dkim.domain for dkim in record.dkim_results] + [spf.domain for spf in record.spf_results]
    return {word for value in fields if value for word in split_search_words(value)}


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
    # The console's total for a failed/passed bound or an expiry range, at the same cost at any size.
    tallied={"total_failed": "exact", "total_successful": "exact", "expires_at": "prefix"},
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
