"""JmapClient: the only place that speaks JMAP over HTTP.

It discovers the session, chooses the capability, sends batches of method calls with
Bearer or Basic authentication and turns every failure into a typed error from
:mod:`jmapclient.errors`. Every request goes to the origin the person gave: the session's
``apiUrl`` lends only its path (see :func:`on_origin`).
"""

from __future__ import annotations

import math
import os
import ssl
import zlib
from collections.abc import Callable, Mapping
from contextlib import AbstractAsyncContextManager, nullcontext
from functools import partial
from typing import Any
from urllib.parse import urljoin, urlsplit, urlunsplit

import httpx

from jmapclient.auth import BearerToken, Credentials, as_credentials
from jmapclient.display import safe_text, wire_json
from jmapclient.errors import (
    AccessDenied,
    AuthenticationFailed,
    LocalValidationError,
    ProtocolError,
    RequestError,
    RequestTimeout,
    SecondFactorRequired,
    ServerError,
    ServerUnreachable,
    TooManyAttempts,
)
from jmapclient.failures import not_connected
from jmapclient.keepalive import CONNECTION_LIMITS
from jmapclient.models.objects import DIRECTORY, DMARC_EXTERNAL_REPORT, ObjectType
from jmapclient.objects import ObjectApi
from jmapclient.request import Batch, Responses
from jmapclient.rights import ACCOUNT_PATH, permissions_from
from jmapclient.session import Session
from jmapclient.transport_security import is_loopback_host

WELL_KNOWN = "/.well-known/jmap"
MAX_REDIRECTS = 5
PROBLEM_PREFIX = "urn:ietf:params:jmap:error:"
DEFAULT_TIMEOUT = 30.0
DEFAULT_MAX_RESPONSE_MB = 50
MAX_RESPONSE_ENV = "MAILADMIN_MAX_RESPONSE_MB"
"""Raises the cap on one answer's decoded size, in megabytes, for a server that sends more."""
_HOP_HEADERS = frozenset({"content-encoding", "content-length", "transfer-encoding"})


LOGIN_REFUSED = {
    402: "refused the password: this account uses two-factor authentication; use an app password or an API key",
    429: "refused the login after too many failed attempts; wait before trying again",
}
"""What the real server answers a login it refuses besides 401 (wire-notes.md): a login refusal,
not a protocol failure, so that a script's exit code says "fix the credentials"."""


def max_response_bytes() -> int:
    """The cap on one answer's size after decompression: the default, or the person's own."""
    raw = os.environ.get(MAX_RESPONSE_ENV, "").strip()
    megabytes = int(raw) if raw.isdigit() and int(raw) > 0 else DEFAULT_MAX_RESPONSE_MB
    return megabytes * 1_000_000


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


def _verify_for(base_url: str, verify: ssl.SSLContext | bool) -> ssl.SSLContext | bool:
    """What httpx verifies with: for an ``http://`` server, a context that trusts no CA at all.

    httpx builds its TLS context when the client is made, and by default loads the whole CA
    store (about 50 ms, a fifth of a CLI command's start) even when no TLS is ever spoken.
    Every request goes to ``base_url``'s origin (:func:`on_origin`, no redirects followed), so
    an http client never needs one; should a TLS handshake happen anyway, an empty store fails
    it closed rather than trusting anything.
    """
    if verify is True and urlsplit(base_url).scheme.lower() == "http":
        return ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)  # verifies hostnames and certificates; trusts none
    return verify


PROXY_VARIABLES = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy")


def uses_proxies(base_url: str) -> bool:
    """Whether requests to ``base_url`` may go through the environment's proxies (HTTP_PROXY...).

    Not for a loopback server (an SSH tunnel, ``mailadmin demo``): its ``http://`` is safe only
    because it never leaves the machine, and a proxy would carry the token off it in clear text.
    """
    return not is_loopback_host(urlsplit(base_url).hostname)


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
        max_response: int | None = None,
        verify: ssl.SSLContext | bool = True,
        blocking: bool = False,
        on_request: Callable[[], None] | None = None,
    ) -> None:
        if not base_url.strip():
            raise ValueError("a server URL is required")
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout
        self.max_response = max_response or max_response_bytes()
        """Bytes one answer may hold after decompression; more is a ProtocolError (gzip bombs)."""
        self.blocking = blocking and transport is None
        """Requests go over blocking sockets, for :func:`jmapclient.blocking.run` (a one-shot command)."""
        self.on_request = on_request
        """Called before each request is sent (the command line ends its start-up there)."""
        self._credentials = as_credentials(token)
        # See jmapclient.transport_security: a private CA, or --insecure.
        verify = _verify_for(self.base_url, verify)
        proxied = uses_proxies(self.base_url)
        self._proxy = proxied and any(os.environ.get(name) for name in PROXY_VARIABLES)
        """Requests may go through a proxy the environment names."""
        if self.blocking:
            from jmapclient.blocking import BlockingTransport

            transport = BlockingTransport(verify=verify, timeout=timeout, trust_env=proxied)
        self._http = httpx.AsyncClient(
            transport=transport,
            trust_env=proxied,
            verify=verify,
            timeout=httpx.Timeout(timeout),
            limits=CONNECTION_LIMITS,
            # Only encodings the client decodes itself, under the size cap (see _read_capped).
            headers={"Authorization": self._credentials.header, "Accept": "application/json",
                     "Accept-Encoding": "gzip, deflate"},
            follow_redirects=False,
        )
        self._session: Session | None = None
        self.refused_sorts: set[tuple[str, str]] = set()
        """(object type, property) sorts this server refused, learned on the first refusal so that every later
        query (a new pager, another sort, another view) asks for the declared fallback directly. Kept on the
        client, not the session: the console's ``r`` rediscovers the session, and the real server never sorts
        reports by receivedAt again (it was asked again after each ``r``, tester102)."""
        self._permissions: tuple[frozenset[str] | None] | None = None
        """The login's permissions once asked (``(None,)``: the server does not tell them)."""

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

    @property
    def secrets(self) -> tuple[str, ...]:
        """The login's secrets, for whoever must mask them (a crash report); never for display."""
        return self._credentials.secrets

    # --- Session ---------------------------------------------------------------------------

    async def session(self) -> Session:
        """The session, discovered on first use."""
        if self._session is None:
            self._session = await self._discover()
        return self._session

    async def permissions(self) -> frozenset[str] | None:
        """The login's permissions from ``GET /api/account`` on the origin given; None where the
        server does not offer it (then rights are learned from ``forbidden``). Asked once."""
        if self._permissions is None:
            url = on_origin(self.base_url, ACCOUNT_PATH)
            response = await self._send("GET", url)
            if response.status_code in (401, 402, 403, 429):
                self._raise_for_status(url, response)
            answer = _problem(response) if response.status_code == 200 else {}
            self._permissions = (permissions_from(answer),)
        return self._permissions[0]

    def forget_session(self) -> None:
        """Rediscover on the next call (after a reconnect or a new token)."""
        self._session = None
        self._permissions = None

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
            data = _json_body(url, response, "the session resource")
            if not isinstance(data, Mapping):
                raise ProtocolError(f"the session resource at {url} is not a JSON object")
            try:
                return Session.from_wire(data, resolve_url=partial(self._api_url, url))
            except (ValueError, TypeError) as error:
                raise ProtocolError(f"the session resource at {url} is not valid: {safe_text(error)}") from None
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
        try:
            payload = wire_json(body)
        except ValueError:
            # NaN and Infinity are not JSON; the server would refuse the whole request.
            reason = "a number in it is NaN or infinite, which JSON cannot carry"
            raise LocalValidationError({"request": reason}) from None
        if len(payload) > session.limits.max_size_request:
            raise RequestError("limit", 0, f"{len(payload)} bytes", limit="maxSizeRequest")
        response = await self._send(
            "POST", session.api_url, content=payload, headers={"Content-Type": "application/json"},
            reads_only=batch.reads_only,
        )
        self._raise_for_status(session.api_url, response)
        return Responses.from_wire(_json_body(session.api_url, response))

    @staticmethod
    def _with_account(call: list[Any], session: Session) -> list[Any]:
        if session.account_id and "accountId" not in call[1]:
            call[1] = {"accountId": session.account_id, **call[1]}
        return call

    async def _send(self, method: str, url: str, *, reads_only: bool = True, **kwargs: Any) -> httpx.Response:
        """The answer to one request. One that only reads is sent once more when its connection
        drops before the answer: sent twice it changes nothing, and the drop is most often a kept-alive
        connection the server closed as the request left (jmapclient.keepalive). A write is never
        sent again: it may have been carried out (the error's ``sent`` says so)."""
        try:
            return await self._exchange(method, url, **kwargs)
        except ServerUnreachable as error:
            if not (reads_only and error.dropped):
                raise
        return await self._exchange(method, url, **kwargs)

    async def _exchange(self, method: str, url: str, **kwargs: Any) -> httpx.Response:
        if self.on_request is not None:
            self.on_request()
        progress = _Progress()
        if not self.blocking:  # the blocking transport's httpcore is synchronous: no async trace there
            kwargs["extensions"] = {"trace": progress.trace}
        try:
            # httpx times each read on its own, so a server trickling a byte at a time would never
            # time out; the timeout also bounds the whole exchange.
            async with self._bounded(), self._http.stream(method, url, **kwargs) as response:
                return await _read_capped(url, response, self.max_response)
        except (httpx.ConnectTimeout, httpx.PoolTimeout):
            raise RequestTimeout(url, self.timeout, sent=False) from None
        except httpx.TimeoutException:
            raise RequestTimeout(url, self.timeout) from None
        except TimeoutError:  # the whole exchange's bound: it may have ended a connect or a wait for the answer
            raise RequestTimeout(url, self.timeout, sent=progress.sent) from None
        except httpx.DecodingError:
            raise ProtocolError(f"the server at {url} sent a body that does not decompress") from None
        except httpx.ConnectError as error:
            # Through a proxy, the address that refused may be the proxy's: said as before.
            plain = None if self._proxy else not_connected(url, error)
            raise plain or ServerUnreachable(url, _reason(error)) from None
        except (httpx.NetworkError, httpx.RemoteProtocolError) as error:
            # Dropped once connected: the request may have gone out, and a write been done.
            raise ServerUnreachable(url, _reason(error), sent=True, dropped=True) from None
        except httpx.HTTPError as error:
            raise ServerUnreachable(url, _reason(error)) from None

    def _bounded(self) -> AbstractAsyncContextManager[object]:
        """The bound on one whole exchange: the loop's timeout, or the blocking transport's own deadline."""
        if self.blocking:
            return nullcontext()
        import asyncio  # loaded already wherever a loop runs; a blocking command never needs it

        return asyncio.timeout(self.timeout)

    def _raise_for_status(self, url: str, response: httpx.Response) -> None:
        status = response.status_code
        if status < 300:
            return
        problem = _problem(response)
        if status == 401:
            raise AuthenticationFailed(url, self._credentials.refused)
        if status == 402:  # the real server: two-factor account, Basic never works (wire-notes.md)
            raise SecondFactorRequired(url)
        if status == 429:
            raise TooManyAttempts(url, response.headers.get("Retry-After", ""))
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
        if status in LOGIN_REFUSED:
            raise AuthenticationFailed(url, f"{LOGIN_REFUSED[status]} (HTTP {status}){': ' + detail if detail else ''}")
        raise ProtocolError(f"the server at {url} answered HTTP {status}{': ' + detail if detail else ''}")


class _Progress:
    """How far one request got, told by httpcore's ``trace`` extension: whether it began to go out.

    A write whose answer is lost may have been done; one that never left was not. Only a timeout
    of the whole exchange needs this (httpx's own errors say where they happened).
    """

    def __init__(self) -> None:
        self.traced = False
        self.sending = False

    async def trace(self, event: str, info: Mapping[str, Any]) -> None:
        self.traced = True
        if "send_request" in event:  # http11.send_request_headers.started, http2.send_request_headers...
            self.sending = True

    @property
    def sent(self) -> bool:
        # A transport that traces nothing (a test's, a proxy's) may have sent it: say so.
        return self.sending or not self.traced


async def _read_capped(url: str, response: httpx.Response, limit: int) -> httpx.Response:
    """The response with its body read, counted after decompression, refused past ``limit`` bytes.

    The client decodes gzip and deflate itself, ``limit`` bytes at most per step, so a small
    compressed body that would expand to gigabytes (a gzip bomb) is stopped at the cap.
    """
    if response.is_stream_consumed:
        # An in-process transport handed over a body already read (and decoded) whole.
        if len(response.content) > limit:
            raise ProtocolError(f"the answer from {url} is larger than {limit // 1_000_000} MB")
        return response
    decoder = _decoder(url, response.headers.get("Content-Encoding", ""))
    body = bytearray()
    try:
        async for raw in response.aiter_raw():
            if decoder is None:
                body += raw
            else:
                pending = raw
                while pending and len(body) <= limit:
                    body += decoder.decompress(pending, limit + 1 - len(body))
                    pending = decoder.unconsumed_tail
            if len(body) > limit:
                raise ProtocolError(
                    f"the answer from {url} is larger than {limit // 1_000_000} MB once decompressed; "
                    f"if that is expected, raise {MAX_RESPONSE_ENV}"
                )
    except zlib.error:
        raise ProtocolError(f"the server at {url} sent a body that does not decompress") from None
    # The body is decoded already: a new response without the encoding headers holds it as it is.
    headers = [(k, v) for k, v in response.headers.multi_items() if k.lower() not in _HOP_HEADERS]
    return httpx.Response(response.status_code, headers=headers, content=bytes(body), request=response.request)


def _decoder(url: str, content_encoding: str) -> Any:
    """A zlib decompressor for the body's encoding; None for identity; ProtocolError for others."""
    encoding = content_encoding.strip().lower()
    if encoding in ("", "identity"):
        return None
    if encoding in ("gzip", "x-gzip"):
        return zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
    if encoding == "deflate":
        return zlib.decompressobj()
    raise ProtocolError(f"the server at {url} sent a body encoded as {safe_text(encoding, max_len=40)}")


class NotJsonNumber(ValueError):
    """A number JSON cannot carry: NaN, an infinity, or one past a double's range (``1e400``)."""


def _refuse_constant(name: str) -> Any:
    raise NotJsonNumber(name)


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):  # 1e400 parses as inf: the same non-number as Infinity
        raise NotJsonNumber(text)
    return value


def _strict_json(response: httpx.Response) -> Any:
    # Python's decoder takes NaN, Infinity and 1e400 (as inf), which JSON has not: kept, they
    # reached the CLI's --json output as a traceback ("Out of range float values").
    return response.json(parse_constant=_refuse_constant, parse_float=_finite_float)


def _json_body(url: str, response: httpx.Response, what: str = "the server") -> Any:
    """The answer as JSON, or a ProtocolError that says in words what came instead."""
    try:
        return _strict_json(response)
    except NotJsonNumber as number:
        raise ProtocolError(f"{what} at {url} answered with malformed JSON: a number JSON cannot carry"
                            f" ({safe_text(str(number), max_len=40)})") from None
    except (ValueError, UnicodeDecodeError, RecursionError):
        if "html" in response.headers.get("Content-Type", ""):
            # Typically a proxy's or web UI's page: the URL is not the JMAP endpoint.
            raise ProtocolError(
                f"{what} at {url} answered with a web page, not JMAP; check that the URL is the mail server's"
            ) from None
        raise ProtocolError(f"{what} at {url} answered with malformed JSON") from None


def _problem(response: httpx.Response) -> dict[str, Any]:
    try:
        data = _strict_json(response)
    except (ValueError, UnicodeDecodeError, RecursionError):
        return {}
    return data if isinstance(data, dict) else {}


CERTIFICATE_HINT = (
    "the server's TLS certificate is not trusted: for a private CA use --ca-file (profile: ca_file), "
    "for a lab server --insecure"
)


def _reason(error: Exception) -> str:
    text = str(error).strip()
    if "CERTIFICATE_VERIFY_FAILED" in text or "certificate verify failed" in text:
        return f"{text}; {CERTIFICATE_HINT}"
    return text or type(error).__name__
