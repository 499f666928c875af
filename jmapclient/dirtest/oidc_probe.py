"""The live OpenID Connect test: discovery, keys, then a pasted access token checked as the server would.

httpx fetches the discovery document and the keys; joserfc verifies the token's signature with
them. The token is never shown: only its claims' names and the values the checks use.

httpx's timeout bounds each read, not a fetch: a provider trickling its answer a byte at a time holds
a fetch for ever. So each fetch runs within the step's bound (:class:`~jmapclient.dirtest.deadline.Worker`),
and the bound's cut shuts the client's sockets, held here as they are opened.
"""

from __future__ import annotations

import contextlib
import socket
import ssl
import threading
import time
from collections.abc import Mapping
from typing import Any

import httpcore  # loaded with this module only, when an OpenID Connect directory is tested

from jmapclient.dirtest import steps
from jmapclient.dirtest.deadline import NO_ANSWER_FIX, NoAnswer, Worker, no_answer, timed_out
from jmapclient.dirtest.inputs import LiveInput, fetch_timeout
from jmapclient.dirtest.lint import DEFAULT_AUDIENCE
from jmapclient.dirtest.steps import AUDIENCE, LOGIN_NAME, SCOPES, Outcome, Report
from jmapclient.dirtest.tls_words import tls_failure
from jmapclient.dirtest.words import kind_words
from jmapclient.rules import members, oidc_login_name

PLAN = steps.OIDC_PLAN
MOST_DOCUMENT_BYTES = 1 << 20
"""A discovery document or a key set is a few KB; a provider sending more than 1 MiB is read no further (one
streaming without end filled 881 MB within the step's bound, in the console's own process)."""


class _TooLarge(Exception):
    """The answer passed :data:`MOST_DOCUMENT_BYTES`; the fetch stopped there."""


class _Stop(Exception):
    pass


def probe_oidc(wire: Mapping[str, Any], inputs: LiveInput) -> Report:
    report = Report("OpenID Connect", on_add=inputs.on_step)
    try:
        _Probe(wire, inputs, report).run()
    except _Stop as stop:
        report.skip_rest(PLAN, str(stop))
    return report


class _Probe:
    def __init__(self, wire: Mapping[str, Any], inputs: LiveInput, report: Report) -> None:
        self.wire, self.inputs, self.report = wire, inputs, report
        self.issuer = str(wire.get("issuerUrl") or "").rstrip("/")
        self.timeout = fetch_timeout(inputs)

    def fail(self, name: str, reason: str, fix: str, details: tuple[str, ...] = ()) -> _Stop:
        self.report.add(name, Outcome.FAILED, reason, fix, details)
        return _Stop(f"not run: the {name} step failed")

    def run(self) -> None:
        import httpx

        context = ssl.create_default_context()
        if self.inputs.ca_file:
            context.load_verify_locations(self.inputs.ca_file)
        sockets = _HeldSockets()
        self.worker = Worker(sockets.cut, self.inputs.cancelled)
        try:
            with httpx.Client(verify=context, timeout=self.timeout, follow_redirects=True) as http:
                # httpx has no public hook for a network backend; its pools (the environment's proxies' too,
                # which a transport of our own would drop) read this attribute for each new connection, as
                # jmapclient.blocking's do (an httpx upgrade that renames it fails the trickling-server tests).
                for transport in [http._transport, *http._mounts.values()]:
                    pool = getattr(transport, "_pool", None)
                    if pool is not None:
                        pool._network_backend = sockets
                document = self._discovery(http, httpx.HTTPError)
                keys = self._keys(http, httpx.HTTPError, document)
        finally:
            sockets.close()
        self._token(keys)

    def _get_json(self, http: Any, url: str, errors: type[Exception], name: str, fix: str) -> dict[str, Any]:
        from jmapclient.file_safety import json_bounded

        try:
            # The whole fetch, headers and body, within the step's bound.
            body = json_bounded(self.worker.within(self.timeout, lambda: _fetch(http, url)).decode("utf-8"))
        except (errors, NoAnswer) as error:
            if timed_out(error):  # the step's bound (or httpx's own, on one connect, read or write)
                raise self.fail(name, f"{url}: {no_answer(self.timeout)}", NO_ANSWER_FIX) from None
            failure = tls_failure(error)
            raise self.fail(name, f"cannot fetch {url} from this machine: {failure.words}",
                            failure.fix(fix)) from None
        except _TooLarge:
            raise self.fail(name, f"{url} answers more than {MOST_DOCUMENT_BYTES >> 20} MiB (the test read no "
                            "further): a provider's document is a few KB", fix) from None
        except ValueError:
            raise self.fail(name, f"{url} does not answer JSON", fix) from None
        if not isinstance(body, dict):
            raise self.fail(name, f"{url} does not answer a JSON object", fix)
        return body

    def _discovery(self, http: Any, errors: type[Exception]) -> dict[str, Any]:
        url = f"{self.issuer}/.well-known/openid-configuration"
        fix = "check the issuer URL: it is the base the provider's discovery document is under"
        document = self._get_json(http, url, errors, steps.DISCOVERY, fix)
        if problems := discovery_problems(document):
            # Read as it came, a number as issuer gave "set the issuer URL to 5", and a string as the scopes was
            # listed letter by letter (the tester's): the document's shape is checked before any of it is used.
            raise self.fail(steps.DISCOVERY, f"the discovery document at {url} is not valid: {'; '.join(problems)}",
                            f"{fix}; a provider's own document holds these as OpenID Connect Discovery says")
        named = str(document.get("issuer") or "").rstrip("/")
        offered = [str(s) for s in document.get("scopes_supported") or []]
        claims = [str(c) for c in document.get("claims_supported") or []]
        details = (f"scopes offered: {', '.join(offered) or '(not listed)'}",
                   f"claims offered: {', '.join(claims) or '(not listed)'}")
        if named != self.issuer:
            raise self.fail(steps.DISCOVERY, f"the document names the issuer {named!r}, the directory {self.issuer!r}: "
                            "tokens' iss will not match", f"set the issuer URL to {named}", details)
        required = members(self.wire.get("requireScopes"))
        lacking = [s for s in required if offered and s not in offered]
        if lacking:
            raise self.fail(steps.DISCOVERY, f"the provider does not offer the required scope(s) {', '.join(lacking)}",
                            "remove them from Required scopes, or have the provider grant them", details)
        username = str(self.wire.get("claimUsername") or "")
        if claims and username and username not in claims:
            self.report.add(steps.DISCOVERY, Outcome.WARNING, f"the provider does not list the username claim "
                            f"{username!r} among its claims", "pick a claim it lists (email, preferred_username)",
                            details)
        else:
            self.report.add(steps.DISCOVERY, Outcome.PASSED, f"the discovery document of {named}", details=details)
        return document

    def _keys(self, http: Any, errors: type[Exception], document: Mapping[str, Any]) -> Any:
        from joserfc.jwk import KeySet

        url = str(document.get("jwks_uri") or "")
        if not url:
            raise self.fail(steps.KEYS, "the discovery document has no jwks_uri", "fix the provider's discovery")
        body = self._get_json(http, url, errors, steps.KEYS, "check that the provider publishes its keys")
        try:
            keys = KeySet.import_key_set(body)  # type: ignore[arg-type]  # a JWKS read from the wire
        except Exception as error:
            raise self.fail(steps.KEYS, f"the keys do not parse: {error}", "fix the provider's JWKS") from None
        if not keys.keys:
            raise self.fail(steps.KEYS, "the provider publishes no key", "fix the provider's JWKS")
        kids = [str(k.kid) for k in keys.keys]
        self.report.add(steps.KEYS, Outcome.PASSED, f"{len(kids)} key(s)", details=kids)
        return keys

    def _token(self, keys: Any) -> None:
        from joserfc import jwt
        from joserfc.errors import JoseError

        token = (self.inputs.password or "").strip()
        if not token:
            self.report.add(steps.TOKEN, Outcome.SKIPPED, "no access token given",
                            "paste an access token the provider issued (--password-stdin, or the prompt)")
            raise _Stop("not run: no access token given")
        try:
            claims = dict(jwt.decode(token, keys).claims)
        except (JoseError, ValueError) as error:
            raise self.fail(steps.TOKEN, f"the token's signature does not verify with the provider's keys: {error}",
                            "paste an access token this provider issued (a JWT, not an opaque token)") from None
        problems = []
        if str(claims.get("iss") or "").rstrip("/") != self.issuer:
            problems.append(f"its iss is {claims.get('iss')!r}, not the issuer URL")
        expires = claims.get("exp")
        if isinstance(expires, int | float) and expires < time.time():
            problems.append("it has expired")
        shown = tuple(f"{name}" for name in sorted(claims))
        if problems:
            raise self.fail(steps.TOKEN, f"signed by the provider, but {'; '.join(problems)}",
                            "paste a fresh token from this issuer", shown)
        self.report.add(steps.TOKEN, Outcome.PASSED, "signed with the provider's key, issuer and expiry valid",
                        details=(f"claims: {', '.join(shown)}",))
        self._audience(claims)
        self._scopes(claims)
        self._login(claims)

    def _audience(self, claims: Mapping[str, Any]) -> None:
        required = self.wire.get("requireAudience")
        aud = claims.get("aud")
        audiences = [str(a) for a in (aud if isinstance(aud, list) else [aud] if aud else [])]
        if not required:
            example = audiences[0] if audiences else "the client id"
            self.report.add(AUDIENCE, Outcome.WARNING, "no required audience: tokens issued for any client are "
                            "accepted", f"set Required audience to {example}")
            return
        if str(required) in audiences:
            self.report.add(AUDIENCE, Outcome.PASSED, f"aud holds {required!r}")
            return
        default = " (its default)" if required == DEFAULT_AUDIENCE else ""
        suggestion = str(claims.get("azp") or (audiences[0] if audiences else "the client id"))
        self.report.add(AUDIENCE, Outcome.FAILED,
                        f"the token's aud is {', '.join(audiences) or '(none)'}, the directory requires "
                        f"{required!r}{default}: every token is rejected",
                        f"set Required audience to {suggestion!r}, what this provider puts in aud")

    def _scopes(self, claims: Mapping[str, Any]) -> None:
        raw = claims.get("scope", claims.get("scp"))
        granted = raw.split() if isinstance(raw, str) else [str(s) for s in raw] if isinstance(raw, list) else []
        lacking = [s for s in members(self.wire.get("requireScopes")) if s not in granted]
        if lacking:
            self.report.add(SCOPES, Outcome.FAILED, f"the token lacks the required scope(s) {', '.join(lacking)} "
                            f"(it has {' '.join(granted) or 'none'})",
                            "remove them from Required scopes, or have the provider grant them to this client")
            return
        has = " ".join(granted) or "no scope, and none is required"
        self.report.add(SCOPES, Outcome.PASSED, f"the token has {has}")

    def _login(self, claims: Mapping[str, Any]) -> None:
        outcome = oidc_login_name(claims, claim_username=str(self.wire.get("claimUsername") or "preferred_username"),
                                  username_domain=self.wire.get("usernameDomain") or None)
        if outcome.login is None:
            self.report.add(LOGIN_NAME, Outcome.FAILED, f"rule O1: {outcome.reason}",
                            "set Username claim to a claim holding an address (email), or set Username domain")
            return
        self.report.add(LOGIN_NAME, Outcome.PASSED, f"logs in as {outcome.login} (rule O1: {outcome.reason})")


_TEXT_MEMBERS = ("issuer", "jwks_uri", "userinfo_endpoint", "introspection_endpoint", "token_endpoint",
                 "authorization_endpoint")
"""The discovery document's members that are a string (a URL) when present (OpenID Connect Discovery 1.0, §3)."""
_LIST_MEMBERS = ("scopes_supported", "claims_supported")
"""Its members that are an array of strings when present."""


def discovery_problems(document: Mapping[str, Any]) -> list[str]:
    """What is wrong with the discovery document's shape, each in words: the issuer missing, or a member the test
    or the server reads holding another kind of value. An optional member given as null counts as absent."""
    problems = []
    for name in _TEXT_MEMBERS:
        value = document.get(name)
        if name == "issuer" and value in (None, ""):  # the one member required of those the test reads first
            problems.append("it names no issuer")
        elif value is not None and not isinstance(value, str):
            problems.append(f"{name} is {kind_words(value)}, not a string")
    for name in _LIST_MEMBERS:
        value = document.get(name)
        if value is not None and not (isinstance(value, list) and all(isinstance(item, str) for item in value)):
            held = kind_words(value) if not isinstance(value, list) else "an array holding more than strings"
            problems.append(f"{name} is {held}, not an array of strings")
    return problems


def _fetch(http: Any, url: str) -> bytes:
    """The body at ``url``, read as it comes and stopped past :data:`MOST_DOCUMENT_BYTES` (:class:`_TooLarge`).

    Uncompressed is asked for: httpx decompresses each piece read whole, so a small compressed piece could
    still grow large before it is counted.
    """
    with http.stream("GET", url, headers={"Accept-Encoding": "identity"}) as answer:
        answer.raise_for_status()
        body = bytearray()
        for piece in answer.iter_bytes():
            body += piece
            if len(body) > MOST_DOCUMENT_BYTES:
                raise _TooLarge
        return bytes(body)


class _HeldSockets(httpcore.SyncBackend):
    """httpcore's own backend, holding a duplicate of each socket it opens so the bound can shut them from
    its thread (the duplicate keeps the number from going to another file while the probe runs)."""

    def __init__(self) -> None:
        self.held: list[socket.socket] = []
        self.lock = threading.Lock()

    def connect_tcp(self, host: str, port: int, timeout: float | None = None, local_address: str | None = None,
                    socket_options: Any = None) -> httpcore.NetworkStream:
        stream = super().connect_tcp(host, port, timeout, local_address, socket_options)
        with self.lock:
            self.held.append(stream.get_extra_info("socket").dup())
        return stream

    def cut(self) -> None:
        """Shut every connection both ways: the read waiting on one ends at once."""
        with self.lock:
            for held in self.held:
                with contextlib.suppress(OSError):
                    held.shutdown(socket.SHUT_RDWR)

    def close(self) -> None:
        with self.lock:
            for held in self.held:
                held.close()
            self.held.clear()
