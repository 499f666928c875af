"""Labels, not wire names, wherever a person reads (issue 16): declared once, on the models."""

from __future__ import annotations

import re
from collections.abc import Iterator

from jmapclient.models import WireModel
from jmapclient.models.dmarc import DmarcReport, DmarcSpfResult
from jmapclient.models.introspect import field_by_wire, fields_of, kind_label, variant_name
from jmapclient.models.objects import OBJECT_TYPES


def every_model() -> Iterator[type[WireModel]]:
    seen: set[type[WireModel]] = set()
    todo: list[type[WireModel]] = [m for t in OBJECT_TYPES.values() for m in (t.variants.values() or [t.annotation])]
    while todo:
        model = todo.pop()
        if model in seen:
            continue
        seen.add(model)
        yield model
        for spec in fields_of(model):
            todo.extend(spec.variants.values())
            if spec.item_model is not None:
                todo.append(spec.item_model)


def test_every_variant_declares_how_people_name_it() -> None:
    variants = [m for m in every_model() if variant_name(m) is not None]
    assert len(variants) >= 11
    assert all("KIND_LABEL" in vars(m) for m in variants), [m.__name__ for m in variants if "KIND_LABEL" not in vars(m)]
    labels = {variant_name(m): kind_label(m) for m in variants}
    assert labels["PostgreSql"] == "PostgreSQL" and labels["MySql"] == "MySQL" and labels["Sqlite"] == "SQLite"
    assert labels["EnvironmentVariable"] == "Environment variable"


def test_every_enum_choice_is_labelled_and_wire_names_stay() -> None:
    scope = field_by_wire(DmarcSpfResult, "scope")
    assert scope.choices == ("helo", "mailFrom", "unspecified")
    assert scope.choice_label("mailFrom") == "MAIL FROM"
    assert scope.choice_label("somethingNew") == "somethingNew"  # a newer server's value reads as itself
    for model in every_model():
        for spec in fields_of(model):
            assert set(spec.choice_labels) == set(spec.choices), (model.__name__, spec.wire)
            camel = [text for text in spec.choice_labels.values() if re.search("[a-z][A-Z]", text)]
            assert camel == [], (model.__name__, spec.wire)  # "MAIL FROM", never "mailFrom"


def test_dmarc_tags_carry_their_meaning() -> None:
    labels = {spec.wire: spec.label for spec in fields_of(DmarcReport)}
    assert labels["policyDisposition"] == "Policy (p)"
    assert labels["policySubdomainDisposition"] == "Subdomain policy (sp)"
    assert labels["policyNp"] == "Non-existent subdomain policy (np)"
    assert labels["policyFailureReportingOptions"] == "Failure reporting (fo)"
    assert labels["policyAdkim"] == "DKIM alignment (adkim)" and labels["policyAspf"] == "SPF alignment (aspf)"
    assert field_by_wire(DmarcReport, "policyFailureReportingOptions").choice_label("dkimFailure") == "DKIM fails (d)"
