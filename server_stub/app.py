"""The stub as a bare ASGI application: routes, authentication and HTTP framing.

- ``GET /.well-known/jmap`` redirects to the session resource;
- ``GET /jmap/session`` is the session (RFC 8620 §2);
- ``POST <apiUrl>`` (``/api``, or ``/jmap/`` in the stalwart profile) runs method calls.
"""

from __future__ import annotations

import asyncio
import logging
import socket
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from jmapclient.collector import collector_paused
from jmapclient.models.objects import OBJECT_TYPES
from server_stub.account import ACCOUNT_PATH, SCHEMA_PATH, account_resource, schema_body
from server_stub.auth import Principal, TokenRegistry
from server_stub.limits import BODY_TIMEOUT
from server_stub.login_guard import LoginGuard
from server_stub.methods.context import CallContext
from server_stub.profiles import ServerProfile, server_profile
from server_stub.protocol import MAX_SIZE_REQUEST, Dispatcher, RequestProblem, parse_request
from server_stub.raw_json import encode_answer, encode_json
from server_stub.session import SESSION_PATH, WELL_KNOWN_PATH, anonymous_session, session_resource
from server_stub.store import Store
from server_stub.warm import warm

log = logging.getLogger("server_stub")

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

JSON_TYPE = b"application/json"
PROBLEM_TYPE = b"application/problem+json"


def default_public_url() -> str:
    """The real server's public URL when none is configured: ``https://<hostname>`` (wire-notes.md)."""
    return f"https://{socket.gethostname()}"


class StubApp:
    def __init__(
        self,
        store: Store,
        profile: ServerProfile,
        tokens: TokenRegistry,
        *,
        public_url: str | None = None,
        bootstrap: bool = False,
    ) -> None:
        self.store = store
        self.profile = profile
        self.tokens = tokens
        self.public_url = public_url.rstrip("/") if public_url else None
        """The origin the session's URLs name; None: the listening address (spec) or ``https://<hostname>``
        (stalwart)."""
        self.dispatcher = Dispatcher(profile, bootstrap=bootstrap)
        self.guard = LoginGuard()
        """Two-factor accounts and failed logins, for the real server's 402 and 429."""

    def base_url(self, scope: Scope) -> str:
        if self.public_url:
            return self.public_url
        # Never from the Host header, which the client writes (it was reflected into apiUrl): from the
        # configuration, else the address the server listens on (spec) or https://<hostname> (stalwart).
        return _listening_url(scope) if self.profile.api_url_from_host else default_public_url()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        if scope["type"] != "http":
            return
        try:
            await self._route(scope, receive, send)
        except Exception as error:  # a bug of ours; say so without echoing anything
            log.error("request failed with %s", type(error).__name__, exc_info=False)
            await _respond(send, 500, {"type": "about:blank", "status": 500, "detail": "internal error"})

    @staticmethod
    async def _lifespan(receive: Receive, send: Send) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await send({"type": "lifespan.shutdown.complete"})
                return

    async def _route(self, scope: Scope, receive: Receive, send: Send) -> None:
        path, method = scope["path"], scope["method"]
        api_paths = {self.profile.api_path, self.profile.api_path.rstrip("/")}
        if path == WELL_KNOWN_PATH:
            if method not in ("GET", "HEAD"):
                await _method_not_allowed(send, "GET")
                return
            await send({"type": "http.response.start", "status": 307, "headers": [(b"location", SESSION_PATH.encode()),
                                                                                  (b"content-length", b"0")]})
            await send({"type": "http.response.body", "body": b""})
            return
        if path == SESSION_PATH:
            if method != "GET":
                await _method_not_allowed(send, "GET")
                return
            if self.profile.real_request_errors and not _header(scope, b"authorization"):
                # The real server's anonymous session: no accounts, no user (wire-notes.md).
                await _respond(send, 200, anonymous_session(self.profile, self.base_url(scope)))
                return
            principal = await self._authenticate(scope, send)
            if principal is not None:
                await _respond(send, 200, session_resource(self.profile, principal, self.base_url(scope)))
            return
        if path in (ACCOUNT_PATH, SCHEMA_PATH) or path.startswith(SCHEMA_PATH + "/"):
            if method != "GET":
                await _method_not_allowed(send, "GET")
                return
            principal = await self._authenticate(scope, send)
            if principal is not None:
                await self._published(path, principal, send)
            return
        if path in api_paths:
            if method != "POST":
                await _method_not_allowed(send, "POST")
                return
            principal = await self._authenticate(scope, send)
            if principal is not None:
                await self._api(scope, receive, send, principal)
            return
        await _respond(send, 404, {"type": "about:blank", "status": 404, "detail": f"nothing at {path}"})

    async def _published(self, path: str, principal: Principal, send: Send) -> None:
        """The account's permissions, or the schema: 302 to its hashed path, then gzip JSON."""
        if path == ACCOUNT_PATH:
            await _respond(send, 200, account_resource(self.profile, principal))
            return
        digest, body = schema_body()
        if path == SCHEMA_PATH:
            location = f"{SCHEMA_PATH}/{digest}".encode()
            await send({"type": "http.response.start", "status": 302,
                        "headers": [(b"location", location), (b"content-length", b"0")]})
            await send({"type": "http.response.body", "body": b""})
            return
        if path != f"{SCHEMA_PATH}/{digest}":
            await _respond(send, 404, {"type": "about:blank", "status": 404, "detail": f"nothing at {path}"})
            return
        headers = [(b"content-type", JSON_TYPE), (b"content-encoding", b"gzip"),
                   (b"content-length", str(len(body)).encode()), (b"cache-control", b"max-age=86400")]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": body})

    async def _login_refused(self, scope: Scope, send: Send, authorization: str | None) -> bool:
        """The real server's 402 (two-factor account over Basic) and 429 (too many failures)."""
        if not self.profile.real_request_errors:
            return False
        address = str((scope.get("client") or ("?", 0))[0])
        wait = self.guard.retry_after(address)
        if wait is not None:
            await _respond(send, 429, {"type": "about:blank", "status": 429,
                                       "detail": "Too Many Authentication Attempts"},
                           extra_headers=[(b"retry-after", str(wait).encode())])
            return True
        if self.guard.needs_second_factor(authorization):
            await _respond(send, 402, {"type": "about:blank", "status": 402, "detail": "MFA code required"})
            return True
        return False

    async def _authenticate(self, scope: Scope, send: Send) -> Principal | None:
        authorization = _header(scope, b"authorization")
        if await self._login_refused(scope, send, authorization):
            return None
        principal = self.tokens.authenticate(authorization)
        if principal is None and self.tokens.is_revoked(authorization):
            await _respond(send, 403, {"type": "about:blank", "status": 403, "detail": "this API key was revoked"})
            return None
        if principal is None:
            self.guard.failed(str((scope.get("client") or ("?", 0))[0]))
            challenge = b'Bearer realm="mailadmin stub"'
            if not self.profile.api_url_from_host:  # the real server also takes Basic
                challenge += b', Basic realm="mailadmin stub"'
            challenges = [(b"www-authenticate", challenge)]
            await _respond(
                send,
                401,
                {"type": "about:blank", "status": 401, "detail": "a valid bearer token is required"},
                extra_headers=challenges,
            )
        return principal

    async def _api(self, scope: Scope, receive: Receive, send: Send, principal: Principal) -> None:
        try:
            content_type = _header(scope, b"content-type")
            # The real server accepts a missing Content-Type, refuses any other but JSON (wire-notes.md).
            if self.profile.strict_request_json or (self.profile.real_request_errors and content_type is not None):
                _require_json_content_type(content_type)
            body = await _read_body(scope, receive)
        except RequestProblem as problem:
            await _respond(send, problem.status, problem.to_wire(), content_type=PROBLEM_TYPE)
            return
        # The cycle collector rests while the request is decoded, run and its answer encoded (no await in
        # between): a create of 200 reports decodes some 10,000 dicts, freed by their reference counts when
        # the request is done, but young passes during it moved them on until a full pass over the server's
        # heap ran (about 25 ms in a 1,000-report import). What one request builds is bounded by
        # maxSizeRequest; the collector runs again after it.
        with collector_paused():
            status, kind, answer = self._answered(body, scope, principal)
        await _respond(send, status, None, content_type=kind, body=answer)

    def _answered(self, body: bytes, scope: Scope, principal: Principal) -> tuple[int, bytes, bytes]:
        """(status, content type, body) answering an API request: its method responses, or the problem it is."""
        try:
            request = parse_request(body, self.profile)
        except RequestProblem as problem:
            return problem.status, PROBLEM_TYPE, encode_json(problem.to_wire())
        context = CallContext(self.store, self.profile, principal)
        state = session_resource(self.profile, principal, self.base_url(scope))["state"]
        return 200, JSON_TYPE, encode_answer(self.dispatcher.run(request, context, state))


def create_app(
    store: Store,
    *,
    profile: str | ServerProfile = "spec",
    tokens: TokenRegistry,
    public_url: str | None = None,
    bootstrap: bool = False,
) -> StubApp:
    """The ASGI application serving ``store`` with the given profile and tokens.

    ``public_url`` is the origin the session names (the real server's configured URL); ``bootstrap``
    makes every method on the objects fail as the real server does before it is set up.
    """
    chosen = profile if isinstance(profile, ServerProfile) else server_profile(profile)
    warm(OBJECT_TYPES.values())  # before the first request, not during it
    return StubApp(store, chosen, tokens, public_url=public_url, bootstrap=bootstrap)


# --- HTTP helpers ---------------------------------------------------------------------------


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers") or []:
        if key.lower() == name:
            return value.decode("latin-1")
    return None


def _listening_url(scope: Scope) -> str:
    """The origin of the socket the request came in on: the server's own address, whatever Host says."""
    host, port = scope.get("server") or ("127.0.0.1", None)
    scheme = scope.get("scheme", "http")
    host = f"[{host}]" if ":" in str(host) else host
    default = port is None or (scheme, port) in (("http", 80), ("https", 443))
    return f"{scheme}://{host}" + ("" if default else f":{port}")


def _require_json_content_type(value: str | None) -> None:
    """RFC 8620 §3.3: the request is ``application/json``; parameters such as charset are allowed."""
    media_type = (value or "").split(";", 1)[0].strip().lower()
    if media_type != "application/json":
        raise RequestProblem("notJSON", "the request's Content-Type is not application/json")


async def _read_body(scope: Scope, receive: Receive) -> bytes:
    try:
        async with asyncio.timeout(BODY_TIMEOUT):
            return await _receive_body(scope, receive)
    except TimeoutError:
        raise RequestProblem(
            "limit", f"the request body did not arrive within {BODY_TIMEOUT:g} s", status=408
        ) from None


async def _receive_body(scope: Scope, receive: Receive) -> bytes:
    too_large = RequestProblem("limit", f"the request is larger than {MAX_SIZE_REQUEST} bytes", limit="maxSizeRequest")
    declared = _header(scope, b"content-length")
    if declared and declared.isdigit() and int(declared) > MAX_SIZE_REQUEST:
        raise too_large
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            break
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > MAX_SIZE_REQUEST:
            raise too_large
        chunks.append(chunk)
        if not message.get("more_body", False):
            break
    return b"".join(chunks)


async def _respond(
    send: Send,
    status: int,
    payload: Any,
    *,
    content_type: bytes = JSON_TYPE,
    extra_headers: list[tuple[bytes, bytes]] | None = None,
    body: bytes | None = None,
) -> None:
    """``payload`` as JSON, or ``body`` when the caller encoded it (an answer with stored JSON spliced in)."""
    if body is None:  # a lone surrogate kept from before is escaped: still JSON, never a 500
        body = encode_json(payload)
    headers = [(b"content-type", content_type), (b"content-length", str(len(body)).encode()),
               (b"cache-control", b"no-store"), *(extra_headers or [])]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


async def _method_not_allowed(send: Send, allowed: str) -> None:
    await _respond(
        send,
        405,
        {"type": "about:blank", "status": 405, "detail": f"use {allowed}"},
        extra_headers=[(b"allow", allowed.encode())],
    )
