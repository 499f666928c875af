"""The loopback runner and the shared fixtures work end to end."""

from __future__ import annotations

from jmapclient import JmapClient
from server_stub.runner import StubServer


async def test_stub_client_lists_demo_directories_over_a_real_socket(stub_server: StubServer, stub_client: JmapClient):
    assert stub_server.base_url.startswith("http://127.0.0.1:")
    result = await stub_client.directories.get(None)
    assert sorted(type(item).__name__ for item in result.items) == ["LdapDirectory", "OidcDirectory", "SqlDirectory"]
    page, fetched = await stub_client.dmarc_reports.query_and_get(limit=5, calculate_total=True)
    assert page.total == 40 and len(fetched.items) == 5
