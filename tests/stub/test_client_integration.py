"""jmapclient against the stub in both profiles, over a real loopback socket.

The stalwart profile reproduces the real server's differences, so passing here means
the client copes with the real server's capability, API path, filters and errors.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest

from jmapclient import JmapClient, MethodError, SetFailed
from jmapclient.errors import AuthenticationFailed, RequestError
from jmapclient.models import LdapDirectory, SecretNone
from jmapclient.models.objects import DMARC_EXTERNAL_REPORT
from jmapclient.paging import QueryPager
from jmapclient.patch import compute_patch
from server_stub.runner import StubServer


@pytest.fixture(params=["spec", "stalwart"])
def profiled_server(request: pytest.FixtureRequest) -> Iterator[StubServer]:
    with StubServer(profile=request.param, reports=60) as server:
        yield server


@pytest.fixture
async def client(profiled_server: StubServer) -> AsyncIterator[JmapClient]:
    async with JmapClient(profiled_server.base_url, profiled_server.admin_token, timeout=10) as connected:
        yield connected


async def test_discovery_picks_the_advertised_capability_and_api_url(profiled_server: StubServer, client: JmapClient):
    session = await client.session()
    assert session.discovered
    if profiled_server.profile == "spec":
        assert (session.capability, session.api_url) == ("urn:service:jmap", profiled_server.base_url + "/api")
    else:
        assert (session.capability, session.api_url) == ("urn:stalwart:jmap", profiled_server.base_url + "/jmap/")
    assert session.limits.max_objects_in_get == 500 and session.account_id


async def test_query_and_get_with_domain_falls_back_to_text(profiled_server: StubServer, client: JmapClient):
    # The object API retries `domain` as the word search where it is refused; the pager, which every
    # view and the CLI use, keeps only that domain's reports and then claims no total.
    pager = QueryPager(client.dmarc_reports, {"domain": "example.com"},
                       [{"property": "receivedAt", "isAscending": False}], page_size=10)
    page = await pager.page_at(0)
    stored = profiled_server.store.get(DMARC_EXTERNAL_REPORT, profiled_server.store.all_ids(DMARC_EXTERNAL_REPORT))
    expected = {i for i, w in stored.items() if w["report"]["policyDomain"] == "example.com"}
    assert page.items and {item["id"] for item in page.items} <= expected
    assert all(item["report"]["policyDomain"] == "example.com" for item in page.items)
    if profiled_server.profile == "stalwart":
        assert page.narrowed and page.total is None and "searched the words" in pager.filter_note
        assert "arrival order" in pager.sort_note
    else:
        assert page.total == len(expected) and not page.narrowed
    received = [item["receivedAt"] for item in page.items]
    assert received == sorted(received, reverse=True)


async def test_directory_lifecycle_and_per_field_errors(client: JmapClient):
    new_id = await client.directories.create(
        LdapDirectory(description="Lab LDAP", base_dn="dc=lab", bind_secret=SecretNone())
    )
    before = (await client.directories.get([new_id])).raw[0]
    after = {**before, "description": "Lab LDAP (renamed)", "attrEmail": {"mail": True, "mailPrimary": True}}
    await client.directories.update(new_id, compute_patch(before, after))
    assert (await client.directories.get([new_id])).items[0].attr_email == ["mail", "mailPrimary"]
    with pytest.raises(SetFailed) as failed:
        await client.directories.update(new_id, {"poolMaxConnections": 100_000, "baseDn": None})
    fields = failed.value.failures[new_id].field_messages()
    assert set(fields) == {"poolMaxConnections", "baseDn"}
    result = await client.directories.destroy([new_id])
    assert result.destroyed == [new_id]
    assert (await client.directories.get([new_id])).not_found == [new_id]


async def test_report_writes_follow_the_profile(profiled_server: StubServer, client: JmapClient):
    page, _fetched = await client.dmarc_reports.query_and_get(limit=1)
    report_id = page.ids[0]
    if profiled_server.profile == "spec":
        await client.dmarc_reports.update(report_id, {"subject": "edited"})
        assert (await client.dmarc_reports.get([report_id])).items[0].subject == "edited"
    else:
        with pytest.raises(SetFailed) as refused:
            await client.dmarc_reports.update(report_id, {"subject": "edited"})
        error = refused.value.failures[report_id]
        assert error.type == "forbidden" and "cannot be updated" in error.message


async def test_or_filter_is_refused_only_by_the_real_server(profiled_server: StubServer, client: JmapClient):
    either = {"operator": "OR", "conditions": [{"text": "example.org"}, {"text": "example.dev"}]}
    if profiled_server.profile == "spec":
        assert (await client.dmarc_reports.query(either)).ids
    else:
        with pytest.raises(MethodError) as refused:
            await client.dmarc_reports.query(either)
        assert refused.value.type == "unsupportedFilter"


async def test_read_only_token_is_forbidden_to_write(profiled_server: StubServer):
    async with JmapClient(profiled_server.base_url, profiled_server.readonly_token, timeout=10) as reader:
        assert (await reader.directories.get(None)).items
        with pytest.raises(MethodError) as refused:
            await reader.directories.destroy(["d1"])
        # Known up front from /api/account (issue 27): refused before anything is sent.
        assert refused.value.forbidden and "sysDirectoryDestroy" in (refused.value.description or "")
        assert "nothing was sent" in (refused.value.description or "")


async def test_wrong_token_and_unknown_capability(profiled_server: StubServer):
    async with JmapClient(profiled_server.base_url, "not-the-token", timeout=10) as stranger:
        with pytest.raises(AuthenticationFailed):
            await stranger.session()
    async with JmapClient(profiled_server.base_url, profiled_server.admin_token, timeout=10) as client:
        session = await client.session()
        other = "urn:service:jmap" if profiled_server.profile == "stalwart" else "urn:stalwart:jmap"
        object.__setattr__(session, "capability", other)
        with pytest.raises(RequestError) as rejected:
            await client.directories.get(None)
        # The real server answers notRequest, not unknownCapability (wire-notes.md).
        expected = "notRequest" if profiled_server.profile == "stalwart" else "unknownCapability"
        assert rejected.value.type == expected and rejected.value.status == 400
