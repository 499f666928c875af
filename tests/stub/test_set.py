"""x:<Type>/set: create, update (patches), destroy, per-object errors, states, atomicity."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from jmapclient.encoding import MASKED_SECRET
from jmapclient.models.directory import LdapDirectory
from jmapclient.models.introspect import fields_of
from jmapclient.models.objects import DIRECTORY, DMARC_EXTERNAL_REPORT
from tests.support.stub import Stub

SET_KEYS = {"accountId", "oldState", "newState", "created", "updated", "destroyed", "notCreated", "notUpdated",
            "notDestroyed"}
MINIMAL_LDAP = {"@type": "Ldap", "description": "Branch LDAP", "baseDn": "dc=branch", "bindSecret": {"@type": "None"}}


async def dir_set(stub: Stub, **arguments: Any) -> dict[str, Any]:
    """The set response with every key (null when absent), after checking the profile's shape."""
    name, result = await stub.call(DIRECTORY.method("set"), arguments)
    assert name == DIRECTORY.method("set"), result
    if stub.profile.real_get_and_set:
        # wire-notes.md: no states, and empty maps left out.
        assert set(result) <= SET_KEYS - {"oldState", "newState"} and all(result.values()), result
        return {key: result.get(key) for key in SET_KEYS}
    assert set(result) == SET_KEYS  # every key, null when empty: some clients break on a missing one
    return result


def snapshot(stub: Stub) -> dict[str, Any]:
    return {t.name: (stub.store.state(t), stub.store.get(t, stub.store.all_ids(t))) for t in (DIRECTORY,)}


def _validation_paths(error: dict[str, Any], stub: Stub) -> set[str]:
    """The paths a SetError names. The real server names values it cannot parse in an invalidPatch,
    and broken rules in validationFailed with the bare field name (wire-notes.md)."""
    if stub.profile.validation_failed:
        if error["type"] == "invalidPatch":
            return set(error["properties"])
        assert error["type"] == "validationFailed"
        return {item["property"] for item in error["validationErrors"]}
    assert error["type"] == "invalidProperties"
    return set(error["properties"])


def _as_named(paths: set[str], error: dict[str, Any]) -> set[str]:
    return {p.rsplit("/", 1)[-1] for p in paths} if error["type"] == "validationFailed" else paths


def _unchanged_state(result: dict[str, Any], stub: Stub) -> bool:
    return stub.profile.real_get_and_set or result["oldState"] == result["newState"]


async def test_minimal_create_fills_every_default(stub: Stub):
    result = await dir_set(stub, create={"n": MINIMAL_LDAP})
    created = result["created"]["n"]
    new_id = created["id"]
    assert result["notCreated"] is result["updated"] is result["destroyed"] is None
    if not stub.profile.real_get_and_set:
        assert result["oldState"] != result["newState"] == stub.store.state(DIRECTORY)
    stored = stub.store.get(DIRECTORY, [new_id])[new_id]
    for spec in fields_of(LdapDirectory):
        if not spec.required and not spec.server_set:
            assert stored[spec.wire] == spec.default, spec.wire
            if not stub.profile.real_get_and_set:  # the real server's created holds only the id:
                assert created[spec.wire] == spec.default  # test_stalwart_facts, RFC 8620 here
    assert "description" not in created  # ... and not what the client sent


async def test_create_update_destroy_in_one_call(stub: Stub):
    ids = stub.store.all_ids(DIRECTORY)
    result = await dir_set(
        stub,
        create={"a": MINIMAL_LDAP, "bad": {"@type": "Ldap"}},
        update={ids[2]: {"description": "renamed"}, "d999": {"description": "x"}},
        destroy=[ids[1], "d998"],
    )
    assert set(result["created"]) == {"a"} and set(result["notCreated"]) == {"bad"}
    assert result["updated"] == {ids[2]: None} and result["notUpdated"]["d999"]["type"] == "notFound"
    assert result["destroyed"] == [ids[1]] and result["notDestroyed"]["d998"]["type"] == "notFound"
    assert stub.store.get(DIRECTORY, [ids[2]])[ids[2]]["description"] == "renamed"
    assert ids[1] not in stub.store.all_ids(DIRECTORY)


@pytest.mark.parametrize(
    ("value", "paths"),
    [
        ({"@type": "Ldap"}, {"description", "baseDn", "bindSecret"}),
        ({**MINIMAL_LDAP, "poolMaxConnections": 9000}, {"poolMaxConnections"}),
        ({**MINIMAL_LDAP, "timeout": "30s"}, {"timeout"}),
        ({**MINIMAL_LDAP, "useTls": "yes"}, {"useTls"}),
        ({**MINIMAL_LDAP, "description": ""}, {"description"}),
        ({**MINIMAL_LDAP, "url": 5}, {"url"}),
        ({**MINIMAL_LDAP, "colour": "blue"}, {"colour"}),
        ({**MINIMAL_LDAP, "bindSecret": {"@type": "Value", "secret": "s", "hint": "x"}}, {"bindSecret/hint"}),
        ({**MINIMAL_LDAP, "bindSecret": {"@type": "Nope"}}, {"bindSecret/@type"}),
        ({**MINIMAL_LDAP, "id": "d77"}, {"id"}),
        ({**MINIMAL_LDAP, "bindSecret": {"@type": "Value", "secret": MASKED_SECRET}}, {"bindSecret/secret"}),
        ({"@type": "Sql", "description": "s", "store": {"@type": "PostgreSql", "host": "h", "port": 70000,
                                                         "authSecret": {"@type": "None"}}}, {"store/port"}),
        ({"@type": "Kerberos", "description": "k"}, {"@type"}),
    ],
)
async def test_invalid_create_names_the_properties_and_changes_nothing(stub: Stub, value: dict, paths: set[str]):
    if stub.profile.real_get_and_set and MASKED_SECRET in str(value):
        return  # the real server stores the mask: test_stalwart_facts.test_masked_secret_is_stored_as_given
    before = snapshot(stub)
    result = await dir_set(stub, create={"x": value})
    assert result["created"] is None
    error = result["notCreated"]["x"]
    assert _validation_paths(error, stub) == _as_named(paths, error)
    assert snapshot(stub) == before
    assert _unchanged_state(result, stub)


async def test_validation_failed_carries_the_real_servers_error_types(stalwart_stub: Stub):
    result = await dir_set(stalwart_stub, create={"x": {"@type": "Ldap", "poolMaxConnections": 9000,
                                                         "description": "d", "bindSecret": {"@type": "None"}}})
    kinds = {item["property"]: item["type"] for item in result["notCreated"]["x"]["validationErrors"]}
    assert kinds == {"baseDn": "Required", "poolMaxConnections": "MaxValue"}


async def test_non_object_create_and_patch_are_refused(spec_stub: Stub):
    ids = spec_stub.store.all_ids(DIRECTORY)
    result = await dir_set(spec_stub, create={"x": [1]}, update={ids[0]: "text"})
    assert result["notCreated"]["x"]["type"] == "invalidProperties"
    assert result["notUpdated"][ids[0]]["type"] == "invalidPatch"


@pytest.mark.parametrize("arguments", [{"create": []}, {"update": [1]}, {"destroy": "d1"}, {"ifInState": 3}])
async def test_malformed_set_arguments(spec_stub: Stub, arguments: dict):
    name, error = await spec_stub.call(DIRECTORY.method("set"), arguments)
    assert (name, error["type"]) == ("error", "invalidArguments")


async def test_too_many_objects_in_one_set(spec_stub: Stub):
    name, error = await spec_stub.call(DIRECTORY.method("set"), {"destroy": [f"d{n}" for n in range(501)]})
    assert (name, error["type"]) == ("error", "requestTooLarge")


async def test_if_in_state(spec_stub: Stub):  # the real server ignores it: test_stalwart_facts
    stub = spec_stub
    state = stub.store.state(DIRECTORY)
    name, error = await stub.call(DIRECTORY.method("set"), {"ifInState": "stale", "create": {"x": MINIMAL_LDAP}})
    assert (name, error["type"]) == ("error", "stateMismatch")
    assert stub.store.state(DIRECTORY) == state
    result = await dir_set(stub, ifInState=state, create={"x": MINIMAL_LDAP})
    assert result["created"] and result["oldState"] == state


def _ldap_id(stub: Stub) -> str:
    return next(i for i, w in stub.store.get(DIRECTORY, stub.store.all_ids(DIRECTORY)).items() if w["@type"] == "Ldap")


def _sql_id(stub: Stub) -> str:
    return next(i for i, w in stub.store.get(DIRECTORY, stub.store.all_ids(DIRECTORY)).items() if w["@type"] == "Sql")


async def test_patch_paths_into_sets_lists_and_nested_objects(stub: Stub):
    ldap, sql = _ldap_id(stub), _sql_id(stub)
    before_sql = stub.store.get(DIRECTORY, [sql])[sql]
    replica = copy.deepcopy(before_sql["store"]["readReplicas"]["0"])
    result = await dir_set(
        stub,
        update={
            ldap: {"attrEmail/mailPrimary": True, "attrEmail/mail": None, "timeout": 5000},
            sql: {
                "store/readReplicas/1": {**replica, "host": "pg-replica-2.db.example.com"},
                "store/readReplicas/0/port": 6432,
                "store/poolMaxConnections": 40,
            },
        },
    )
    assert result["notUpdated"] is None
    stored = stub.store.get(DIRECTORY, [ldap, sql])
    assert stored[ldap]["attrEmail"] == {"mailPrimary": True}
    assert stored[ldap]["timeout"] == 5000
    assert stored[ldap]["bindSecret"]["secret"] == stub.demo.secrets[0]  # untouched secrets stay as stored
    replicas = stored[sql]["store"]["readReplicas"]
    assert [replicas[k]["host"] for k in ("0", "1")] == ["pg-replica-1.db.example.com", "pg-replica-2.db.example.com"]
    assert replicas["0"]["port"] == 6432 and stored[sql]["store"]["poolMaxConnections"] == 40
    # Removing item 0 shifts item 1 down: lists stay index maps without gaps.
    await dir_set(stub, update={sql: {"store/readReplicas/0": None}})
    replicas = stub.store.get(DIRECTORY, [sql])[sql]["store"]["readReplicas"]
    assert list(replicas) == ["0"] and replicas["0"]["host"] == "pg-replica-2.db.example.com"


async def test_variant_changes_when_the_whole_value_is_sent(stub: Stub):
    ldap = _ldap_id(stub)
    result = await dir_set(stub, update={ldap: {"bindSecret": {"@type": "File", "filePath": "/run/secrets/ldap"}}})
    assert result["updated"] == {ldap: None}
    assert stub.store.get(DIRECTORY, [ldap])[ldap]["bindSecret"] == {"@type": "File", "filePath": "/run/secrets/ldap"}


@pytest.mark.parametrize(
    ("patch", "paths"),
    [
        ({"bindSecret/@type": "File"}, {"bindSecret/@type"}),
        ({"nothing/here": 1}, {"nothing/here"}),
        ({"description/x": 1}, {"description/x"}),
        ({"attrEmail/mail": False}, {"attrEmail/mail"}),
        ({"attrEmail/a/b": True}, {"attrEmail/a/b"}),
        ({"bindSecret/secret/x": "y"}, {"bindSecret/secret/x"}),
    ],
)
async def test_bad_patch_is_invalid_patch_and_changes_nothing(stub: Stub, patch: dict, paths: set[str]):
    if stub.profile.real_get_and_set and False in patch.values():
        return  # false removes a set member there: test_stalwart_facts.test_false_removes_a_set_member
    ldap = _ldap_id(stub)
    before = snapshot(stub)
    result = await dir_set(stub, update={ldap: patch})
    error = result["notUpdated"][ldap]
    assert error["type"] == "invalidPatch" and set(error["properties"]) == paths
    assert snapshot(stub) == before


@pytest.mark.parametrize(
    ("patch", "paths"),
    [
        ({"store/readReplicas/5": {"host": "x", "authSecret": {"@type": "None"}}}, {"store/readReplicas/5"}),
        ({"store/readReplicas/x/port": 1}, {"store/readReplicas/x/port"}),
        ({"store/readReplicas/1": None}, {"store/readReplicas/1"}),
    ],
)
async def test_bad_list_positions_are_invalid_patch(stub: Stub, patch: dict, paths: set[str]):
    sql = _sql_id(stub)
    result = await dir_set(stub, update={sql: patch})
    assert set(result["notUpdated"][sql]["properties"]) == paths


@pytest.mark.parametrize(
    ("patch", "paths"),
    [
        ({"poolMaxConnections": 10_000}, {"poolMaxConnections"}),
        ({"baseDn": None}, {"baseDn"}),
        ({"colour": "red"}, {"colour"}),
        ({"bindSecret/secret": MASKED_SECRET}, {"bindSecret/secret"}),
        ({"bindSecret": {"@type": "Value", "secret": MASKED_SECRET}}, {"bindSecret/secret"}),
        ({"@type": "Oidc"}, {"@type"}),
        ({"id": "d42"}, {"id"}),
    ],
)
async def test_invalid_update_values_change_nothing(stub: Stub, patch: dict, paths: set[str]):
    if stub.profile.real_get_and_set and MASKED_SECRET in str(patch):
        return  # the real server stores the mask: test_stalwart_facts.test_masked_secret_is_stored_as_given
    if stub.profile.real_get_and_set and "@type" in patch:
        return  # the real server rebuilds the object: test_stalwart_facts.test_a_top_level_type_change_rebuilds
    ldap = _ldap_id(stub)
    before = snapshot(stub)
    result = await dir_set(stub, update={ldap: patch})
    error = result["notUpdated"][ldap]
    assert _validation_paths(error, stub) == _as_named(paths, error)
    assert snapshot(stub) == before
    assert stub.store.get(DIRECTORY, [ldap])[ldap]["bindSecret"]["secret"] == stub.demo.secrets[0]


async def test_sending_the_same_id_back_is_allowed(spec_stub: Stub):
    # The real server refuses any id key: test_stalwart_facts.test_an_id_key_in_an_update_is_invalid_patch
    stub = spec_stub
    ldap = _ldap_id(stub)
    assert (await dir_set(stub, update={ldap: {"id": ldap, "description": "same id"}}))["updated"] == {ldap: None}


async def test_update_of_an_object_being_destroyed_is_will_destroy(stub: Stub):
    ldap = (await dir_set(stub, create={"n": MINIMAL_LDAP}))["created"]["n"]["id"]  # the demo one is in use
    result = await dir_set(stub, update={ldap: {"description": "x"}}, destroy=[ldap])
    assert result["notUpdated"][ldap]["type"] == "willDestroy"
    assert result["destroyed"] == [ldap]


async def test_destroyed_ids_are_never_reused(spec_stub: Stub):
    first = (await dir_set(spec_stub, create={"a": MINIMAL_LDAP}))["created"]["a"]["id"]
    await dir_set(spec_stub, destroy=[first])
    second = (await dir_set(spec_stub, create={"b": MINIMAL_LDAP}))["created"]["b"]["id"]
    assert second != first


def _first_report(stub: Stub) -> tuple[str, dict[str, Any]]:
    """A stored report's id and a copy of it fit to create (no id)."""
    report_id = stub.store.all_ids(DMARC_EXTERNAL_REPORT)[0]
    stored = stub.store.get(DMARC_EXTERNAL_REPORT, [report_id])[report_id]
    return report_id, {key: value for key, value in stored.items() if key != "id"}


async def test_reports_are_writable_in_the_spec_profile(spec_stub: Stub):
    report_id, new = _first_report(spec_stub)
    _name, result = await spec_stub.call(
        DMARC_EXTERNAL_REPORT.method("set"),
        {"create": {"copy": new}, "update": {report_id: {"report/records/0/count": 5, "subject": "edited"}}},
    )
    assert result["created"]["copy"]["id"] and result["updated"] == {report_id: None}
    after = spec_stub.store.get(DMARC_EXTERNAL_REPORT, [report_id])[report_id]
    assert after["report"]["records"]["0"]["count"] == 5 and after["subject"] == "edited"


async def test_reports_cannot_be_created_or_updated_on_the_real_server(stalwart_stub: Stub):
    report_id, new = _first_report(stalwart_stub)
    _name, result = await stalwart_stub.call(
        DMARC_EXTERNAL_REPORT.method("set"),
        {"create": {"copy": new}, "update": {report_id: {"subject": "x"}}, "destroy": [report_id]},
    )
    assert result["notCreated"]["copy"] == {"type": "forbidden", "description": "Reports cannot be created"}
    assert result["notUpdated"][report_id]["type"] == "forbidden"
    assert result["notUpdated"][report_id]["description"] == "External reports cannot be updated"
    assert result["destroyed"] == [report_id]


def _without_nulls(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _without_nulls(item) for key, item in value.items() if item is not None}
    return value


async def test_a_created_report_sent_without_its_unset_fields_is_not_echoed_back(spec_stub: Stub):
    # RFC 8620 §5.3 echoes what the server set or changed. Nulls stored for optional fields left out
    # change nothing: echoing the whole report for them doubled what an import moved (issue #33).
    _, new = _first_report(spec_stub)
    new["report"] = _without_nulls(new["report"])
    changed = copy.deepcopy(new)
    changed["report"]["policyVersion"] = "1"
    changed.pop("memberTenantId", None)
    _name, result = await spec_stub.call(DMARC_EXTERNAL_REPORT.method("set"), {"create": {"same": new,
                                                                                       "changed": changed}})
    assert set(result["created"]) == {"same", "changed"}, result
    assert "report" not in result["created"]["same"]
    assert "memberTenantId" in result["created"]["changed"]  # left out: set by the server, so echoed
    stored = spec_stub.store.get(DMARC_EXTERNAL_REPORT, [result["created"]["same"]["id"]])
    assert _without_nulls(next(iter(stored.values()))["report"]) == new["report"]


async def test_a_calls_creates_are_stored_together_and_a_bad_one_alone_is_refused(spec_stub: Stub):
    _, new = _first_report(spec_stub)
    before = spec_stub.store.count(DMARC_EXTERNAL_REPORT)
    bad = {**new, "report": {**new["report"], "reportId": ""}}
    _name, result = await spec_stub.call(DMARC_EXTERNAL_REPORT.method("set"),
                                         {"create": {"a": new, "bad": bad, "b": new}})
    assert list(result["created"]) == ["a", "b"] and set(result["notCreated"]) == {"bad"}
    ids = [result["created"][key]["id"] for key in ("a", "b")]
    assert int(ids[0][1:]) < int(ids[1][1:])  # in the order sent
    assert spec_stub.store.count(DMARC_EXTERNAL_REPORT) == before + 2
    # The state moves once for each object stored, as when each was stored in its own transaction.
    assert int(result["newState"]) == int(result["oldState"]) + 2 == int(spec_stub.store.state(DMARC_EXTERNAL_REPORT))


async def test_a_created_reports_unknown_properties_are_refused_by_path_wherever_they_are(spec_stub: Stub):
    # Valid reports skip the path walk (a quick test finds nothing undeclared); an undeclared property at any
    # depth, a record's included, still refuses its report alone, named by its path.
    _, new = _first_report(spec_stub)
    top = {**new, "colour": "red"}
    inner = copy.deepcopy(new)
    inner["report"]["shiny"] = True
    deep = copy.deepcopy(new)
    deep["report"]["records"]["0"]["dkimResults"] = {"0": {"domain": "example.com", "selector": "s", "result": "pass",
                                                           "humanResult": None, "extra": 1}}
    _name, result = await spec_stub.call(DMARC_EXTERNAL_REPORT.method("set"),
                                         {"create": {"ok": new, "top": top, "inner": inner, "deep": deep}})
    assert list(result["created"]) == ["ok"], result
    refused = result["notCreated"]
    assert {key: refused[key]["properties"] for key in refused} == {
        "top": ["colour"], "inner": ["report/shiny"], "deep": ["report/records/0/dkimResults/0/extra"]}
