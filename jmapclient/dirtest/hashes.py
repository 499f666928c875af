"""The password-hash formats the mail server documents, and what it does with anything else.

A secret the server does not recognise is compared with the typed password as plain text: a
directory holding hashes in another format (a bare hex MD5, say) lets nobody log in, and the
server logs nothing about it. The list is the server's documented one; it is declared here only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# (prefix, name). Prefixes are matched case-insensitively for the `{SCHEME}` forms, as the server does.
_CRYPT_PREFIXES: tuple[tuple[str, str], ...] = (
    ("$argon2id$", "Argon2id"),
    ("$argon2i$", "Argon2i"),
    ("$argon2d$", "Argon2d"),
    ("$pbkdf2-sha256$", "PBKDF2-SHA256"),
    ("$pbkdf2-sha512$", "PBKDF2-SHA512"),
    ("$pbkdf2$", "PBKDF2-SHA1"),
    ("$scrypt$", "scrypt"),
    ("$7$", "scrypt"),
    ("$2a$", "bcrypt"),
    ("$2b$", "bcrypt"),
    ("$2x$", "bcrypt"),
    ("$2y$", "bcrypt"),
    ("$6$", "SHA-512 crypt"),
    ("$5$", "SHA-256 crypt"),
    ("$1$", "MD5 crypt"),
)
_SCHEMES: dict[str, str] = {
    "SHA": "SHA-1",
    "SSHA": "salted SHA-1",
    "SHA256": "SHA-256",
    "SSHA256": "salted SHA-256",
    "SHA512": "SHA-512",
    "SSHA512": "salted SHA-512",
    "MD5": "MD5",
    "SMD5": "salted MD5",
    "CRYPT": "crypt",
    "ARGON2": "Argon2",
    "PBKDF2": "PBKDF2",
    "PLAIN": "plain text (on purpose)",
    "CLEAR": "plain text (on purpose)",
}
_SCHEME = re.compile(r"^\{([A-Za-z0-9.-]+)\}")

DOCUMENTED = sorted({name for _, name in _CRYPT_PREFIXES} | set(_SCHEMES.values()))
"""Each format the server reads, for the help and the fix lines."""

UNKNOWN_FIX = (
    "store the hashes as Argon2, bcrypt, scrypt, PBKDF2, SHA-crypt ($5$/$6$) or MD5 crypt ($1$), or prefix them "
    "with their scheme: {SSHA}, {SHA256}, {SSHA512}, {MD5}, {CRYPT}, {PLAIN} ..."
)


@dataclass(frozen=True)
class HashVerdict:
    """What the server would make of a stored secret."""

    known: bool
    name: str

    @property
    def words(self) -> str:
        if self.known:
            return f"{self.name}: a format the server reads"
        return "unknown: compared as plain text, logins will fail"


def identify(stored: str) -> HashVerdict:
    """The server's reading of ``stored``; never echoes the value (it may be a real hash)."""
    value = stored.strip()
    for prefix, name in _CRYPT_PREFIXES:
        if value.startswith(prefix):
            return HashVerdict(True, name)
    scheme = _SCHEME.match(value)
    if scheme and scheme.group(1).upper() in _SCHEMES:
        return HashVerdict(True, _SCHEMES[scheme.group(1).upper()])
    return HashVerdict(False, "unknown")


_DIGESTS = {"SHA": "sha1", "SHA256": "sha256", "SHA512": "sha512", "MD5": "md5"}


def verify(stored: str, password: str) -> bool | None:
    """Whether ``password`` matches ``stored`` as the server would decide, or None when this
    machine does not check that format (the slow key-derivation ones are the server's business)."""
    import base64
    import binascii
    import hashlib
    import hmac

    value = stored.strip()
    verdict = identify(value)
    if not verdict.known:
        return hmac.compare_digest(value.encode(), password.encode())  # what the server does with it
    scheme = _SCHEME.match(value)
    if scheme is None:
        return None
    name, body = scheme.group(1).upper(), value[scheme.end():]
    if name in ("PLAIN", "CLEAR"):
        return hmac.compare_digest(body.encode(), password.encode())
    salted = name.startswith("S") and name[1:] in _DIGESTS
    digest = _DIGESTS.get(name[1:] if salted else name)
    if digest is None:
        return None
    try:
        raw = base64.b64decode(body, validate=True)
    except (binascii.Error, ValueError):
        return False
    size = hashlib.new(digest).digest_size
    expected, salt = raw[:size], raw[size:] if salted else b""
    return hmac.compare_digest(hashlib.new(digest, password.encode() + salt).digest(), expected)
