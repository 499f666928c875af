"""JmapClient: the only place that speaks JMAP over HTTP.

It discovers the session, chooses the capability, sends batches of method calls with
Bearer or Basic authentication and turns every failure into a typed error from
:mod:`jmapclient.errors`. Every request goes to the origin the person gave: the session's
``apiUrl`` lends only its path (see :func:`on_origin`).
"""

from __future__ import annotations

import asyncio
import json
from functools import partial
from typing import Any
from urllib.parse import urljoin, urlsplit, urlunsplit

import httpx

from jmapclient.auth import BearerToken, Credentials, as_credentials
from jmapclient.errors import (
    AccessDenied,
    AuthenticationFailed,
    ProtocolError,
    RequestError,
    RequestTimeout,
    ServerError,
    ServerUnreachable,
)
from jmapclient.models.objects import DIRECTORY, DMARC_EXTERNAL_REPORT, ObjectType
from jmapclient.objects import ObjectApi
from jmapclient.request import Batch, Responses
from jmapclient.session import Session

WELL_KNOWN = "/.well-known/jmap"
MAX_REDIRECTS = 5
PROBLEM_PREFIX = "urn:ietf:params:jmap:error:"
DEFAULT_TIMEOUT = 30.0


def _same_origin(a: str, b: str) -> bool:
    first, second = urlsplit(a), urlsplit(b)
    return (first.scheme, first.hostname, first.port) == (second.scheme, second.hostname, second.port)


def on_origin(origin_of: str, url: str) -> str:
    """``url``'s path and query on the scheme, host and port of ``origin_of``.

    The real server's ``apiUrl`` is absolute and comes from its configuration, whatever
    URL reached it (wire-notes.md): behind a tunnel, a non-default port or a proxy that
    origin is unreachable or another machine. Like the server's own clients, keep only
    its path; credentials then never go to an origin the person did not give, and https
    is never downgraded to http.
    """
    origin, target = urlsplit(origin_of), urlsplit(url)
    return urlunsplit((origin.scheme, origin.netloc, target.path or "/", target.query, ""))


class JmapClient:
    """An async JMAP client for one server and one login (a bearer token, or :class:`BasicLogin`).

    ``transport`` lets tests plug in ``httpx.MockTransport`` or an ASGI transport.
    """

    def __init__(
        self,
        base_url: str,
        token: str | Credentials,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        if not base_url.strip():
            raise ValueError("a server URL is required")
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout
        self._credentials = as_credentials(token)
        self._http = httpx.AsyncClient(
            transport=transport,
            timeout=httpx.Timeout(timeout),
            headers={"Authorization": self._credentials.header, "Accept": "application/json"},
            follow_redirects=False,
        )
        self._session: Session | None = None

    def __repr__(self) -> str:  # the token never appears in a repr or a log line
        return f"JmapClient({self.base_url!r})"

    async def __aenter__(self) -> JmapClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._http.aclose()

    # --- Objects -------------------------------------------------------------------------

    def objects(self, object_type: ObjectType) -> ObjectApi:
        return ObjectApi(self, object_type)

    @property
    def directories(self) -> ObjectApi:
        return ObjectApi(self, DIRECTORY)

    @property
    def dmarc_reports(self) -> ObjectApi:
        return ObjectApi(self, DMARC_EXTERNAL_REPORT)

    # --- Session ---------------------------------------------------------------------------

    async def session(self) -> Session:
        """The session, discovered on first use."""
        if self._session is None:
            self._session = await self._discover()
        return self._session

    def forget_session(self) -> None:
        """Rediscover on the next call (after a reconnect or a new token)."""
        self._session = None

    async def _discover(self) -> Session:
        url = self.base_url + WELL_KNOWN
        for _ in range(MAX_REDIRECTS + 1):
            response = await self._send("GET", url)
            if response.is_redirect:
                target = urljoin(url, response.headers.get("Location", ""))
                if not _same_origin(url, target):
                    # Following would hand the bearer token to another origin.
                    raise ProtocolError(f"the session redirects to another origin ({target}); refusing")
                url = target
                continue
            if response.status_code in (404, 405, 501):
                return Session.fallback(self.base_url)
            self._raise_for_status(url, response)
            try:
                return Session.from_wire(response.json(), resolve_url=partial(self._api_url, url))
            except (ValueError, json.JSONDecodeError) as error:
                raise ProtocolError(f"the session resource at {url} is not valid: {error}") from None
        raise ProtocolError(f"too many redirects from {self.base_url + WELL_KNOWN}")

    def _api_url(self, session_url: str, api_url: str) -> str:
        return on_origin(self.base_url, urljoin(session_url, api_url))

    # --- Requests ------------------------------------------------------------------------------

    async def send(self, batch: Batch) -> Responses:
        """Send the batch as ONE request; method errors surface when a response is read."""
        session = await self.session()
        if len(batch) > session.limits.max_calls_in_request:
            raise RequestError(
                "limit", 0, f"{len(batch)} calls in one request", limit="maxCallsInRequest"
            )
        body: dict[str, Any] = {
            "using": session.using,
            "methodCalls": [self._with_account(call.to_wire(), session) for call in batch.calls],
        }
        payload = json.dumps(body, separators=(",", ":")).encode()
        if len(payload) > session.limits.max_size_request:
            raise RequestError("limit", 0, f"{len(payload)} bytes", limit="maxSizeRequest")
        response = await self._send(
            "POST", session.api_url, content=payload, headers={"Content-Type": "application/json"}
        )
        self._raise_for_status(session.api_url, response)
        try:
            data = response.json()
        except (json.JSONDecodeError, UnicodeDecodeError):
            if "html" in response.headers.get("Content-Type", ""):
                # Typically a proxy's or web UI's page: the URL is not the JMAP endpoint.
                raise ProtocolError(
                    f"the server at {session.api_url} answered with a web page, not JMAP; "
                    "check that the URL is the mail server's"
                ) from None
            raise ProtocolError(f"the server at {session.api_url} answered with malformed JSON") from None
        return Responses.from_wire(data)

    @staticmethod
    def _with_account(call: list[Any], session: Session) -> list[Any]:
        if session.account_id and "accountId" not in call[1]:
            call[1] = {"accountId": session.account_id, **call[1]}
        return call

    async def _send(self, method: str, url: str, **kwargs: Any) -> httpx.Response:
        try:
            # httpx times each read on its own, so a server trickling a byte at a time would never
            # time out; the timeout also bounds the whole exchange.
            async with asyncio.timeout(self.timeout):
                return await self._http.request(method, url, **kwargs)
        except (httpx.TimeoutException, TimeoutError):
            raise RequestTimeout(url, self.timeout) from None
        except (httpx.ConnectError, httpx.NetworkError, httpx.RemoteProtocolError) as error:
            raise ServerUnreachable(url, _reason(error)) from None
        except httpx.HTTPError as error:
            raise ServerUnreachable(url, _reason(error)) from None

    def _raise_for_status(self, url: str, response: httpx.Response) -> None:
        status = response.status_code
        if status < 300:
            return
        problem = _problem(response)
        if status == 401:
            raise AuthenticationFailed(url, self._credentials.refused)
        if problem and str(problem.get("type", "")).startswith(PROBLEM_PREFIX):
            raise RequestError(
                str(problem["type"]).removeprefix(PROBLEM_PREFIX),
                status,
                str(problem.get("detail") or ""),
                limit=problem.get("limit"),
            )
        detail = str(problem.get("detail") or problem.get("title") or "") if problem else ""
        if status == 403:
            raise AccessDenied(url, detail, revoked_key=isinstance(self._credentials, BearerToken))
        if status >= 500:
            raise ServerError(url, status, detail)
        raise ProtocolError(f"the server at {url} answered HTTP {status}{': ' + detail if detail else ''}")


def _problem(response: httpx.Response) -> dict[str, Any]:
    try:
        data = response.json()
    except (json.JSONDecodeError, UnicodeDecodeError):
        return {}
    return data if isinstance(data, dict) else {}


def _reason(error: Exception) -> str:
    text = str(error).strip()
    return text or type(error).__name__
