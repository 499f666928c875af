"""The live LDAP test with ldap3: the server's own path through rule L1, step by step, read-only."""

from __future__ import annotations

import contextlib
import socket
import ssl
from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, TypeVar
from urllib.parse import urlsplit

from jmapclient.dirtest import hashes, ldap_receive, steps
from jmapclient.dirtest.deadline import NO_ANSWER_FIX, StepClock, Worker, no_answer, shut_socket, timed_out
from jmapclient.dirtest.inputs import LiveInput, resolve_secret, step_timeout
from jmapclient.dirtest.ldap_entry import EntryChecks
from jmapclient.dirtest.lint import ldap_is_cleartext
from jmapclient.dirtest.steps import Outcome, Report
from jmapclient.dirtest.tls_words import plain_words, tls_failure
from jmapclient.rules import members

if TYPE_CHECKING:
    import ldap3

T = TypeVar("T")

_NOT_LDAP_FIX = ("check that the server URL names the directory's LDAP port (ldap:// usually 389, ldaps:// usually "
                 "636), not another service's, and that nothing in between answers in its place")
_LOGIN_FIX = "check the base DN and the login filter; the address must be in the attribute the filter compares"
_STARTTLS_FIX = "check that the server offers STARTTLS (Use TLS), or use ldaps://"
_TLS_PORT_FIX = "ldaps:// needs the server's TLS port (usually 636), ldap:// with Use TLS its plain one (usually 389)"


class _Stop(Exception):
    """A step failed that the next ones need; the rest are skipped."""


def probe_ldap(wire: Mapping[str, Any], inputs: LiveInput) -> Report:
    report = Report("LDAP", on_add=inputs.on_step)
    try:
        probe = _Probe(wire, inputs, report)
    except ValueError as error:  # urlsplit: a port that is no number
        report.add(steps.CONNECT, Outcome.FAILED, f"the server URL is not valid: {error}",
                   "write it as ldap://HOST:389 or ldaps://HOST:636")
        report.skip_rest(steps.LDAP_PLAN, "not run: the connect step failed")
        return report
    try:
        probe.run()
    except _Stop as stop:
        report.skip_rest(steps.LDAP_PLAN, str(stop) or "an earlier step failed")
    return report


class _BoundedCalls:
    """ldap3's calls, each within what is left of its step's bound: ldap3's receive timeout bounds each
    read only, and a server trickling its answer held a step for ever."""

    def __init__(self, seconds: float, inputs: LiveInput) -> None:
        self.clock = StepClock(seconds)
        """Each step's bound as a whole, restarted as each step begins."""
        self.cancelled = inputs.cancelled
        self.workers: dict[int, tuple[Any, Worker]] = {}
        """Each connection's worker, by the connection's id (the connection is held, so the id stays its)."""

    def _call(self, connection: Any, call: Callable[[], T]) -> T:
        """``call()`` on ``connection`` within what is left of the step's bound; at the bound the connection's
        socket is shut, so ldap3's wait ends."""
        held = self.workers.get(id(connection))
        if held is None:
            held = self.workers[id(connection)] = (connection, Worker(lambda: _cut(connection), self.cancelled))
        ldap_receive.reset(connection)  # each call is one request: its messages are counted afresh
        return self.clock.within(held[1], call)

    def _close(self, connection: Any) -> None:
        """Unbind, unless a call still holds the connection (and its lock: unbind would wait for it)."""
        held = self.workers.get(id(connection))
        if held is None or not held[1].stuck:
            _close(connection)


class _Probe(EntryChecks, _BoundedCalls):
    """The connect, TLS, bind and login-search steps; the entry's own steps are :class:`EntryChecks`'."""

    def __init__(self, wire: Mapping[str, Any], inputs: LiveInput, report: Report) -> None:
        self.wire, self.inputs, self.report = wire, inputs, report
        self.url = str(wire.get("url") or "")
        parts = urlsplit(self.url)
        self.implicit_tls = parts.scheme.lower() == "ldaps"
        self.host = parts.hostname or "localhost"
        self.port = parts.port or (636 if self.implicit_tls else 389)
        self.starttls = wire.get("useTls") is True
        # Whole seconds: ldap3 packs them as ints.
        self.timeout = max(1, round(step_timeout(wire.get("timeout"), inputs, 30000)))
        self.cleartext = ldap_is_cleartext(self.url, self.starttls)
        self.base = str(wire.get("baseDn") or "")
        self.bind_auth = wire.get("bindAuthentication", True) is not False
        self.entry: Any = None
        _BoundedCalls.__init__(self, self.timeout, inputs)

    def fail(self, name: str, reason: str, fix: str, details: tuple[str, ...] = ()) -> _Stop:
        self.report.add(name, Outcome.FAILED, reason, fix, details)
        return _Stop(f"not run: the {name} step failed")

    def run(self) -> None:
        import ldap3

        self._connect()
        with self._answered(steps.TLS):
            connection = self._open(ldap3)
        try:
            with self._answered(steps.SERVICE_BIND):
                self._service_bind(connection)
            with self._answered(steps.LOGIN_SEARCH):
                self._search_login(ldap3, connection)
            self._attributes()
            with self._answered(steps.GROUPS):
                self._groups(ldap3, connection)
            with self._answered(steps.ALIASES):
                self._aliases(ldap3, connection)
        finally:
            self._close(connection)
        with self._answered(steps.USER_BIND):
            self._user_bind(ldap3)

    @contextlib.contextmanager
    def _answered(self, name: str) -> Iterator[None]:
        """The step ``name`` fails in words when the server did not answer within the step's bound (or
        ldap3's own receive timeout passed), or when what it sent is no LDAP ldap3 can read (its decoder
        then raises anything: a KeyError, an IndexError); the steps after it are not run."""
        self.clock.restart()
        try:
            yield
        except _Stop:
            raise
        except Exception as error:
            from ldap3.core.exceptions import LDAPCommunicationError

            if isinstance(error, ldap_receive.TooMuch):
                raise self.fail(name, str(error), ldap_receive.TooMuch.fix) from None
            if isinstance(error, ldap_receive.NotLdap):
                raise self.fail(name, f"the server's answer is not LDAP: {error}", _NOT_LDAP_FIX) from None
            if timed_out(error):
                raise self.fail(name, no_answer(self.timeout), NO_ANSWER_FIX) from None
            if isinstance(error, LDAPCommunicationError):
                raise self.fail(name, f"the server ended the connection instead of answering in LDAP: "
                                f"{plain_words(error)}", _NOT_LDAP_FIX) from None
            # The decoder's own exception (a KeyError (1, 20), an IndexError) means nothing to an admin: said in words.
            raise self.fail(name, "the server's answer is not LDAP: it does not decode as an LDAP message",
                            _NOT_LDAP_FIX) from None

    # --- connect, TLS -------------------------------------------------------------------------

    def _connect(self) -> None:
        if urlsplit(self.url).scheme.lower() not in ("ldap", "ldaps"):
            raise self.fail(steps.CONNECT, f"{self.url!r} is not an ldap:// or ldaps:// URL this test can reach",
                            "use ldap://HOST:389 or ldaps://HOST:636")
        try:
            with socket.create_connection((self.host, self.port), timeout=self.timeout):
                pass
        except OSError as error:
            raise self.fail(
                steps.CONNECT, f"cannot reach {self.host}:{self.port} from this machine: {error}",
                "check the host and port in the server URL, and that a firewall lets this machine (and the mail "
                "server) through",
            ) from None
        self.report.add(steps.CONNECT, Outcome.PASSED, f"reached {self.host}:{self.port} within {self.timeout:g} s")

    def _tls(self, ldap3_: Any) -> ldap3.Tls:
        verify = ssl.CERT_NONE if self.wire.get("allowInvalidCerts") is True else ssl.CERT_REQUIRED
        return ldap3_.Tls(validate=verify, ca_certs_file=self.inputs.ca_file)

    def _new_connection(self, ldap3_: Any, user: str | None = None, password: str | None = None) -> Any:
        server = ldap3_.Server(self.host, port=self.port, use_ssl=self.implicit_tls, tls=self._tls(ldap3_),
                               connect_timeout=self.timeout, get_info=ldap3_.NONE)
        connection = ldap3_.Connection(server, user=user, password=password, receive_timeout=self.timeout,
                                       read_only=True, raise_exceptions=False, auto_referrals=False)
        ldap_receive.bound(connection)
        return connection

    def _open(self, ldap3_: Any) -> Any:
        from ldap3.core.exceptions import LDAPException

        connection = self._new_connection(ldap3_)
        try:
            self._call(connection, connection.open)
        except LDAPException as error:
            if timed_out(error):
                raise
            if not self.implicit_tls:
                raise self.fail(steps.TLS, f"cannot open the connection: {plain_words(error)}",
                                "check that the server still listens on this port") from None
            failure = tls_failure(error)
            raise self.fail(steps.TLS, f"the TLS handshake of ldaps:// failed: {failure.words}",
                            failure.fix(_TLS_PORT_FIX)) from None
        if self.starttls:
            self._starttls(connection, LDAPException)
        elif self.implicit_tls:
            self.report.add(steps.TLS, Outcome.PASSED, "implicit TLS (ldaps://), the certificate "
                            + ("not verified (Allow invalid TLS certificates)" if self.wire.get("allowInvalidCerts")
                               else "verified"))
        elif self.cleartext:
            self.report.add(steps.TLS, Outcome.WARNING, "no TLS: passwords cross the network in clear text",
                            "turn Use TLS on (STARTTLS), or use ldaps://")
        else:
            self.report.add(steps.TLS, Outcome.SKIPPED, "no TLS configured; the connection stays on this host")
        return connection

    def _starttls(self, connection: Any, ldap_exception: type[Exception]) -> None:
        fix = _STARTTLS_FIX
        try:
            started = self._call(connection, connection.start_tls)
        except ldap_exception as error:
            if timed_out(error):
                self._close(connection)
                raise
            failure = tls_failure(error)
            started, words, fix = False, failure.words, failure.fix(_STARTTLS_FIX)
        else:
            result = connection.result or {}
            words = str(result.get("message") or result.get("description") or "refused")
        if started:
            self.report.add(steps.TLS, Outcome.PASSED, "STARTTLS (Use TLS) succeeded, the certificate verified")
            return
        self._close(connection)
        if self.implicit_tls:
            raise self.fail(steps.TLS, f"STARTTLS on an ldaps:// connection, which is already TLS: {words}",
                            "turn Use TLS off to keep ldaps://, or use ldap:// with Use TLS on")
        raise self.fail(steps.TLS, f"STARTTLS failed: {words}", fix)

    def _cleared(self, what: str) -> bool:
        """Before a password goes out unencrypted: the warning first; False when the person stops it."""
        if not self.cleartext:
            return True
        return self.inputs.confirm_cleartext(
            f"The {what} would cross the network unencrypted ({self.url} without Use TLS)."
        )

    # --- binds --------------------------------------------------------------------------------

    def _bound(self, connection: Any) -> bool:
        """Whether the bind succeeded; the server's words stay in ``connection.result`` either way."""
        from ldap3.core.exceptions import LDAPCommunicationError, LDAPException

        try:
            return bool(self._call(connection, connection.bind))
        except LDAPException as error:
            if timed_out(error) or isinstance(error, LDAPCommunicationError):  # no answer is no refusal: the step
                raise  # says so (_answered)
            connection.result = {"description": type(error).__name__, "message": plain_words(error)}
            return False

    def _service_bind(self, connection: Any) -> None:
        bind_dn = self.wire.get("bindDn")
        if not bind_dn:
            if self._bound(connection):
                self.report.add(steps.SERVICE_BIND, Outcome.PASSED, "anonymous (no bind DN set)")
                return
            raise self.fail(steps.SERVICE_BIND, f"the server refuses anonymous searches: {_result(connection)}",
                            "set a bind DN and bind secret the server may search with")
        secret = resolve_secret(self.wire.get("bindSecret"), "bind secret", self.inputs)
        if secret is None:
            raise self.fail(steps.SERVICE_BIND, f"no bind secret for {bind_dn}: the bind was not tried",
                            "give the bind secret when asked (or --secret-file)")
        if not self._cleared("bind secret"):
            self.report.add(steps.SERVICE_BIND, Outcome.SKIPPED, "not sent: the connection is not encrypted",
                            "turn Use TLS on, or confirm sending it in clear text")
            raise _Stop("not run: the service bind was not sent")
        import ldap3

        connection.user, connection.password, connection.authentication = str(bind_dn), secret, ldap3.SIMPLE
        if not self._bound(connection):
            origin = self.inputs.origins.get("bind secret", "given")
            raise self.fail(steps.SERVICE_BIND, f"the server refused {bind_dn}: {_result(connection)}",
                            f"check the bind DN, and the bind secret ({origin})")
        self.report.add(steps.SERVICE_BIND, Outcome.PASSED, f"bound as {bind_dn}")

    def _user_bind(self, ldap3_: Any) -> None:
        if self.entry is None:
            return
        if not self.bind_auth:
            self._compare_hash()
            return
        password = self.inputs.password
        if not password:
            self.report.add(steps.USER_BIND, Outcome.SKIPPED, "no password given: the login's own bind not tried",
                            "give the login's password (--password-stdin, or the prompt) to try it")
            return
        if not self._cleared("login's password"):
            self.report.add(steps.USER_BIND, Outcome.SKIPPED, "not sent: the connection is not encrypted")
            return
        dn = str(self.entry.entry_dn)
        connection = self._new_connection(ldap3_, dn, password)
        try:
            self._call(connection, connection.open)
            if self.starttls:
                self._call(connection, connection.start_tls)
            bound = self._bound(connection)
            result = _result(connection)
        finally:
            self._close(connection)
        if not bound:
            self.report.add(steps.USER_BIND, Outcome.FAILED, f"the server refused the password for {dn}: {result}",
                            "check the password; with bind authentication the directory itself decides (rule L1)")
            return
        self.report.add(steps.USER_BIND, Outcome.PASSED, f"bound as {dn} with the password (rule L1: bind "
                        "authentication)")

    def _compare_hash(self) -> None:
        stored = self._values(members(self.wire.get("attrSecret")))
        password = self.inputs.password
        if not stored:
            self.report.add(steps.USER_BIND, Outcome.SKIPPED, "no hash was read: nothing to compare")
            return
        if not password:
            self.report.add(steps.USER_BIND, Outcome.SKIPPED, "no password given: the hash was not compared",
                            "give the login's password (--password-stdin, or the prompt) to compare it")
            return
        verdicts = [hashes.verify(value, password) for value in stored]
        if any(v is True for v in verdicts):
            self.report.add(steps.USER_BIND, Outcome.PASSED, "the password matches the stored hash (rule L1: "
                            "service user, hash compared)")
        elif all(v is None for v in verdicts):
            self.report.add(steps.USER_BIND, Outcome.SKIPPED, "the hash's format is checked by the server only")
        else:
            self.report.add(steps.USER_BIND, Outcome.FAILED, "the password does not match the stored hash",
                            "check the password, and that the hash is in a format the server reads")

    # --- the entry ----------------------------------------------------------------------------

    def _wanted(self) -> list[str]:
        names = ["attrEmail", "attrEmailAlias", "attrClass", "attrDescription", "attrMemberOf", "attrSecret",
                 "attrSecretChanged"]
        return sorted({a for name in names for a in members(self.wire.get(name))} | {"objectClass"})

    def _search(self, connection: Any, ldap3_: Any, search_filter: str, attributes: list[str]) -> list[Any]:
        found = self._call(connection, lambda: connection.search(
            self.base, search_filter, ldap3_.SUBTREE, attributes=attributes, time_limit=max(1, int(self.timeout)),
            size_limit=10))
        description = connection.result.get("description")
        if not found and description not in ("success", None):
            raise LookupError(_result(connection))
        return list(connection.entries)

    def _search_login(self, ldap3_: Any, connection: Any) -> None:
        from ldap3.core.exceptions import LDAPCommunicationError, LDAPException
        from ldap3.utils.conv import escape_filter_chars

        login = self.inputs.login
        if not login:
            self.report.add(steps.LOGIN_SEARCH, Outcome.SKIPPED, "no login address given",
                            "give one (--login ADDRESS) to look an account up")
            raise _Stop("not run: no login address given")
        search_filter = str(self.wire.get("filterLogin") or "").replace("?", escape_filter_chars(login))
        try:
            entries = self._search(connection, ldap3_, search_filter, self._wanted())
        except LookupError as error:
            raise self.fail(steps.LOGIN_SEARCH, f"the search {search_filter} under {self.base!r} failed: {error}",
                            _LOGIN_FIX) from None
        except LDAPException as error:  # ldap3 raises its own for a filter it cannot send
            if timed_out(error) or isinstance(error, LDAPCommunicationError):  # sent, but no answer came: the
                raise  # step says so (_answered)
            raise self.fail(steps.LOGIN_SEARCH, f"the login filter cannot be sent: {error}",
                            "correct the login filter (see the lint above)") from None
        if not entries:
            raise self.fail(steps.LOGIN_SEARCH, f"no entry matches {search_filter} under {self.base}", _LOGIN_FIX)
        if len(entries) > 1:
            raise self.fail(steps.LOGIN_SEARCH, f"{len(entries)} entries match {search_filter}: a login must "
                            "find one", "make the login filter match a single entry",
                            tuple(str(e.entry_dn) for e in entries))
        self.entry = entries[0]
        addresses = [v.lower() for v in self._values(members(self.wire.get("attrEmail")))]
        if addresses and login.lower() not in addresses:
            self.report.add(
                steps.LOGIN_SEARCH, Outcome.WARNING,
                f"found {self.entry.entry_dn}, but its address is {addresses[0]}, not {login}: the server makes "
                f"one account per login name, so logging in as {login} and as {addresses[0]} makes two accounts",
                "find accounts by address only, e.g. (&(objectClass=inetOrgPerson)(mail=?))",
            )
            return
        self.report.add(steps.LOGIN_SEARCH, Outcome.PASSED, f"found {self.entry.entry_dn} with {search_filter}")


def _close(connection: Any) -> None:
    """Unbind; a connection the TLS step broke has nothing left to close."""
    with contextlib.suppress(Exception):
        connection.unbind()


def _cut(connection: Any) -> None:
    """Shut the connection's socket: ldap3's wait on it ends at once."""
    with contextlib.suppress(Exception):  # not opened yet, or already closed: nothing waits on it
        shut_socket(connection.socket.fileno())


def _result(connection: Any) -> str:
    result = connection.result or {}
    words = str(result.get("description") or "no answer")
    message = str(result.get("message") or "").strip()
    return f"{words} ({message})" if message else words
