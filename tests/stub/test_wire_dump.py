"""The stub stores what ``to_wire`` writes, by its own walk of the fields (``server_stub.wire_dump``), byte for
byte: over the sample corpus, hostile files, generated objects of every type, and through a create and a get."""

from __future__ import annotations

import copy
import json
from datetime import UTC, datetime
from enum import Enum
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from bench.hostile_corpus import CASES, feedback, write_case
from jmapclient.dmarc.loader import load_bytes, load_file, load_reports
from jmapclient.models import WireModel
from jmapclient.models.dmarc import DmarcExternalReport, DmarcReport
from jmapclient.models.objects import DMARC_EXTERNAL_REPORT, OBJECT_TYPES, ObjectType
from server_stub import validation
from server_stub.validation import InvalidObject, stored_form, validate_incoming, validated_and_stored
from server_stub.wire_dump import stored_wire
from tests.support.fuzz_strategies import mutated_object, whole_object
from tests.support.samples import samples_or_skip
from tests.support.stub import running_stub

NOW = datetime(2026, 3, 1, tzinfo=UTC)


def _same_as_to_wire(model: WireModel) -> dict[str, Any]:
    """The walk's stored form, checked to be ``to_wire``'s: the same JSON text, so the same keys in the same order."""
    walked = stored_wire(model)
    assert json.dumps(walked) == json.dumps(model.to_wire())
    return walked


def _reports_of(paths: list[Path]) -> list[dict[str, Any]]:
    return [result.wire for path in paths if (result := load_file(path, now=NOW)).ok and result.wire is not None]


def _report(report_id: str = "walk") -> dict[str, Any]:
    """A parsed report, as an import sends it."""
    wire = load_bytes(feedback(report_id=report_id), Path(f"{report_id}.xml"), now=NOW).wire
    assert wire is not None
    return copy.deepcopy(wire)


def test_the_sample_corpus_is_stored_as_to_wire_writes_it() -> None:
    reports = [result.wire for result in load_reports([samples_or_skip()], now=NOW) if result.wire is not None]
    assert len(reports) > 20
    for wire in reports:
        _same_as_to_wire(DMARC_EXTERNAL_REPORT.validate(wire))
        _same_as_to_wire(DMARC_EXTERNAL_REPORT.read(wire))


def test_hostile_files_that_import_are_stored_as_to_wire_writes_them(tmp_path: Path) -> None:
    cases = [case for case in CASES if case.outcome == "ok" and not case.heavy]
    reports = _reports_of([write_case(case, tmp_path) for case in cases])
    assert len(reports) == len(cases)
    for wire in reports:
        _same_as_to_wire(DMARC_EXTERNAL_REPORT.validate(wire))


def test_values_pydantic_writes_otherwise_are_stored_as_it_writes_them() -> None:
    """Sent forms the models change: an integer version, a timestamp with an offset, an IPv6 address not
    in its short form, a set sent as an array with repeats, a list sent as an array, positions out of order."""
    wire = _report()
    report = wire["report"]
    report.update(version=1, dateRangeBegin="2026-01-01T01:00:00+01:00", errors=["b", "a", "b"],
                  policyFailureReportingOptions=["dkimFailure", "all", "dkimFailure"])
    records = list(report["records"].values())
    records[0]["sourceIp"] = "2001:DB8:0:0:0:0:0:1"
    report["records"] = {str(index): record for index, record in reversed(list(enumerate(records)))}
    report["extensions"] = [{"name": "x", "definition": "y"}]
    report["orgName"], wire["subject"] = "a\ud800b\x00c", "\udfff"  # a lone surrogate and a NUL, as JSON can carry
    walked = _same_as_to_wire(DMARC_EXTERNAL_REPORT.validate(wire))
    assert walked["report"]["version"] == 1.0 and isinstance(walked["report"]["version"], float)
    assert walked["report"]["records"]["0"]["sourceIp"] == "2001:db8::1"


def test_a_default_enum_member_is_stored_as_its_value() -> None:
    wire = _report()
    del wire["report"]["policyNp"], wire["report"]["policyDiscoveryMethod"]
    model = DMARC_EXTERNAL_REPORT.validate(wire)
    assert isinstance(model.report.policy_np, Enum)  # the default, never validated: the member itself
    walked = _same_as_to_wire(model)
    assert type(walked["report"]["policyNp"]) is str


def test_an_undeclared_property_is_written_by_to_wire() -> None:
    """Kept by a client model (a newer server's property), it is dumped the one way that knows where it goes."""
    wire = _report()
    wire["report"]["newProperty"] = {"a": [1, 2]}
    model = DMARC_EXTERNAL_REPORT.read(wire)
    assert _same_as_to_wire(model)["report"]["newProperty"] == {"a": [1, 2]}


def test_a_report_is_stored_without_pydantic_writing_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """The point of the walk: a created report's stored form is not dumped by pydantic (a sixth of a create)."""
    model = DMARC_EXTERNAL_REPORT.validate(_report())
    expected = json.dumps(model.to_wire())

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the report was dumped by pydantic")

    monkeypatch.setattr(DmarcExternalReport, "model_dump", refuse)
    monkeypatch.setattr(DmarcReport, "model_dump", refuse)
    assert json.dumps(stored_form(model)) == expected


def _checked_if_valid(object_type: ObjectType, wire: dict[str, Any]) -> None:
    for read in (object_type.validate, object_type.read):
        try:
            model = read(wire)
        except (ValidationError, ValueError, TypeError):
            continue
        _same_as_to_wire(model)
    _same_verdict(object_type, wire)


def _verdict(check: Any) -> Any:
    try:
        return "stored", json.dumps(check())
    except InvalidObject as invalid:
        return "refused", [(problem.path, problem.kind, problem.message) for problem in invalid.problems]


def _same_verdict(object_type: ObjectType, wire: dict[str, Any]) -> None:
    """The create's one walk refuses what validating then looking for undeclared properties refuses, alike."""
    for mask in (True, False):
        separate = _verdict(lambda mask=mask: stored_form(validate_incoming(object_type, wire, refuse_mask=mask)))
        together = _verdict(lambda mask=mask: validated_and_stored(object_type, wire, refuse_mask=mask)[1])
        assert together == separate


def test_an_undeclared_property_anywhere_in_a_report_is_refused_as_before() -> None:
    for where in ([], ["report"], ["report", "records", "0"], ["report", "records", "0", "dkimResults", "0"]):
        wire = _report()
        inner = wire
        for key in where:
            inner = inner[key]
        inner["sneaky"] = 1
        _same_verdict(DMARC_EXTERNAL_REPORT, wire)
        with pytest.raises(InvalidObject) as refused:
            validated_and_stored(DMARC_EXTERNAL_REPORT, wire)
        assert [problem.path for problem in refused.value.problems] == ["/".join([*where, "sneaky"])]


def test_a_valid_report_is_walked_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """The walk that writes the stored form is the look for undeclared properties: no second walk for it."""
    def refuse(model: Any) -> bool:
        raise AssertionError("walked again for undeclared properties")

    monkeypatch.setattr(validation, "_holds_unknown", refuse)
    model, stored = validated_and_stored(DMARC_EXTERNAL_REPORT, _report())
    assert json.dumps(stored) == json.dumps(model.to_wire())


@pytest.mark.parametrize("object_type", list(OBJECT_TYPES.values()), ids=lambda t: t.name)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_generated_objects_of_every_type_are_stored_as_to_wire_writes_them(
    object_type: ObjectType, data: st.DataObject
) -> None:
    _checked_if_valid(object_type, data.draw(whole_object(object_type)))
    _checked_if_valid(object_type, data.draw(mutated_object(object_type)))


async def test_a_created_report_is_served_back_as_the_full_dump(tmp_path: Path) -> None:
    """Through the stub: created from the sample corpus and hostile files, each report's get is its model's
    whole ``to_wire`` with its id."""
    hostile = [case for case in CASES if case.outcome == "ok" and not case.heavy]
    reports = [result.wire for result in load_reports([samples_or_skip()], now=NOW) if result.wire is not None]
    reports += _reports_of([write_case(case, tmp_path) for case in hostile])
    async with running_stub("spec", reports=0) as stub:
        for start in range(0, len(reports), 50):
            sent = {f"c{index}": wire for index, wire in enumerate(reports[start:start + 50])}
            name, result = await stub.call(DMARC_EXTERNAL_REPORT.method("set"), {"create": sent})
            assert name == DMARC_EXTERNAL_REPORT.method("set") and not result.get("notCreated"), result
            ids = {key: created["id"] for key, created in result["created"].items()}
            _, got = await stub.call(DMARC_EXTERNAL_REPORT.method("get"), {"ids": list(ids.values())})
            served = {item["id"]: item for item in got["list"]}
            for key, object_id in ids.items():
                expected = {**DMARC_EXTERNAL_REPORT.validate(sent[key]).to_wire(), "id": object_id}
                assert json.dumps(served[object_id]) == json.dumps(expected)
