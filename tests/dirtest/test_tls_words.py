"""A failed handshake in words, from each driver's own way of saying it."""

from __future__ import annotations

import pytest

from jmapclient.dirtest.deadline import timed_out
from jmapclient.dirtest.tls_words import tls_failure

LDAP3_WRAPPED = ("(\"('socket ssl wrapping error: [SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed: "
                 "unable to get local issuer certificate (_ssl.c:1006)',)\",)")


@pytest.mark.parametrize(("said", "words", "untrusted"), [
    (LDAP3_WRAPPED, "the server's certificate is signed by a CA this machine does not trust "
                    "(unable to get local issuer certificate)", True),
    # libpq (PostgreSQL with Use TLS) says it without the ssl module's code.
    ('connection failed: connection to server at "db", port 5432 failed: SSL error: certificate verify failed',
     'connection failed: connection to server at "db", port 5432 failed: SSL error: certificate verify failed', True),
    ("[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed: Hostname mismatch, certificate is not valid for "
     "'db'. (_ssl.c:1006)", "the server's certificate is not for this name (Hostname mismatch, certificate is not "
                           "valid for 'db')", False),
    ("[SSL: WRONG_VERSION_NUMBER] wrong version number (_ssl.c:1006)",
     "the server did not answer in TLS on this port (wrong version number)", False),
    ("('unexpected',)", "unexpected", False),
    # ldap3 checks the name itself, and says it with the certificate's dict (the tester's finding).
    ("socket ssl wrapping error: certificate {'subject': ((('commonName', 'localhost'),),), 'issuer': ((("
     "'commonName', 'Test CA'),),), 'serialNumber': '245E', 'subjectAltName': (('DNS', 'localhost'), ('IP Address', "
     "'127.0.0.1'))} doesn't match any name in ['vm'] ",
     "the server's certificate is for localhost, 127.0.0.1, not vm", False),
])
def test_the_reason_is_said_without_wrappers(said: str, words: str, untrusted: bool) -> None:
    failure = tls_failure(Exception(said))
    assert (failure.words, failure.untrusted) == (words, untrusted)


def test_a_server_side_statement_timeout_is_an_answer_not_silence() -> None:
    assert not timed_out(Exception("canceling statement due to statement timeout"))
    assert timed_out(Exception("(2013, 'Lost connection to MySQL server during query (timed out)')"))
    assert timed_out(OSError("wrapped")) is False
    try:
        try:
            raise TimeoutError
        except TimeoutError as inner:
            raise RuntimeError("error receiving data") from inner
    except RuntimeError as outer:
        assert timed_out(outer)
