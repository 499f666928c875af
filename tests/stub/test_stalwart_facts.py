"""One test per fact of wire-notes.md, "Protocol facts of the real server", each named after it.

These run on the stalwart profile as the real server behaves: its session names the real default
public URL (``https://<hostname>``), never the address the test used.
"""

from __future__ import annotations

import base64
import io
import json
import os
import random
import socket
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from bench.serve_process import start_serve, stop_serve
from jmapclient import JmapClient
from jmapclient.dmarc.exporting import export_reports
from jmapclient.encoding import MASKED_SECRET
from jmapclient.models.objects import DIRECTORY, DMARC_EXTERNAL_REPORT
from jmapclient.session import CORE_CAPABILITY
from server_stub.auth import Principal, all_permissions
from server_stub.demo_data import LINKED_OBJECTS, add_demo_reports
from server_stub.login_guard import FAILURES_ALLOWED
from tests.support.stub import ADMIN, ADMIN_PASSWORD, BASE, READONLY, Stub, make_stub, running_stub

DIR_SET = DIRECTORY.method("set")
DIR_GET = DIRECTORY.method("get")
QUERY = DMARC_EXTERNAL_REPORT.method("query")
MINIMAL_LDAP = {"@type": "Ldap", "description": "Branch LDAP", "baseDn": "dc=branch", "bindSecret": {"@type": "None"}}


@pytest.fixture
async def real() -> AsyncIterator[Stub]:
    """The stalwart profile on its own default public URL."""
    async with running_stub("stalwart", reports=40, public_url=None) as made:
        yield made


def basic(user: str, password: str) -> dict[str, str]:
    return {"Authorization": "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()}


async def session(stub: Stub, headers: dict[str, str] | None = None) -> dict[str, Any]:
    response = await stub.http.get("/jmap/session", headers=headers or {"Authorization": f"Bearer {ADMIN}"})
    assert response.status_code == 200, response.text
    return response.json()


async def ldap_id(stub: Stub) -> str:
    _, result = await stub.call(DIR_GET, {"ids": None, "properties": ["@type"]})
    return next(item["id"] for item in result["list"] if item["@type"] == "Ldap")


async def created(stub: Stub, value: dict[str, Any]) -> dict[str, Any]:
    name, result = await stub.call(DIR_SET, {"create": {"n": value}})
    assert name == DIR_SET and "n" in result.get("created", {}), result
    new_id = result["created"]["n"]["id"]
    return {"id": new_id, **stub.store.get(DIRECTORY, [new_id])[new_id]}


# --- session, endpoint and login ------------------------------------------------------------------


async def test_well_known_answers_307_to_the_session(real: Stub):
    response = await real.http.get("/.well-known/jmap")
    assert (response.status_code, response.headers["location"]) == (307, "/jmap/session")


async def test_api_url_is_absolute_from_the_public_url_never_the_host_header(real: Stub):
    default = f"https://{socket.gethostname()}/jmap/"
    assert (await session(real))["apiUrl"] == default
    moved = {"Authorization": f"Bearer {ADMIN}", "Host": "tunnel.example:2222"}
    assert (await session(real, moved))["apiUrl"] == default  # whatever URL the client used
    async with running_stub("stalwart", reports=0, public_url="https://mail.example.org:8443") as configured:
        assert (await session(configured))["apiUrl"] == "https://mail.example.org:8443/jmap/"


async def test_capability_only_under_account_capabilities_and_no_core_primary_account(real: Stub):
    answer = await session(real)
    assert "urn:stalwart:jmap" not in answer["capabilities"]
    assert all("urn:stalwart:jmap" in a["accountCapabilities"] for a in answer["accounts"].values())
    assert CORE_CAPABILITY not in answer["primaryAccounts"]


async def test_unknown_capability_in_using_rejects_the_whole_request_as_not_request(real: Stub):
    # Not unknownCapability, as RFC 8620 has it and the spec profile answers (test_protocol).
    body = {"using": [CORE_CAPABILITY, "urn:service:jmap"], "methodCalls": [[DIR_GET, {}, "c0"]]}
    response = await real.post(body)
    assert response.status_code == 400 and response.json()["type"] == "urn:ietf:params:jmap:error:notRequest"


@pytest.mark.parametrize(("content_type", "body", "kind"), [
    ("text/plain", b'{"using": [], "methodCalls": []}', "notJSON"),
    ("application/json", b"{not json", "notRequest"),
    (None, b"[1, 2]", "notRequest"),
])
async def test_request_level_errors(real: Stub, content_type: str | None, body: bytes, kind: str):
    headers = {"Authorization": f"Bearer {ADMIN}", **({"Content-Type": content_type} if content_type else {})}
    response = await real.http.post("/jmap/", content=body, headers=headers)
    assert response.status_code == 400 and response.json()["type"] == f"urn:ietf:params:jmap:error:{kind}"


async def test_a_missing_content_type_is_accepted(real: Stub):
    body = b'{"using": ["urn:ietf:params:jmap:core"], "methodCalls": [["x:Directory/get", {"ids": []}, "c0"]]}'
    response = await real.http.post("/jmap/", content=body, headers={"Authorization": f"Bearer {ADMIN}"})
    assert response.status_code == 200 and response.json()["methodResponses"][0][0] == DIR_GET


async def test_more_than_16_calls_give_limit(real: Stub):
    calls = [[DIR_GET, {"ids": []}, f"c{i}"] for i in range(17)]
    response = await real.post({"using": real.using, "methodCalls": calls})
    assert response.status_code == 400 and response.json()["type"].endswith(":limit")


async def test_the_session_without_credentials_is_anonymous(real: Stub):
    response = await real.http.get("/jmap/session")
    assert response.status_code == 200
    assert (response.json()["accounts"], response.json()["username"]) == ({}, "")


async def test_x_methods_run_with_only_core_in_using(real: Stub):
    response = await real.post({"using": [CORE_CAPABILITY], "methodCalls": [[DIR_GET, {"ids": []}, "c0"]]})
    assert response.json()["methodResponses"][0][0] == DIR_GET


async def test_foreign_account_id_is_forbidden_in_the_servers_words(real: Stub):
    name, error = await real.call(DIR_GET, {"ids": [], "accountId": "b7"})
    assert (name, error["type"]) == ("error", "forbidden")
    assert error["description"] == "You are not an owner of account b7"


async def test_basic_login_holds_the_admin_tokens_permissions(real: Stub):
    answer = await session(real, basic("admin", ADMIN_PASSWORD))
    assert answer["username"] == "admin" and not any(a["isReadOnly"] for a in answer["accounts"].values())
    body = {"using": real.using, "methodCalls": [[DIR_SET, {"create": {"n": MINIMAL_LDAP}}, "c0"]]}
    response = await real.http.post(real.profile.api_path, json=body, headers=basic("admin", ADMIN_PASSWORD))
    assert "n" in response.json()["methodResponses"][0][1]["created"]


@pytest.mark.parametrize(
    "headers",
    [basic("admin", "wrong"), basic("nobody", ADMIN_PASSWORD), {"Authorization": "Basic !!notbase64"},
     {"Authorization": f"Basic {base64.b64encode(ADMIN.encode()).decode()}"}],
)
async def test_bad_credentials_give_401(real: Stub, headers: dict[str, str]):
    response = await real.http.get("/jmap/session", headers=headers)
    assert response.status_code == 401
    assert "Basic" in " ".join(response.headers.get_list("www-authenticate"))


async def test_bootstrap_mode_fails_every_method_with_forbidden(real: Stub):
    async with running_stub("stalwart", reports=3, public_url=None, bootstrap=True) as booting:
        for method in (DIR_GET, DIR_SET, QUERY, DMARC_EXTERNAL_REPORT.method("get")):
            name, error = await booting.call(method, {})
            assert (name, error["type"]) == ("error", "forbidden"), method
            assert error["description"].startswith("The server is in bootstrap mode")


async def test_limits_advertised_under_core(real: Stub):
    core = (await session(real))["capabilities"][CORE_CAPABILITY]
    assert (core["maxObjectsInGet"], core["maxObjectsInSet"], core["maxCallsInRequest"], core["maxSizeRequest"]) == (
        500, 500, 16, 10_000_000)


async def test_query_limit_capped_at_5000_with_limit_in_the_answer(real: Stub):
    _, capped = await real.call(QUERY, {"limit": 9000})
    assert capped["limit"] == 5000


async def test_result_references_make_query_and_get_one_request(real: Stub):
    reference = {"resultOf": "q", "name": QUERY, "path": "/ids"}
    responses = await real.calls([[QUERY, {"limit": 3}, "q"],
                                  [DMARC_EXTERNAL_REPORT.method("get"), {"#ids": reference}, "g"]])
    assert [item["id"] for item in responses[1][1]["list"]] == responses[0][1]["ids"]


# --- get ---------------------------------------------------------------------------------------------


async def test_get_has_no_state(real: Stub):
    _, result = await real.call(DIR_GET, {"ids": None})
    assert "state" not in result and result["list"]


async def test_ids_null_returns_at_most_500_silently(real: Stub):
    add_demo_reports(real.store, 520 - real.demo.reports, random.Random(3))
    name, result = await real.call(DMARC_EXTERNAL_REPORT.method("get"), {"ids": None, "properties": ["id"]})
    assert name == DMARC_EXTERNAL_REPORT.method("get") and len(result["list"]) == 500


async def test_type_comes_only_when_listed(real: Stub):
    _, without = await real.call(DIR_GET, {"ids": None, "properties": ["description"]})
    assert all(set(item) == {"id", "description"} for item in without["list"])
    _, listed = await real.call(DIR_GET, {"ids": None, "properties": ["@type"]})
    assert {item["@type"] for item in listed["list"]} == {"Ldap", "Sql", "Oidc"}


async def test_unknown_properties_are_dropped_silently(real: Stub):
    name, result = await real.call(DIR_GET, {"ids": None, "properties": ["description", "colour"]})
    assert name == DIR_GET and all(set(item) == {"id", "description"} for item in result["list"])


async def test_unset_optional_fields_are_null_and_value_secrets_masked(real: Stub):
    _, result = await real.call(DIR_GET, {"ids": [await ldap_id(real)]})
    ldap = result["list"][0]
    assert ldap["bindSecret"] == {"@type": "Value", "secret": MASKED_SECRET}
    assert ldap["memberTenantId"] is None


# --- DMARC reports as the real server stores them --------------------------------------------------


async def test_received_reports_are_stored_without_validation(real: Stub):
    stored = real.store.get(DMARC_EXTERNAL_REPORT, real.store.all_ids(DMARC_EXTERNAL_REPORT)).values()
    records = [r for report in stored for r in report["report"]["records"].values()]
    assert any(r["envelopeFrom"] == "" for r in records)  # Google's
    assert any(d["selector"] == "" for r in records for d in r["dkimResults"].values())
    assert any(report["subject"] == "" for report in stored)
    assert any(r["evaluatedDisposition"] == "pass" for r in records)  # DMARCbis


async def test_report_ids_grow_with_arrival(real: Stub):
    stored = real.store.get(DMARC_EXTERNAL_REPORT, real.store.all_ids(DMARC_EXTERNAL_REPORT))
    by_id = sorted(stored, key=lambda i: int(i[1:]))
    received = [stored[i]["receivedAt"] for i in by_id]
    assert received == sorted(received)


async def test_reports_cannot_be_created_or_updated(real: Stub):
    report_id = real.store.all_ids(DMARC_EXTERNAL_REPORT)[0]
    stored = real.store.get(DMARC_EXTERNAL_REPORT, [report_id])[report_id]
    copy = {k: v for k, v in stored.items() if k != "id"}
    _, result = await real.call(DMARC_EXTERNAL_REPORT.method("set"),
                                {"create": {"n": copy}, "update": {report_id: {"subject": "x"}}})
    assert result["notCreated"]["n"] == {"type": "forbidden", "description": "Reports cannot be created"}
    assert result["notUpdated"][report_id] == {"type": "forbidden", "description": "External reports cannot be updated"}


# --- query ------------------------------------------------------------------------------------------


async def test_totals_count_records_at_most_one_each_keyed_on_disposition(real: Stub):
    stored = real.store.get(DMARC_EXTERNAL_REPORT, real.store.all_ids(DMARC_EXTERNAL_REPORT))

    def records(report: dict[str, Any], passing: bool) -> int:
        return sum(min(r["count"], 1) for r in report["report"]["records"].values()
                   if (r["evaluatedDisposition"] == "pass") == passing)

    for key, passing in (("totalSuccessfulSessionsIsGreaterThanOrEqual", True),
                         ("totalFailedSessionsIsGreaterThanOrEqual", False)):
        _, result = await real.call(QUERY, {"filter": {key: 1}, "limit": 5000})
        assert set(result["ids"]) == {i for i, r in stored.items() if records(r, passing) >= 1}, key
    _, many = await real.call(QUERY, {"filter": {"totalFailedSessionsIsGreaterThanOrEqual": 10}})
    assert many["ids"] == []  # one per record: never ten failures in a demo report


async def test_or_and_not_are_unsupported_filters(real: Stub):
    for operator in ("OR", "NOT"):
        name, error = await real.call(QUERY, {"filter": {"operator": operator, "conditions": [{"text": "gmx"}]}})
        assert (name, error["type"]) == ("error", "unsupportedFilter")


@pytest.mark.parametrize("condition", [{"totalFailedSessions": "3"}, {"totalFailedSessions": -1},
                                       {"expiresAtIsLessThan": "31/12/2026"}])
async def test_bad_filter_values_get_unsupported_filter(real: Stub, condition: dict[str, Any]):
    name, error = await real.call(QUERY, {"filter": condition})
    assert (name, error["type"]) == ("error", "unsupportedFilter")


async def test_domain_condition_is_unsupported(real: Stub):
    name, error = await real.call(QUERY, {"filter": {"domain": "example.com"}})
    assert (name, error["type"]) == ("error", "unsupportedFilter")


async def test_text_word_search_splits_on_non_alphanumerics_and_drops_one_letter_words(real: Stub):
    _, dotted = await real.call(QUERY, {"filter": {"text": "Example.COM"}, "limit": 5000})
    _, spaced = await real.call(QUERY, {"filter": {"text": "com, example!"}, "limit": 5000})
    _, with_a = await real.call(QUERY, {"filter": {"text": "a example x com"}, "limit": 5000})
    assert dotted["ids"] and dotted["ids"] == spaced["ids"] == with_a["ids"]
    stored = real.store.get(DMARC_EXTERNAL_REPORT, dotted["ids"])
    # "example.com" holds the words example and com anywhere: other policy domains match too.
    assert {r["report"]["policyDomain"] for r in stored.values()} > {"example.com"}
    _, google = await real.call(QUERY, {"filter": {"text": "google.com"}, "limit": 5000})
    all_reports = real.store.get(DMARC_EXTERNAL_REPORT, real.store.all_ids(DMARC_EXTERNAL_REPORT))
    assert {i for i, r in all_reports.items() if r["from"].endswith("@google.com")} <= set(google["ids"])


async def test_text_word_search_keeps_a_single_non_ascii_letter_a_word_of_more_than_one_byte(real: Stub):
    # tester87: the stub dropped one-character words, so "é" matched all 700 reports and "google é" as many as
    # "google". The real server drops words of one byte.
    for letter in ("é", "日"):
        _, none = await real.call(QUERY, {"filter": {"text": letter}, "limit": 5000, "calculateTotal": True})
        assert none["ids"] == [] and none["total"] == 0
    report_id = real.store.all_ids(DMARC_EXTERNAL_REPORT)[0]
    wire = real.store.get(DMARC_EXTERNAL_REPORT, [report_id])[report_id]
    wire["from"] = "dmarc@é.example"
    assert real.store.replace(DMARC_EXTERNAL_REPORT, report_id, DMARC_EXTERNAL_REPORT.read(wire), wire)
    _, accented = await real.call(QUERY, {"filter": {"text": "é"}, "limit": 5000})
    _, both = await real.call(QUERY, {"filter": {"text": "example é"}, "limit": 5000})
    _, one_byte = await real.call(QUERY, {"filter": {"text": "e"}, "limit": 5000})
    assert accented["ids"] == both["ids"] == [report_id]
    assert len(one_byte["ids"]) == real.store.count(DMARC_EXTERNAL_REPORT)  # "e" is one byte: dropped, no condition


async def test_only_the_first_comparator_sorts(real: Stub):
    # wire-notes: "first comparator only". The stub read every comparator: a second one it could not sort by
    # failed the whole query with unsupportedSort.
    _, alone = await real.call(QUERY, {"sort": [{"property": "expiresAt"}], "limit": 5000})
    for second in ({"property": "receivedAt"}, {"property": "id", "isAscending": False}, {"property": "bogus"}):
        name, result = await real.call(QUERY, {"sort": [{"property": "expiresAt"}, second], "limit": 5000})
        assert name == QUERY and result["ids"] == alone["ids"], result


async def test_received_at_sort_is_unsupported(real: Stub):
    name, error = await real.call(QUERY, {"sort": [{"property": "receivedAt", "isAscending": False}]})
    assert (name, error["type"]) == ("error", "unsupportedSort")


async def test_default_order_is_id_newest_first(real: Stub):
    _, result = await real.call(QUERY, {"limit": 5000})
    assert result["ids"] == sorted(real.store.all_ids(DMARC_EXTERNAL_REPORT), key=lambda i: -int(i[1:]))


async def test_position_past_the_end_answers_position_zero(real: Stub):
    _, result = await real.call(QUERY, {"position": 1000, "limit": 10})
    assert (result["position"], result["ids"]) == (0, [])
    _, capped = await real.call(QUERY, {"position": 1000, "limit": 10_000})
    assert (capped["position"], capped["limit"]) == (0, 5000)


# --- set ----------------------------------------------------------------------------------------------


async def test_set_has_no_states_omits_empty_maps_and_updated_is_null(real: Stub):
    ldap = await ldap_id(real)
    _, result = await real.call(DIR_SET, {"update": {ldap: {"description": "renamed"}}})
    assert result == {"accountId": "a", "updated": {ldap: None}}


async def test_if_in_state_is_ignored(real: Stub):
    ldap = await ldap_id(real)
    _, result = await real.call(DIR_SET, {"ifInState": "stale", "update": {ldap: {"description": "x"}}})
    assert result["updated"] == {ldap: None}


async def test_missing_permission_fails_the_whole_method(real: Stub):
    name, error = await real.call(DIR_SET, {"create": {"n": MINIMAL_LDAP}}, token=READONLY)
    assert (name, error["type"]) == ("error", "forbidden")
    assert error["description"].startswith("You are not authorized to")


async def test_pointer_paths_add_and_remove_set_members(real: Stub):
    ldap = await ldap_id(real)
    _, result = await real.call(DIR_SET, {"update": {ldap: {"attrEmail/mailPrimary": True}}})
    assert result["updated"] == {ldap: None}
    assert real.store.get(DIRECTORY, [ldap])[ldap]["attrEmail"] == {"mail": True, "mailPrimary": True}


async def test_false_removes_a_set_member(real: Stub):
    ldap = await ldap_id(real)
    await real.call(DIR_SET, {"update": {ldap: {"attrEmail/mail": False}}})
    assert real.store.get(DIRECTORY, [ldap])[ldap]["attrEmail"] == {}


@pytest.mark.parametrize(("key", "value"), [("attrEmail", ["mail"]), ("requireScopes", ["openid"])])
async def test_sets_and_lists_sent_as_arrays_are_invalid_patch(real: Stub, key: str, value: list[str]):
    kind = "Ldap" if key == "attrEmail" else "Oidc"
    _, result = await real.call(DIR_GET, {"ids": None, "properties": ["@type"]})
    target = next(item["id"] for item in result["list"] if item["@type"] == kind)
    _, update = await real.call(DIR_SET, {"update": {target: {key: value}}})
    refused = update["notUpdated"][target]
    assert refused["type"] == "invalidPatch" and refused["properties"] == [key]
    sql_store = {"@type": "Sql", "description": "s", "store": {
        "@type": "PostgreSql", "host": "h", "authSecret": {"@type": "None"}, "readReplicas": []}}
    _, create = await real.call(DIR_SET, {"create": {"n": sql_store}})
    assert create["notCreated"]["n"]["type"] == "invalidPatch"
    assert create["notCreated"]["n"]["properties"] == ["store/readReplicas"]


async def test_masked_secret_is_stored_as_given(real: Stub):
    ldap = await ldap_id(real)
    masked = {"@type": "Value", "secret": MASKED_SECRET}
    _, result = await real.call(DIR_SET, {"update": {ldap: {"bindSecret": masked}}})
    assert result["updated"] == {ldap: None}
    assert real.store.get(DIRECTORY, [ldap])[ldap]["bindSecret"]["secret"] == MASKED_SECRET  # no guard


async def test_member_tenant_id_null_is_accepted_from_a_global_admin(real: Stub):
    assert (await created(real, {**MINIMAL_LDAP, "memberTenantId": None}))["memberTenantId"] is None


TENANT_ADMIN = "tenant-admin-token-for-tests"


async def test_a_tenant_administrator_may_not_send_member_tenant_id_even_null() -> None:
    made, app = await make_stub("stalwart", reports=0)
    app.tokens.add(TENANT_ADMIN, Principal("tenant", all_permissions(), tenant_admin=True))
    async with made.http:
        _, refused = await made.call(DIR_SET, {"create": {"n": {**MINIMAL_LDAP, "memberTenantId": None}}},
                                     token=TENANT_ADMIN)
        assert refused["notCreated"]["n"] == {"type": "invalidPatch", "properties": ["memberTenantId"],
                                              "description": "Cannot modify memberTenantId property"}
        _, accepted = await made.call(DIR_SET, {"create": {"n": MINIMAL_LDAP}}, token=TENANT_ADMIN)
        assert "n" in accepted["created"]
    made.store.close()


async def test_duration_zero_is_invalid_patch(real: Stub):
    _, result = await real.call(DIR_SET, {"create": {"n": {**MINIMAL_LDAP, "timeout": 0}}})
    assert result["notCreated"]["n"] == {"type": "invalidPatch", "description": "Invalid duration value",
                                         "properties": ["timeout"]}


async def test_oidc_require_audience_defaults_to_stalwart(real: Stub):
    oidc = await created(real, {"@type": "Oidc", "description": "IdP", "issuerUrl": "https://idp.example.com"})
    assert oidc["requireAudience"] == "stalwart"


@pytest.mark.parametrize(
    ("value", "path"),
    [({"colour": "blue"}, "colour"), ({"description": ""}, "description"), ({"id": "d9"}, "id"),
     ({"useTls": "yes"}, "useTls")],
)
async def test_values_that_do_not_parse_are_invalid_patch_with_paths(real: Stub, value: dict[str, Any], path: str):
    _, result = await real.call(DIR_SET, {"create": {"n": {**MINIMAL_LDAP, **value}}})
    error = result["notCreated"]["n"]
    assert error["type"] == "invalidPatch" and error["properties"] == [path] and error["description"]


async def test_validation_failed_shape_bare_names_and_bound_in_required(real: Stub):
    sql = {"@type": "Sql", "description": "s", "store": {"@type": "PostgreSql", "host": "h", "port": 70000,
                                                          "authSecret": {"@type": "None"}}}
    _, result = await real.call(DIR_SET, {"create": {"n": sql, "m": {"@type": "Ldap", "description": "d",
                                                                        "bindSecret": {"@type": "None"}}}})
    port = result["notCreated"]["n"]
    assert port["type"] == "validationFailed"
    assert port["validationErrors"] == [{"type": "MaxValue", "property": "port", "required": 65535}]
    assert result["notCreated"]["m"]["validationErrors"] == [{"type": "Required", "property": "baseDn"}]


async def test_destroying_a_directory_in_use_is_object_is_linked_in_the_real_shape(real: Stub):
    ldap = await ldap_id(real)
    _, result = await real.call(DIR_SET, {"destroy": [ldap]})
    linked = [{"object": kind, "id": ident} for kind, ident in LINKED_OBJECTS]
    assert result == {"accountId": "a", "notDestroyed": {ldap: {
        "type": "objectIsLinked", "objectId": {"object": "Directory", "id": ldap}, "linkedObjects": linked}}}
    assert ldap in real.store.all_ids(DIRECTORY)


async def test_created_holds_only_the_id(real: Stub):
    # The spec profile reports the defaults it filled in (RFC 8620 §5.3): test_set.
    _, result = await real.call(DIR_SET, {"create": {"n": MINIMAL_LDAP}})
    assert list(result["created"]["n"]) == ["id"]


async def test_a_create_keeps_an_explicit_null_and_fills_the_default_only_for_an_absent_key(real: Stub):
    oidc = {"@type": "Oidc", "description": "IdP", "issuerUrl": "https://idp.example.com"}
    assert (await created(real, {**oidc, "requireAudience": None}))["requireAudience"] is None
    assert (await created(real, oidc))["requireAudience"] == "stalwart"


async def test_a_create_without_type_is_invalid_patch(real: Stub):
    _, result = await real.call(DIR_SET, {"create": {"n": {"description": "no kind"}}})
    assert result["notCreated"]["n"]["type"] == "invalidPatch"


@pytest.mark.parametrize(("value", "path", "variants"), [
    ({k: v for k, v in MINIMAL_LDAP.items() if k != "@type"}, "@type", DIRECTORY.variant_names),
    ({**MINIMAL_LDAP, "bindSecret": {}}, "bindSecret/@type", ("None", "Value", "EnvironmentVariable", "File")),
])
async def test_a_missing_type_names_the_variants_to_choose_from(real: Stub, value: dict[str, Any], path: str,
                                                                variants: Any):
    # tester102: the description was "@type: must be one of " and nothing: pydantic names the variants only
    # for a wrong tag, not for a missing one.
    _, result = await real.call(DIR_SET, {"create": {"n": value}})
    refused = result["notCreated"]["n"]
    assert (refused["type"], refused["properties"]) == ("invalidPatch", [path])
    named = refused["description"].removeprefix(f"{path}: must be one of ")
    assert sorted(name.strip("'") for name in named.split(", ")) == sorted(variants)


async def test_strings_and_set_members_are_trimmed(real: Stub):
    stored = await created(real, {**MINIMAL_LDAP, "description": "  Branch  ", "attrEmail": {" mail ": True}})
    assert (stored["description"], stored["attrEmail"]) == ("Branch", {"mail": True})
    ldap = stored["id"]
    await real.call(DIR_SET, {"update": {ldap: {"attrEmail/ alias ": True, "bindDn": " cn=x "}}})
    after = real.store.get(DIRECTORY, [ldap])[ldap]
    assert (after["attrEmail"], after["bindDn"]) == ({"mail": True, "alias": True}, "cn=x")


@pytest.mark.parametrize(("value", "path"), [({"description": "   "}, "description"),
                                             ({"attrEmail": {"mail": True, " ": True}}, "attrEmail/ ")])
async def test_blank_strings_and_set_members_are_invalid_patch(real: Stub, value: dict[str, Any], path: str):
    _, result = await real.call(DIR_SET, {"create": {"n": {**MINIMAL_LDAP, **value}}})
    assert result["notCreated"]["n"] == {"type": "invalidPatch", "description": "String cannot be empty",
                                         "properties": [path]}


async def test_false_members_of_a_whole_set_are_left_out(real: Stub):
    stored = await created(real, {**MINIMAL_LDAP, "attrEmail": {"mail": True, "old": False}})
    assert stored["attrEmail"] == {"mail": True}


async def test_removing_an_absent_set_member_is_not_an_error(real: Stub):
    ldap = await ldap_id(real)
    _, result = await real.call(DIR_SET, {"update": {ldap: {"attrEmail/never-there": None}}})
    assert result["updated"] == {ldap: None}


SQL_WITH_REPLICA = {"@type": "Sql", "description": "s", "store": {
    "@type": "PostgreSql", "host": "h", "authSecret": {"@type": "None"},
    "readReplicas": {"0": {"host": "r0", "port": 5433, "database": "mail", "authSecret": {"@type": "None"}}}}}


async def test_a_whole_non_variant_nested_object_is_merged(real: Stub):
    sql = (await created(real, SQL_WITH_REPLICA))["id"]
    _, result = await real.call(DIR_SET, {"update": {sql: {"store/readReplicas/0": {"host": "r1"}}}})
    assert result["updated"] == {sql: None}
    replica = real.store.get(DIRECTORY, [sql])[sql]["store"]["readReplicas"]["0"]
    assert (replica["host"], replica["port"], replica["database"]) == ("r1", 5433, "mail")  # kept


async def test_a_whole_variant_value_resets_its_other_fields(real: Stub):
    sql = (await created(real, SQL_WITH_REPLICA))["id"]
    same_type = {"@type": "PostgreSql", "host": "h2", "authSecret": {"@type": "None"}}
    await real.call(DIR_SET, {"update": {sql: {"store": same_type}}})
    assert real.store.get(DIRECTORY, [sql])[sql]["store"]["readReplicas"] == {}


async def test_a_path_into_a_new_list_label_creates_the_item_from_defaults(real: Stub):
    sql = (await created(real, SQL_WITH_REPLICA))["id"]
    _, result = await real.call(DIR_SET, {"update": {sql: {"store/readReplicas/1/host": "r2",
                                                           "store/readReplicas/1/authSecret": {"@type": "None"}}}})
    assert result["updated"] == {sql: None}, result
    new = real.store.get(DIRECTORY, [sql])[sql]["store"]["readReplicas"]["1"]
    assert new["host"] == "r2" and new["port"] == 5432  # the rest from the type's defaults


async def test_removing_an_absent_list_label_is_invalid_patch(real: Stub):
    sql = (await created(real, SQL_WITH_REPLICA))["id"]
    _, result = await real.call(DIR_SET, {"update": {sql: {"store/readReplicas/5": None}}})
    assert result["notUpdated"][sql]["type"] == "invalidPatch"


async def test_a_top_level_type_change_rebuilds_the_object_from_the_new_variants_defaults(real: Stub):
    # The spec profile refuses a changed @type (test_set.test_invalid_update_values_change_nothing).
    ldap = (await created(real, MINIMAL_LDAP))["id"]
    _, result = await real.call(DIR_SET, {"update": {ldap: {"@type": "Oidc", "description": "now OIDC",
                                                            "issuerUrl": "http://keycloak:8080/realms/main"}}})
    assert result["updated"] == {ldap: None}, result
    stored = real.store.get(DIRECTORY, [ldap])[ldap]
    assert stored["@type"] == "Oidc" and stored["requireAudience"] == "stalwart" and "baseDn" not in stored


async def test_the_current_type_in_an_update_is_ignored(real: Stub):
    ldap = await ldap_id(real)
    _, result = await real.call(DIR_SET, {"update": {ldap: {"@type": "Ldap", "description": "same kind"}}})
    assert result["updated"] == {ldap: None}


async def test_an_id_key_in_an_update_is_invalid_patch(real: Stub):
    # Even the object's own id; the spec profile allows that (test_set.test_sending_the_same_id_back_is_allowed).
    ldap = await ldap_id(real)
    _, result = await real.call(DIR_SET, {"update": {ldap: {"id": ldap, "description": "x"}}})
    assert result["notUpdated"][ldap]["type"] == "invalidPatch"
    assert result["notUpdated"][ldap]["properties"] == ["id"]


async def test_malformed_ids_get_no_answer_in_update_or_destroy(real: Stub):
    _, result = await real.call(DIR_SET, {"update": {"BAD-ID": {"description": "x"}}, "destroy": ["no/such"]})
    assert result == {"accountId": "a"}
    _, unknown = await real.call(DIR_SET, {"destroy": ["zz99"]})  # well formed: answered
    assert unknown["notDestroyed"]["zz99"]["type"] == "notFound"


async def test_malformed_ids_are_not_found_by_get(real: Stub):
    _, result = await real.call(DIR_GET, {"ids": ["BAD-ID"]})
    assert result["notFound"] == ["BAD-ID"] and result["list"] == []


async def test_a_nested_variant_carries_its_type_even_when_the_top_level_one_is_not_asked(real: Stub):
    _, result = await real.call(DIR_GET, {"ids": [await ldap_id(real)], "properties": ["bindSecret"]})
    assert "@type" not in result["list"][0] and result["list"][0]["bindSecret"]["@type"] == "Value"


async def test_an_oidc_issuer_over_http_and_an_ldapi_url_are_stored(real: Stub):
    oidc = await created(real, {"@type": "Oidc", "description": "IdP",
                                "issuerUrl": "http://keycloak:8080/realms/main"})
    ldapi = await created(real, {**MINIMAL_LDAP, "url": "ldapi://%2Fvar%2Frun%2Fslapd.sock"})
    assert oidc["issuerUrl"] == "http://keycloak:8080/realms/main"
    assert ldapi["url"] == "ldapi://%2Fvar%2Frun%2Fslapd.sock"


def test_serve_keeps_the_basic_login_of_the_admin_user_in_its_credentials_file(tmp_path: Path):
    env = {**os.environ, "MAILADMIN_DATA": str(tmp_path), "PYTHONPATH": str(Path.cwd())}
    process, lines = start_serve(["--profile", "stalwart", "--port", "0", "--reports", "3", "--db", ":memory:"],
                                 env)
    try:
        assert lines["admin user"] == "admin" and len(lines["admin password"]) >= 16  # random when not given
        auth = httpx.BasicAuth("admin", lines["admin password"])
        session = httpx.get(lines["url"] + "/jmap/session", auth=auth, timeout=5).json()
        assert session["apiUrl"] == f"https://{socket.gethostname()}/jmap/"  # not the address we used
        body = {"using": [CORE_CAPABILITY], "methodCalls": [[QUERY, {}, "q"]]}
        answer = httpx.post(lines["url"] + "/jmap/", json=body, auth=auth, timeout=5).json()
        assert len(answer["methodResponses"][0][1]["ids"]) == 3
    finally:
        stop_serve(process)


# --- login, account and schema (issue 27) --------------------------------------------------------------


async def test_basic_user_names_are_trimmed_and_lowercased(real: Stub):
    answer = await session(real, basic("  ADMIN ", ADMIN_PASSWORD))
    assert answer["username"] == "admin"


async def test_a_two_factor_account_gets_402_for_basic_always() -> None:
    made, app = await make_stub("stalwart", reports=0)
    app.guard.second_factor.add("admin")
    async with made.http:
        response = await made.http.get("/jmap/session", headers=basic("admin", ADMIN_PASSWORD))
        assert response.status_code == 402 and "MFA" in response.json()["detail"]
        bearer = await made.http.get("/jmap/session", headers={"Authorization": f"Bearer {ADMIN}"})
        assert bearer.status_code == 200  # an API key still works
    made.store.close()


async def test_repeated_failures_get_429_with_retry_after(real: Stub):
    statuses = [(await real.http.get("/jmap/session", headers=basic("admin", "wrong"))).status_code
                for _ in range(FAILURES_ALLOWED + 1)]
    assert statuses == [401] * FAILURES_ALLOWED + [429]
    refused = await real.http.get("/jmap/session", headers=basic("admin", ADMIN_PASSWORD))
    assert refused.status_code == 429 and 0 < int(refused.headers["retry-after"]) <= 60


@pytest.mark.parametrize("profile", ["spec", "stalwart"])
async def test_api_account_lists_the_permissions_up_front(profile: str):
    async with running_stub(profile, reports=0) as stub:
        admin = (await stub.http.get("/api/account", headers={"Authorization": f"Bearer {ADMIN}"})).json()
        readonly = (await stub.http.get("/api/account", headers={"Authorization": f"Bearer {READONLY}"})).json()
        assert set(admin) == {"permissions", "edition", "locale"}
        assert "sysDirectoryCreate" in admin["permissions"] and "sysDirectoryCreate" not in readonly["permissions"]
        assert "sysDirectoryGet" in readonly["permissions"]
        # The real server never lists report create or update: it refuses those writes as its rule.
        assert ("sysDmarcExternalReportUpdate" in admin["permissions"]) == (profile == "spec")
        assert (await stub.http.get("/api/account")).status_code == 401


async def test_api_schema_redirects_to_a_hashed_path_and_is_gzip_json(real: Stub):
    auth = {"Authorization": f"Bearer {ADMIN}"}
    redirect = await real.http.get("/api/schema", headers=auth)
    assert redirect.status_code == 302 and redirect.headers["location"].startswith("/api/schema/")
    schema = await real.http.get(redirect.headers["location"], headers=auth)
    assert schema.headers["content-encoding"] == "gzip"
    oidc = schema.json()["objects"]["Directory"]["variants"]["Oidc"]["fields"]
    assert oidc["requireAudience"]["default"] == "stalwart"


# --- query (issue 27) ------------------------------------------------------------------------------------


async def test_query_state_is_always_n(real: Stub):
    _, before = await real.call(QUERY, {"limit": 1, "position": 0})
    await real.call(DMARC_EXTERNAL_REPORT.method("set"), {"destroy": before["ids"]})
    _, after = await real.call(QUERY, {"limit": 1, "position": 0})
    assert before["queryState"] == after["queryState"] == "n"


async def test_the_page_is_cut_before_the_sort_without_a_total_or_explicit_position(real: Stub):
    stored = real.store.get(DMARC_EXTERNAL_REPORT, real.store.all_ids(DMARC_EXTERNAL_REPORT))
    by_expiry = sorted(stored, key=lambda i: (stored[i]["expiresAt"], int(i[1:])))
    newest_first = sorted(stored, key=lambda i: -int(i[1:]))
    _, cut = await real.call(QUERY, {"limit": 5})
    assert cut["ids"] == sorted(by_expiry[:5], key=lambda i: -int(i[1:])) and cut["position"] == 0
    for right in ({"limit": 5, "position": 0}, {"limit": 5, "calculateTotal": True}):
        _, page = await real.call(QUERY, right)
        assert page["ids"] == newest_first[:5], right
    _, deeper = await real.call(QUERY, {"limit": 5, "position": 5, "calculateTotal": True})
    assert deeper["ids"] == newest_first[5:10]


async def test_sorted_by_tenant_only_directories_with_a_tenant_come_back(real: Stub):
    tenanted = (await created(real, {**MINIMAL_LDAP, "memberTenantId": "t1"}))["id"]
    _, result = await real.call(DIRECTORY.method("query"), {"sort": [{"property": "memberTenantId"}],
                                                            "position": 0})
    assert result["ids"] == [tenanted]


# --- the rest of the section, each fact once (issue 27) -------------------------------------------


async def test_a_revoked_api_key_gets_403() -> None:
    made, app = await make_stub("stalwart", reports=0)
    app.tokens.revoke(ADMIN)
    async with made.http:
        response = await made.http.get("/jmap/session", headers={"Authorization": f"Bearer {ADMIN}"})
    assert response.status_code == 403
    made.store.close()


async def test_account_id_is_optional(real: Stub):
    name, result = await real.call(DIR_GET, {"ids": []})
    assert name == DIR_GET and result["accountId"] == "a"


@pytest.mark.parametrize("method", ["x:Directory/changes", "x:DmarcExternalReport/queryChanges"])
async def test_nothing_is_pushed_changes_and_query_changes_are_unknown_methods(real: Stub, method: str):
    name, error = await real.call(method, {"sinceState": "n"})
    assert (name, error["type"]) == ("error", "unknownMethod")


async def test_ids_null_returns_the_first_reports_in_expires_at_order(real: Stub):
    add_demo_reports(real.store, 520 - real.demo.reports, random.Random(5))
    _, result = await real.call(DMARC_EXTERNAL_REPORT.method("get"), {"ids": None, "properties": ["expiresAt"]})
    stored = real.store.get(DMARC_EXTERNAL_REPORT, real.store.all_ids(DMARC_EXTERNAL_REPORT))
    first = sorted(stored, key=lambda i: (stored[i]["expiresAt"], int(i[1:])))[:500]
    assert [item["id"] for item in result["list"]] == first


@pytest.mark.parametrize("condition", [{"text": "ldap"}, {"@type": "Ldap"}, {"description": "x"}])
async def test_directories_filter_only_on_member_tenant_id(real: Stub, condition: dict[str, Any]):
    name, error = await real.call(DIRECTORY.method("query"), {"filter": condition})
    assert (name, error["type"]) == ("error", "unsupportedFilter")


async def test_a_path_into_a_secret_whose_variant_is_none_is_invalid_patch(real: Stub):
    ldap = (await created(real, MINIMAL_LDAP))["id"]
    _, result = await real.call(DIR_SET, {"update": {ldap: {"bindSecret/secret": "s3cret"}}})
    assert result["notUpdated"][ldap]["type"] == "invalidPatch"
    _, whole = await real.call(DIR_SET, {"update": {ldap: {"bindSecret": {"@type": "Value", "secret": "s3cret"}}}})
    assert whole["updated"] == {ldap: None}  # the whole secret is the way


async def test_pointer_escapes_tilde_one_and_tilde_zero(real: Stub):
    ldap = await ldap_id(real)
    await real.call(DIR_SET, {"update": {ldap: {"attrEmail/a~1b": True, "attrEmail/c~0d": True}}})
    assert {"a/b", "c~d"} <= set(real.store.get(DIRECTORY, [ldap])[ldap]["attrEmail"])


async def test_the_pointer_parser_takes_a_backslash_as_an_escape(real: Stub):
    ldap = await ldap_id(real)
    await real.call(DIR_SET, {"update": {ldap: {"attrEmail/a\\/b": True}}})
    assert "a/b" in real.store.get(DIRECTORY, [ldap])[ldap]["attrEmail"]


async def test_a_lone_star_in_a_path_is_a_wildcard(real: Stub):
    replicas = {str(i): {"host": f"r{i}", "authSecret": {"@type": "None"}} for i in range(2)}
    store = {**SQL_WITH_REPLICA["store"], "readReplicas": replicas}
    sql = (await created(real, {**SQL_WITH_REPLICA, "store": store}))["id"]
    _, result = await real.call(DIR_SET, {"update": {sql: {"store/readReplicas/*/port": 7000}}})
    assert result["updated"] == {sql: None}, result
    stored = real.store.get(DIRECTORY, [sql])[sql]["store"]["readReplicas"]
    assert [item["port"] for item in stored.values()] == [7000, 7000]


async def test_an_unknown_tenant_is_invalid_foreign_key(real: Stub):
    _, result = await real.call(DIR_SET, {"create": {"n": {**MINIMAL_LDAP, "memberTenantId": "nosuchtenant"}}})
    assert result["notCreated"]["n"] == {"type": "invalidForeignKey",
                                         "objectId": {"object": "Tenant", "id": "nosuchtenant"}}


# --- received reports, free-text URLs and paging (tester102) ----------------------------------------------------

EMPTY_AS_RECEIVED = {
    "from": "", "subject": "", "to": {}, "receivedAt": "2026-11-29T10:00:00Z", "expiresAt": "2027-02-27T10:00:00Z",
    "memberTenantId": None,
    "report": {
        "version": 0.0, "orgName": "", "email": "", "extraContactInfo": None, "reportId": "",
        "dateRangeBegin": "1970-01-01T00:00:00Z", "dateRangeEnd": "1970-01-01T00:00:00Z", "errors": {},
        "policyDomain": "", "policyVersion": None, "policyAdkim": "unspecified", "policyAspf": "unspecified",
        "policyDisposition": "unspecified", "policySubdomainDisposition": "unspecified", "policyTestingMode": False,
        "policyFailureReportingOptions": {}, "generator": None, "policyNp": "unspecified",
        "policyDiscoveryMethod": "unspecified", "extensions": {"0": {"name": "", "definition": ""}},
        "records": {"0": {
            "sourceIp": None, "count": 0, "evaluatedDisposition": "unspecified", "evaluatedDkim": "unspecified",
            "evaluatedSpf": "unspecified", "policyOverrideReasons": {"0": {"overrideType": "Other", "comment": None}},
            "envelopeTo": None, "envelopeFrom": "", "headerFrom": "",
            "dkimResults": {"0": {"domain": "", "selector": "", "result": "none", "humanResult": None}},
            "spfResults": {"0": {"domain": "", "scope": "unspecified", "result": "none", "humanResult": None}},
            "extensions": {"0": {"name": "", "definition": ""}}}}}}
"""A report as the real server stores one whose every field was missing (wire-notes, the field table): each
string it may leave empty is "" and every other field its fallback."""


def received_as_stored(stub: Stub, wire: dict[str, Any]) -> str:
    """``wire`` stored as the real server stores a report that arrived by mail: read, never validated."""
    return stub.store.insert(DMARC_EXTERNAL_REPORT, DMARC_EXTERNAL_REPORT.read(wire), wire)


async def test_every_string_of_a_received_report_may_be_empty_and_the_client_reads_it():
    # Pinned before for envelopeFrom, a DKIM selector and the subject only (tester102 F4).
    made, app = await make_stub("stalwart", reports=3)
    report_id = received_as_stored(made, EMPTY_AS_RECEIVED)
    async with made.http, JmapClient(BASE, ADMIN, transport=httpx.ASGITransport(app=app)) as client:
        got = await client.dmarc_reports.get([report_id])
        assert got.invalid == {} and len(got.items) == 1  # typed, as the console's report view reads it
        wire = got.raw[0]
        report, record = wire["report"], wire["report"]["records"]["0"]
        assert (wire["from"], report["orgName"], report["email"], report["reportId"], report["policyDomain"],
                record["headerFrom"], record["dkimResults"]["0"]["domain"], record["spfResults"]["0"]["domain"]) == (
            "",) * 8
        listed, _ = await client.dmarc_reports.query_and_get(None, [{"property": "id", "isAscending": False}],
                                                             calculate_total=True)
        assert report_id in listed.ids
        out = io.StringIO()
        await export_reports(client.dmarc_reports, None, None, "json", out=out)
        row = next(r for r in json.loads(out.getvalue()) if r["id"] == report_id)
        assert (row["reporter"], row["report_id"], row["policy_domain"], row["header_from"], row["dkim_domains"],
                row["source_ip"], row["count"]) == ("", "", "", "", [""], None, 0)
    made.store.close()


async def test_the_fallbacks_of_a_received_report_read_back_and_a_zero_count_record_counts_in_no_total():
    made, app = await make_stub("stalwart", reports=0)
    report_id = received_as_stored(made, EMPTY_AS_RECEIVED)
    async with made.http, JmapClient(BASE, ADMIN, transport=httpx.ASGITransport(app=app)) as client:
        wire = (await client.dmarc_reports.get([report_id])).raw[0]
        report, record = wire["report"], wire["report"]["records"]["0"]
        assert (report["version"], report["dateRangeBegin"], report["policyVersion"], record["sourceIp"],
                record["count"]) == (0.0, "1970-01-01T00:00:00Z", None, None, 0)
        assert record["policyOverrideReasons"]["0"]["overrideType"] == "Other"
        assert report["extensions"]["0"] == record["extensions"]["0"] == {"name": "", "definition": ""}
        for total in ("totalFailedSessionsIsGreaterThanOrEqual", "totalSuccessfulSessionsIsGreaterThanOrEqual"):
            counted = await client.dmarc_reports.query({total: 1})
            assert counted.ids == [], total  # min(count, 1) of a count of 0
    made.store.close()


async def test_a_free_text_ldap_url_is_stored_and_the_client_reads_and_edits_it():
    # wire-notes: the server checks only that `url` is non-empty; the client must read, show and edit it.
    made, app = await make_stub("stalwart", reports=0)
    async with made.http, JmapClient(BASE, ADMIN, transport=httpx.ASGITransport(app=app)) as client:
        stored = await created(made, {**MINIMAL_LDAP, "url": "not a url"})
        assert stored["url"] == "not a url"
        got = await client.directories.get([stored["id"]])
        assert got.invalid == {} and got.raw[0]["url"] == "not a url"
        await client.directories.update(stored["id"], {"description": "edited"})
    assert made.store.get(DIRECTORY, [stored["id"]])[stored["id"]]["description"] == "edited"
    made.store.close()


async def test_the_page_is_cut_before_the_sort_with_a_position_past_zero_and_no_total(real: Stub):
    stored = real.store.get(DMARC_EXTERNAL_REPORT, real.store.all_ids(DMARC_EXTERNAL_REPORT))
    by_expiry = sorted(stored, key=lambda i: (stored[i]["expiresAt"], int(i[1:])))
    _, cut = await real.call(QUERY, {"limit": 5, "position": 1})
    assert cut["ids"] == sorted(by_expiry[1:6], key=lambda i: -int(i[1:])) and cut["position"] == 0
