"""Discovery, the session resource and authentication at the HTTP level."""

from __future__ import annotations

import pytest

from jmapclient.session import CORE_CAPABILITY
from server_stub.app import default_public_url
from tests.support.stub import ADMIN, READONLY, Stub


async def test_well_known_redirects_to_the_session(stub: Stub):
    response = await stub.http.get("/.well-known/jmap")
    assert response.status_code in (301, 307, 308)
    assert response.headers["location"] == "/jmap/session"


async def test_session_has_core_limits_accounts_and_urls(stub: Stub):
    response = await stub.http.get("/jmap/session", headers={"Authorization": f"Bearer {ADMIN}"})
    assert response.status_code == 200
    session = response.json()
    core = session["capabilities"][CORE_CAPABILITY]
    assert core["maxSizeRequest"] == 10_000_000
    assert core["maxCallsInRequest"] == 16
    assert core["maxObjectsInGet"] == 500
    assert core["maxObjectsInSet"] == 500
    for key in ("maxSizeUpload", "maxConcurrentUpload", "maxConcurrentRequests", "collationAlgorithms"):
        assert key in core
    (account_id, account), = session["accounts"].items()
    assert stub.profile.capability in account["accountCapabilities"]
    assert session["username"] == "admin"
    if stub.profile.name == "spec":
        assert session["primaryAccounts"][CORE_CAPABILITY] == account_id
        assert session["apiUrl"] == "http://stub.test" + stub.profile.api_path
    else:  # the real server: no core entry, and the apiUrl from its configuration (wire-notes.md)
        assert CORE_CAPABILITY not in session["primaryAccounts"]
        assert session["apiUrl"] == default_public_url() + stub.profile.api_path
    for key in ("downloadUrl", "uploadUrl", "eventSourceUrl", "state"):
        assert isinstance(session[key], str) and session[key]


async def test_management_capability_placement_differs_by_profile(stub: Stub):
    session = (await stub.http.get("/jmap/session", headers={"Authorization": f"Bearer {ADMIN}"})).json()
    top_level = stub.profile.capability in session["capabilities"]
    if stub.profile.name == "spec":
        assert top_level and stub.profile.capability == "urn:service:jmap"
        assert stub.profile.api_path == "/api"
    else:
        # wire-notes.md: the real server lists its capability only under accountCapabilities.
        assert not top_level and stub.profile.capability == "urn:stalwart:jmap"
        assert stub.profile.api_path == "/jmap/"


async def test_read_only_session_marks_the_account_read_only(spec_stub: Stub):
    session = (await spec_stub.http.get("/jmap/session", headers={"Authorization": f"Bearer {READONLY}"})).json()
    assert session["username"] == "readonly"
    assert all(account["isReadOnly"] for account in session["accounts"].values())


@pytest.mark.parametrize(
    "headers",
    [{}, {"Authorization": "Bearer wrong"}, {"Authorization": f"Basic {ADMIN}"}, {"Authorization": "Bearer "}],
)
@pytest.mark.parametrize("path", ["/jmap/session", "API"])
async def test_missing_or_invalid_token_gets_401_with_bearer_challenge(spec_stub: Stub, headers: dict, path: str):
    if path == "API":
        response = await spec_stub.http.post("/api", json={"using": [], "methodCalls": []}, headers=headers)
    else:
        response = await spec_stub.http.get(path, headers=headers)
    assert response.status_code == 401
    assert response.headers["www-authenticate"].startswith("Bearer")


async def test_unknown_path_and_wrong_method(spec_stub: Stub):
    auth = {"Authorization": f"Bearer {ADMIN}"}
    assert (await spec_stub.http.get("/nothing", headers=auth)).status_code == 404
    wrong = await spec_stub.http.get("/api", headers=auth)
    assert wrong.status_code == 405 and wrong.headers["allow"] == "POST"
    # The stalwart API path is not served by the spec profile, and the other way round.
    assert (await spec_stub.http.post("/jmap/", json={}, headers=auth)).status_code == 404
