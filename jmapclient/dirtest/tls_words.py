"""A failed TLS handshake with the directory's server, in words, with the fix that applies.

ldap3 wraps the ssl module's error in its own, twice, and prints the wrappers' tuples:
``("('socket ssl wrapping error: [SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed: …',)",)``.
What people need is the reason (a CA this machine does not trust, a name the certificate does not
hold, no TLS on that port) and the flag that fixes it here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

CA_FIX = (
    "trust the directory's CA on this machine (--directory-ca-file, or CA file in the console's test) and on the "
    "mail server, or turn on Allow invalid TLS certificates for a lab server"
)
"""--ca-file is the JMAP connection's; the directory's own TLS trusts what --directory-ca-file names."""
NAME_FIX = (
    "name the server in the URL by a host name its certificate holds (the mail server must use one too), or have "
    "the certificate issued for this name"
)
_LDAP3_MISMATCH = re.compile(r"certificate (?P<certificate>\{.*\}) doesn't match any name in \[(?P<names>[^\]]*)\]",
                             re.DOTALL)
"""ldap3 checks the name itself, and says it with the certificate's whole dict: ``certificate {'subject': …,
'subjectAltName': (('DNS', 'localhost'), …)} doesn't match any name in ['vm']``."""
_CERTIFICATE_NAME = re.compile(r"\('(?:DNS|IP Address)', '(?P<name>[^']*)'\)")

_SSL_ERROR = re.compile(r"\[SSL: (?P<code>[A-Z0-9_]+)\] (?P<words>.*?)(?: \(_ssl\.c:\d+\)|$)")
"""The ssl module's ``[SSL: CODE] words (_ssl.c:NNN)``, wherever the wrappers put it."""
_WRAPPER = re.compile(r"^[(\"'\s]+|[,)\"'\s]+$")
_NOT_TLS = ("WRONG_VERSION_NUMBER", "RECORD_LAYER_FAILURE", "UNEXPECTED_EOF_WHILE_READING", "HTTP_REQUEST",
            "PACKET_LENGTH_TOO_LONG")
"""The peer answered something that is not TLS (plain LDAP on the port), or closed at the first byte."""


@dataclass(frozen=True)
class TlsFailure:
    words: str
    """Why, in words, without the wrappers' tuples."""
    untrusted: bool
    """The certificate's issuer is not trusted here: the CA fix (``CA_FIX``) applies."""
    wrong_name: bool = False
    """The certificate is trusted but for other names: the name fix (``NAME_FIX``) applies."""

    def fix(self, otherwise: str) -> str:
        """The fix that applies: the CA's, the name's, or ``otherwise`` (the caller's, for the rest)."""
        return CA_FIX if self.untrusted else NAME_FIX if self.wrong_name else otherwise


def plain_words(error: BaseException) -> str:
    """The innermost message of an error whose text is a wrapped tuple's repr; at most a few layers peeled."""
    text = str(error)
    for _ in range(4):
        peeled = _WRAPPER.sub("", text)
        if peeled == text:
            break
        text = peeled
    return " ".join(text.split()) or type(error).__name__


def about_tls(error: BaseException) -> bool:
    """Whether ``error`` is about TLS at all (psycopg's "SSL was required", a handshake's own words)."""
    return re.search(r"\b(SSL|TLS)\b", str(error), re.IGNORECASE) is not None


def tls_failure(error: BaseException) -> TlsFailure:
    """What went wrong in a handshake that failed with ``error`` (ldap3's, psycopg's, httpx's or ssl's own)."""
    mismatch = _LDAP3_MISMATCH.search(str(error))
    if mismatch is not None:
        held = [m["name"] for m in _CERTIFICATE_NAME.finditer(mismatch["certificate"])]
        asked = ", ".join(name.strip(" '\"") for name in mismatch["names"].split(","))
        return TlsFailure(f"the server's certificate is for {', '.join(held) or 'other names'}, not {asked}",
                          untrusted=False, wrong_name=True)
    found = _SSL_ERROR.search(str(error))
    if found is None:  # libpq says it without the ssl module's code: "SSL error: certificate verify failed"
        return TlsFailure(plain_words(error), untrusted="certificate verify failed" in str(error))
    code, words = found["code"], _WRAPPER.sub("", found["words"]).rstrip(" .")
    if code == "CERTIFICATE_VERIFY_FAILED":
        detail = words.removeprefix("certificate verify failed").lstrip(": ") or "not verified"
        if "mismatch" in detail:
            return TlsFailure(f"the server's certificate is not for this name ({detail})", untrusted=False,
                              wrong_name=True)
        if "expired" in detail or "not yet valid" in detail:
            return TlsFailure(f"the server's certificate is out of date ({detail})", untrusted=False)
        return TlsFailure(f"the server's certificate is signed by a CA this machine does not trust ({detail})",
                          untrusted=True)
    if code in _NOT_TLS:
        return TlsFailure(f"the server did not answer in TLS on this port ({words or code.lower()})", untrusted=False)
    return TlsFailure(f"the TLS handshake failed: {words or code.lower()}", untrusted=False)
