"""A directory's server that trickles its answer, or answers garbage: each step ends at its own bound, in
words, and a driver's failure on hostile bytes is one failed step with a fix, never a traceback.

The peers are real sockets on 127.0.0.1 (:mod:`tests.support.hostile_peer`). A trickle passes every read
timeout a driver has (a byte every 0.2 s against a 1 s bound), so only a bound on the whole step ends it.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from jmapclient.dirtest import steps
from jmapclient.dirtest.deadline import CUT_GRACE
from jmapclient.dirtest.inputs import LiveInput
from jmapclient.dirtest.live import run_live
from jmapclient.dirtest.steps import Outcome, Report
from jmapclient.outcome import EXIT_FAILED
from mailadmin.main import main
from tests.support.directory_seeds import ALICE, ALICE_PASSWORD, CLIENT_ID, ldap_settings, sql_settings
from tests.support.hostile_peer import (
    GARBAGE,
    HTTP_HEAD,
    LDAP_HEAD,
    MYSQL_HEAD,
    POSTGRES_HEAD,
    HostilePeer,
    LdapFloodPeer,
)

BOUND = 1.0
"""Each step's bound in these tests, in seconds."""
ENDS_WITHIN = 5 * (BOUND + CUT_GRACE)
"""A step ended by its bound ends well inside this, on a busy machine too; a trickle would go on for minutes."""
HANG_LIMIT = 60.0
SAID = f"the server did not answer within {BOUND:g} s"


@pytest.fixture
def hostile_peer() -> Iterator[Callable[..., HostilePeer]]:
    made: list[HostilePeer] = []

    def make(*args: Any, **kwargs: Any) -> HostilePeer:
        made.append(HostilePeer(*args, **kwargs))
        return made[-1]

    yield make
    for peer in made:
        peer.stop()


def _timed(wire: dict[str, Any], **inputs: Any) -> tuple[Report, float]:
    """The live test's report and its seconds; fails (not hangs) when it still runs after ``HANG_LIMIT``."""
    found: list[Report] = []
    began = time.monotonic()
    worker = threading.Thread(target=lambda: found.append(run_live(wire, LiveInput(login=ALICE, **inputs))),
                              daemon=True)
    worker.start()
    worker.join(HANG_LIMIT)
    assert found, f"the live test still waits after {HANG_LIMIT:g} s: a trickle holds a step for ever"
    return found[0], time.monotonic() - began


def _failed_at(report: Report, name: str) -> Any:
    """The step ``name``, failed; every step after it skipped."""
    at = [s.name for s in report.steps].index(name)
    failed = report.steps[at]
    assert failed.outcome is Outcome.FAILED, "\n".join(f"{s.name}: {s.outcome.value}: {s.reason}" for s in report.steps)
    assert failed.fix, failed
    assert all(s.outcome is Outcome.SKIPPED for s in report.steps[at + 1:]), report.steps
    return failed


# --- a trickle: the step's bound as a whole ---------------------------------------------------


def test_a_provider_trickling_its_discovery_document_fails_discovery_at_the_bound(
    hostile_peer: Callable[..., HostilePeer],
) -> None:
    peer = hostile_peer(HTTP_HEAD)
    wire = {"@type": "Oidc", "issuerUrl": f"http://127.0.0.1:{peer.port}", "requireAudience": CLIENT_ID}
    report, seconds = _timed(wire, password="x", timeout=BOUND)
    assert peer.reached.is_set()
    failed = _failed_at(report, steps.DISCOVERY)
    assert failed.reason.endswith(SAID) and "holds the connection" in failed.fix
    assert seconds < ENDS_WITHIN


@pytest.mark.parametrize(("use_tls", "step"), [(False, steps.SERVICE_BIND), (True, steps.TLS)])
def test_an_ldap_server_trickling_its_answer_fails_that_step_at_the_bound(
    use_tls: bool, step: str, hostile_peer: Callable[..., HostilePeer],
) -> None:
    peer = hostile_peer(LDAP_HEAD, fill=b"\x00")
    wire = ldap_settings(f"ldap://127.0.0.1:{peer.port}", useTls=use_tls, timeout=int(BOUND * 1000))
    report, seconds = _timed(wire, password=ALICE_PASSWORD, timeout=5)
    assert peer.reached.is_set()
    assert (_failed_at(report, step).reason, seconds < ENDS_WITHIN) == (SAID, True)


@pytest.mark.parametrize(("kind", "head", "speaks_first"), [("MySql", MYSQL_HEAD, True),
                                                            ("PostgreSql", POSTGRES_HEAD, False)])
def test_a_database_trickling_its_greeting_fails_the_connect_step_at_the_bound(
    kind: str, head: bytes, speaks_first: bool, hostile_peer: Callable[..., HostilePeer],
) -> None:
    peer = hostile_peer(head, fill=b"a", speaks_first=speaks_first)
    store = {"@type": kind, "host": "127.0.0.1", "port": peer.port, "database": "accounts", "authUsername": "mail",
             "authSecret": {"@type": "Value", "secret": "s"}, "timeout": int(BOUND * 1000), "useTls": False}
    report, seconds = _timed(sql_settings(store), timeout=5)
    assert peer.reached.is_set()
    assert (_failed_at(report, steps.CONNECT).reason, seconds < ENDS_WITHIN) == (SAID, True)


# --- garbage: one failed step, in words -------------------------------------------------------


@pytest.mark.parametrize(("use_tls", "step"), [(False, steps.SERVICE_BIND), (True, steps.TLS)])
def test_an_ldap_port_answering_garbage_fails_that_step_with_a_reason(
    use_tls: bool, step: str, hostile_peer: Callable[..., HostilePeer],
) -> None:
    peer = hostile_peer(garbage=GARBAGE)
    wire = ldap_settings(f"ldap://127.0.0.1:{peer.port}", useTls=use_tls, timeout=5000)
    report, _ = _timed(wire, password=ALICE_PASSWORD, timeout=5)
    assert peer.reached.is_set()
    failed = _failed_at(report, step)
    assert failed.reason.startswith("the server's answer is not LDAP"), failed
    assert "LDAP port" in failed.fix


@pytest.mark.parametrize("use_tls", [False, True])
def test_the_command_prints_json_and_exits_failed_on_a_garbage_ldap_port(
    use_tls: bool, hostile_peer: Callable[..., HostilePeer], tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import io

    peer = hostile_peer(garbage=GARBAGE)
    path = tmp_path / "ldap_garbage.json"
    path.write_text(json.dumps(ldap_settings(f"ldap://127.0.0.1:{peer.port}", useTls=use_tls, timeout=5000)))
    monkeypatch.setattr("sys.stdin", io.StringIO(f"{ALICE_PASSWORD}\n"))
    code = main(["test-directory", str(path), "--login", ALICE, "--password-stdin", "--allow-cleartext", "--json"])
    captured = capsys.readouterr()
    assert code == EXIT_FAILED, captured
    live = json.loads(captured.out)["live"]
    failed = [s for s in live["steps"] if s["outcome"] == "failed"]
    assert len(failed) == 1 and failed[0]["reason"].startswith("the server's answer is not LDAP"), failed
    assert "Traceback" not in captured.err


# --- too much: bounded in messages and bytes, said at once -------------------------------------


def test_an_ldap_server_flooding_a_search_with_entries_is_stopped_and_said_so() -> None:
    # The tester's peer: the bind answered, then entries without end, the size limit ignored. ldap3 kept every
    # entry until the step's bound (800 MB in 30 s) and the step then said the server "did not answer".
    peer = LdapFloodPeer()
    try:
        wire = ldap_settings(f"ldap://127.0.0.1:{peer.port}", useTls=False, timeout=30000)
        report, _ = _timed(wire, password=ALICE_PASSWORD, timeout=30)
    finally:
        peer.stop()
    failed = _failed_at(report, steps.LOGIN_SEARCH)
    assert "ignores the size limit" in failed.reason and "did not answer" not in failed.reason, failed
    assert "size limit" in failed.fix


@pytest.mark.parametrize(("answer", "said"), [
    (b"\x30\x84\x7f\xff\xff\xff", "announces a message of 2,147,483,653 bytes"),  # the tester's `huge`
    (b"\x8f\x13" + bytes(range(256)) * 20, "do not begin an LDAP message"),  # random bytes, the tester's `garbage`
], ids=["huge", "garbage"])
def test_an_ldap_answer_no_message_can_be_is_said_at_once_not_waited_on(
    answer: bytes, said: str, hostile_peer: Callable[..., HostilePeer],
) -> None:
    peer = hostile_peer(answer, fill=b"\x04")
    wire = ldap_settings(f"ldap://127.0.0.1:{peer.port}", useTls=False, timeout=30000)
    report, _ = _timed(wire, password=ALICE_PASSWORD, timeout=30)
    failed = _failed_at(report, steps.SERVICE_BIND)
    assert failed.reason.startswith("the server's answer is not LDAP"), failed
    assert said in failed.reason and "LDAP port" in failed.fix, failed


def test_a_failure_no_step_foresaw_is_one_failed_step_not_a_traceback(monkeypatch: pytest.MonkeyPatch) -> None:
    # The net under every probe, for the command line and the console alike: a driver raising on bytes no step
    # anticipated (the tester's KeyError (1, 20) came from ldap3's decoder) still gives a report.
    from jmapclient.dirtest import ldap_probe

    def decoder_failure(*_: Any) -> Report:
        raise KeyError((1, 20))

    monkeypatch.setattr(ldap_probe, "probe_ldap", decoder_failure)
    report = run_live(ldap_settings("ldap://127.0.0.1:9"), LiveInput(login=ALICE))
    [failed] = report.steps
    assert (failed.name, failed.outcome) == ("test", Outcome.FAILED)
    assert "KeyError" in failed.reason and failed.fix


def test_a_provider_sending_an_endless_discovery_document_is_read_no_further_than_a_cap(
    hostile_peer: Callable[..., HostilePeer],
) -> None:
    # The tester's issuer streamed `{"issuer":"aaaa…` for a minute: 881 MB read within the step's bound.
    from jmapclient.dirtest.oidc_probe import MOST_DOCUMENT_BYTES

    head = b'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n{"issuer":"'
    peer = hostile_peer(garbage=head + b"a" * (MOST_DOCUMENT_BYTES * 3))
    wire = {"@type": "Oidc", "issuerUrl": f"http://127.0.0.1:{peer.port}", "requireAudience": CLIENT_ID}
    report, _ = _timed(wire, password="x", timeout=30)
    failed = _failed_at(report, steps.DISCOVERY)
    assert "answers more than 1 MiB" in failed.reason, failed


def _answering(document: Any) -> bytes:
    """An HTTP answer holding ``document`` as JSON, whatever the path asked."""
    body = json.dumps(document).encode()
    return (b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n"
            + f"Content-Length: {len(body)}\r\n\r\n".encode() + body)


def test_a_discovery_document_of_the_wrong_shape_is_said_invalid_before_it_is_used(
    hostile_peer: Callable[..., HostilePeer],
) -> None:
    # The tester's issuer: "fix: set the issuer URL to 5", and the scopes listed as "o, p, e, n, i, d".
    document = {"issuer": 5, "jwks_uri": ["x"], "userinfo_endpoint": {"a": 1}, "introspection_endpoint": None,
                "scopes_supported": "openid", "claims_supported": ["sub", 7]}
    peer = hostile_peer(garbage=_answering(document))
    wire = {"@type": "Oidc", "issuerUrl": f"http://127.0.0.1:{peer.port}", "requireAudience": CLIENT_ID}
    report, _ = _timed(wire, password="x", timeout=30)
    failed = _failed_at(report, steps.DISCOVERY)
    assert "the discovery document" in failed.reason and "is not valid: " in failed.reason, failed
    said = failed.reason.split("is not valid: ", 1)[1].split("; ")
    assert said == ["issuer is a number, not a string", "jwks_uri is an array, not a string",
                    "userinfo_endpoint is a JSON object, not a string",
                    "scopes_supported is a string, not an array of strings",
                    "claims_supported is an array holding more than strings, not an array of strings"]
    assert "set the issuer URL to" not in failed.fix and "o, p, e" not in " ".join(failed.details)


def test_a_discovery_document_naming_no_issuer_is_said_invalid(hostile_peer: Callable[..., HostilePeer]) -> None:
    peer = hostile_peer(garbage=_answering({"jwks_uri": "http://127.0.0.1:9/jwks"}))
    wire = {"@type": "Oidc", "issuerUrl": f"http://127.0.0.1:{peer.port}", "requireAudience": CLIENT_ID}
    report, _ = _timed(wire, password="x", timeout=30)
    assert _failed_at(report, steps.DISCOVERY).reason.endswith("is not valid: it names no issuer")


def test_each_step_is_bounded_by_the_directorys_own_timeout_not_a_shorter_one_of_the_tests(
    hostile_peer: Callable[..., HostilePeer],
) -> None:
    # The console's test capped every step at 10 s whatever the directory's Timeout, while its fix for a
    # silent server said to raise that Timeout: raised to 20 s, the test still failed "within 10 s".
    from jmapclient.dirtest.inputs import MOST_STEP_SECONDS, step_timeout

    peer = hostile_peer(garbage=GARBAGE)
    report, _ = _timed(ldap_settings(f"ldap://127.0.0.1:{peer.port}", useTls=False, timeout=20000))  # no cap chosen
    assert report.step(steps.CONNECT).reason.endswith("within 20 s"), report.step(steps.CONNECT)
    assert step_timeout(None, LiveInput(), 15000) == 15  # unset: the server's own default
    assert step_timeout(10**9, LiveInput(), 15000) == MOST_STEP_SECONDS  # a sane most
    assert step_timeout(20000, LiveInput(timeout=5), 15000) == 5  # --timeout, chosen shorter, still bounds it


@pytest.mark.parametrize("answer", [
    b"\x30\x05\x02\x01\x01\x7f\x00",  # an operation no LDAP has: the decoder's KeyError
    b"\x30\x0c\x02\x01\x01\x61\x07\x04\x03foo\x04\x00\x04\x00",  # a result code of the wrong type: its ValueError
    b"\x30\x03\x02\x01\x01",  # no operation at all: its IndexError
], ids=["unknown-operation", "wrong-type", "truncated"])
def test_an_ldap_message_ldap3_cannot_decode_is_said_in_words_not_as_the_decoders_exception(
    answer: bytes, hostile_peer: Callable[..., HostilePeer],
) -> None:
    # The tester saw "ldap3 cannot read it (KeyError: 1, 20)".
    peer = hostile_peer(garbage=answer)
    report, _ = _timed(ldap_settings(f"ldap://127.0.0.1:{peer.port}", useTls=False, timeout=5000), password="x")
    failed = _failed_at(report, steps.SERVICE_BIND)
    assert failed.reason == "the server's answer is not LDAP: it does not decode as an LDAP message", failed
    assert "LDAP port" in failed.fix
