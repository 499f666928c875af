"""How each object type is kept in SQLite: the indexed columns behind its filters and sorts.

The filter conditions and sort properties themselves come from
:class:`jmapclient.models.objects.ObjectType`; this module only says which column
answers each one, and checks at import time that every condition and sort has one.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Literal

from jmapclient.dmarc.searched import searched_texts, wire_name
from jmapclient.encoding import list_from_wire
from jmapclient.models.dmarc import DmarcActionDisposition, DmarcExternalReport, DmarcReport, DmarcReportRecord
from jmapclient.models.objects import DIRECTORY, DMARC_EXTERNAL_REPORT, ObjectType
from server_stub.tallies import RankKind, TallyKind

COLLATIONS = ("i;ascii-numeric", "i;ascii-casemap", "i;unicode-casemap")
"""The collations the session advertises; a sort naming another gets ``unsupportedSort`` (RFC 8620 §5.5)."""

Match = Literal["equal", "compare", "lower", "words"]
"""How a condition matches: exact, exact or by IsGreaterThan-style suffixes, case-insensitive, word search."""


Stored = dict[str, Any]
"""An object's stored wire JSON: the models' canonical form (``stored_form``), every default filled in.
Columns and words are read from it, not from a model, so a bulk load need not build one per object."""


@dataclass(frozen=True)
class Column:
    name: str
    sql_type: Literal["TEXT", "INTEGER"]
    value: Callable[[Stored], Any]


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
    words: Callable[[Stored], Iterable[str]] | None = None
    composite_indexes: tuple[tuple[str, ...], ...] = field(default_factory=tuple)
    tallied: dict[str, TallyKind] = field(default_factory=dict)
    """Columns whose bounds are counted from the tally table (:mod:`server_stub.tallies`)."""
    ranked: dict[str, RankKind] = field(default_factory=dict)
    """Sort columns (``seq`` for the id) whose buckets the tally counts, so deep pages skip by counts."""
    served: dict[str, str] = field(default_factory=dict)
    """Top-level property → the column holding its wire value as it is: a get asking only for these (and
    the id) is answered from the columns, no object read (a period's sync asks every report's time)."""

    def index_values(self, stored: Stored) -> dict[str, Any]:
        return {column.name: column.value(stored) for column in self.columns}


_wire = wire_name
_TENANT = _wire(DmarcExternalReport, "member_tenant_id")
_RECEIVED, _EXPIRES, _REPORT = (_wire(DmarcExternalReport, name) for name in ("received_at", "expires_at", "report"))
_POLICY_DOMAIN, _RECORDS = (_wire(DmarcReport, name) for name in ("policy_domain", "records"))
_COUNT, _DISPOSITION = _wire(DmarcReportRecord, "count"), _wire(DmarcReportRecord, "evaluated_disposition")
PASS = DmarcActionDisposition.PASS.value


def _tenant(stored: Stored) -> str | None:
    return stored.get(_TENANT)


def _records(stored: Stored) -> list[Stored]:
    return list_from_wire(stored[_REPORT][_RECORDS])


def total_sessions(stored: Stored, *, passing: bool) -> int:
    """wire-notes.md, the only definition there is: each record adds ``min(count, 1)`` to the passing
    total when its evaluated disposition is ``pass``, and to the failing total otherwise. Records, not
    messages, and not DKIM or SPF results."""
    return sum(min(record[_COUNT], 1) for record in _records(stored)
               if (record[_DISPOSITION] == PASS) == passing)


_NOT_WORD = re.compile(r"[^\w]|_")


SHORT_TEXT = 255
"""Values up to this long (a domain, an address) are split once and remembered; longer ones each time,
so hostile text cannot fill the memory."""


def _split(text: str) -> tuple[str, ...]:
    # Words of one byte are dropped, not of one character: a single non-ASCII letter (é, 日) is two bytes
    # or more in UTF-8, a word the real server keeps (wire-notes.md). Dropped, "é" matched every report.
    return tuple(word for word in _NOT_WORD.split(text.lower()) if len(word) > 1 or not word.isascii())


_split_short = lru_cache(maxsize=4096)(_split)


def _words_of(text: str) -> tuple[str, ...]:
    # Reports name the same domains and addresses over and over: each distinct value is split once.
    return _split_short(text) if len(text) <= SHORT_TEXT else _split(text)


def split_search_words(text: str) -> list[str]:
    """The real server's words: split on every character that is not a letter or a digit, lowercased,
    one-byte words dropped (wire-notes.md). The same split serves the index and the query."""
    return list(_words_of(text))


def report_words(stored: Stored) -> set[str]:
    """What ``text`` searches (wire-notes.md; the fields are :func:`searched_texts`'), in words."""
    # Each distinct text once: a report's records name the same few domains over and over.
    texts = set(searched_texts(stored))
    texts.discard(None)
    texts.discard("")
    return {word for value in texts for word in _words_of(value)}


DIRECTORY_SCHEMA = TableSchema(
    object_type=DIRECTORY,
    table="directory",
    id_prefix="d",
    columns=(Column("member_tenant_id", "TEXT", _tenant),),
    conditions={"memberTenantId": ConditionColumn("member_tenant_id", "equal", "id")},
    sorts={"id": "seq", "memberTenantId": "member_tenant_id"},
)

REPORT_SCHEMA = TableSchema(
    object_type=DMARC_EXTERNAL_REPORT,
    table="dmarc_report",
    id_prefix="r",
    columns=(
        # Stored times are already written as format_utc writes them.
        Column("received_at", "TEXT", lambda s: s[_RECEIVED]),
        Column("expires_at", "TEXT", lambda s: s[_EXPIRES]),
        Column("policy_domain", "TEXT", lambda s: s[_REPORT][_POLICY_DOMAIN].lower()),
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
    ranked={"received_at": "time", "expires_at": "time", "seq": "seq"},
    served={"receivedAt": "received_at", "expiresAt": "expires_at"},
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
