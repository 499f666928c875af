"""``FieldSpec.kind`` is a closed set, and one table puts each kind into words."""

from __future__ import annotations

import typing

from jmapclient.models.directory import LdapDirectory
from jmapclient.models.introspect import KIND_WORDS, FieldKind, field_by_wire, fields_of
from jmapclient.models.objects import OBJECT_TYPES
from mailadmin.cli.describe import type_text


def test_every_kind_has_words_and_every_declared_field_has_a_known_kind() -> None:
    assert set(KIND_WORDS) == set(typing.get_args(FieldKind))
    models = [m for t in OBJECT_TYPES.values() for m in (t.variants.values() or [t.annotation])]
    for model in models:
        for spec in fields_of(model):
            assert spec.kind in KIND_WORDS and spec.kind != "value", (model.__name__, spec.wire)


def test_describe_reads_the_kind_words() -> None:
    timeout = type_text(field_by_wire(LdapDirectory, "timeout"))
    assert timeout == KIND_WORDS["duration"] == "duration (e.g. 250ms, 30s, 5m, 1h30m or 2d)"
    assert type_text(field_by_wire(LdapDirectory, "attrEmail")) == "set<text>"
