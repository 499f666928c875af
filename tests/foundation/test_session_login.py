"""The client on the real server's session and login (wire-notes.md, "Session, endpoint and login").

The real server's apiUrl is absolute and comes from its configuration; the client keeps its
path and posts to the origin the person typed. It logs in with Bearer or Basic, and words a
401, a revoked key (403) and bootstrap mode each in their own way.
"""

import base64
from typing import Any

import httpx
import pytest

from jmapclient import AccessDenied, AuthenticationFailed, Batch, JmapClient, MethodError
from jmapclient.auth import BasicLogin, BearerToken
from jmapclient.session import STALWART_CAPABILITY
from tests.support.fake_jmap import FakeServer, echo_responses, session_body

TOKEN = "API_secret-key"


def stalwart_session(api_url: str) -> dict[str, Any]:
    return session_body(STALWART_CAPABILITY, in_account_only=True, api_url=api_url)


@pytest.mark.parametrize(
    ("typed", "api_url", "expected"),
    [
        # an SSH tunnel: the server names its public host, the person reaches it on localhost
        ("http://127.0.0.1:8080", "https://mail.example.org/jmap/", "http://127.0.0.1:8080/jmap/"),
        # another host on the same scheme: the credentials must not go there
        ("https://mail.example", "https://evil.example:8443/jmap/", "https://mail.example/jmap/"),
        # a downgrade offered by the session is not taken
        ("https://mail.example", "http://mail.example/jmap/", "https://mail.example/jmap/"),
        # the person's non-default port is kept; the query string of apiUrl travels with its path
        ("https://mail.example:8443/", "https://mail.example/jmap/?x=1", "https://mail.example:8443/jmap/?x=1"),
    ],
)
async def test_calls_go_to_the_path_of_api_url_on_the_origin_the_person_gave(
    typed: str, api_url: str, expected: str
) -> None:
    server = FakeServer(session=stalwart_session(api_url))
    async with JmapClient(typed, TOKEN, transport=httpx.MockTransport(server.handler)) as client:
        session = await client.session()
        await client.send(Batch())
    assert session.api_url == expected
    posted = [r for r in server.requests if r.method == "POST"]
    assert [str(r.url) for r in posted] == [expected]
    origin = httpx.URL(typed)
    # every request, discovery included, carried the credentials only to the typed origin
    assert {(r.url.scheme, r.url.host, r.url.port) for r in server.requests} == {
        (origin.scheme, origin.host, origin.port)
    }


async def test_basic_login_sends_the_user_and_password_and_hides_them() -> None:
    server = FakeServer(session=stalwart_session("https://elsewhere.example/jmap/"))
    login = BasicLogin("admin", "pä:ss")
    async with JmapClient("http://127.0.0.1:9", login, transport=httpx.MockTransport(server.handler)) as client:
        await client.send(Batch())
    expected = "Basic " + base64.b64encode("admin:pä:ss".encode()).decode()
    assert {r.headers["Authorization"] for r in server.requests} == {expected}
    assert "pä:ss" not in repr(login) and "admin" in repr(login)
    assert TOKEN not in repr(BearerToken(TOKEN))


@pytest.mark.parametrize(
    ("login", "words"),
    [(BearerToken(TOKEN), "refused the token"), (BasicLogin("admin", "x"), "user name or password of 'admin'")],
)
async def test_a_401_names_the_kind_of_login_that_failed(login: Any, words: str) -> None:
    server = FakeServer(session=httpx.Response(401))
    async with JmapClient("https://mail.example", login, transport=httpx.MockTransport(server.handler)) as client:
        with pytest.raises(AuthenticationFailed, match=words):
            await client.session()


async def test_a_403_on_a_bearer_key_says_it_was_revoked_and_where_to_make_another() -> None:
    server = FakeServer(session=httpx.Response(403))
    async with server.client() as client:
        with pytest.raises(AccessDenied) as caught:
            await client.session()
    assert caught.value.revoked_key and "revoked" in str(caught.value) and "web interface" in str(caught.value)


async def test_a_403_on_basic_login_does_not_talk_of_a_key() -> None:
    server = FakeServer(session=httpx.Response(403))
    login = BasicLogin("admin", "x")
    async with JmapClient("https://mail.example", login, transport=httpx.MockTransport(server.handler)) as client:
        with pytest.raises(AccessDenied) as caught:
            await client.session()
    assert not caught.value.revoked_key and "key" not in str(caught.value)


async def test_bootstrap_mode_is_named_as_such_not_as_a_missing_permission() -> None:
    said = "The server is in bootstrap mode. Complete the setup first."
    server = FakeServer(
        api=echo_responses(lambda n, a, c: [["error", {"type": "forbidden", "description": said}, c]]),
        session=stalwart_session("/jmap/"),
    )
    async with server.client() as client:
        with pytest.raises(MethodError) as caught:
            await client.directories.query()
    assert caught.value.bootstrap
    assert "bootstrap mode" in str(caught.value) and "not allowed" not in str(caught.value)


async def test_an_ordinary_forbidden_is_still_a_permission() -> None:
    said = "You are not authorized to query Directory"
    server = FakeServer(api=echo_responses(lambda n, a, c: [["error", {"type": "forbidden", "description": said}, c]]))
    async with server.client() as client:
        with pytest.raises(MethodError) as caught:
            await client.directories.query()
    assert not caught.value.bootstrap and "not allowed" in str(caught.value)
