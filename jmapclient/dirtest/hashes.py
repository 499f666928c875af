"""The password-hash formats the mail server reads, and what it does with anything else.

As the server's code decides (Stalwart's ``verify_secret_hash`` and ``is_password_hash``): a secret starting
with ``$`` is read by its crypt prefix, one starting with ``_`` as BSDi crypt, one starting with ``{SCHEME}``
by its scheme, and anything else is compared with the typed password as plain text. A ``$`` prefix or a
scheme it does not know is an error, as is a hash of a known kind that is not well formed (a ``{SSHA}``
body too short to hold a digest, a bcrypt hash of the wrong length): no login succeeds either way, and only
the plain-text case logs nothing. The formats are declared here only.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

_CRYPT_B64 = re.compile(r"[A-Za-z0-9./]+")
"""crypt(3)'s alphabet."""
_STD_B64 = re.compile(r"[A-Za-z0-9+/]*={0,2}")
_PHC_PART = re.compile(r"[A-Za-z0-9+/.-]+")


def _crypt_b64(text: str, size: int | None = None, most: int | None = None) -> bool:
    return bool(_CRYPT_B64.fullmatch(text)) and (size is None or len(text) == size) and (most is None or
                                                                                          len(text) <= most)


def _phc(value: str) -> bool:
    """A complete PHC string (``$id[$v=..][$k=v,..]$salt$hash``): its salt and hash both there."""
    parts = value.split("$")
    if len(parts) < 5 or parts[0] or not parts[1]:
        return False
    middle, salt, digest = parts[2:-2], parts[-2], parts[-1]
    return (all(all("=" in pair for pair in part.split(",")) for part in middle)
            and bool(_PHC_PART.fullmatch(salt)) and bool(_PHC_PART.fullmatch(digest)))


def _bcrypt(value: str) -> bool:
    return (len(value) == 60 and value[2] in "abxy" and value[3] == "$" and value[4:6].isdigit()
            and value[6] == "$" and _crypt_b64(value[7:]))


def _salted(body: str, digest: int) -> bool:
    """``$salt$digest`` (after an optional ``rounds=N$``) of a SHA-crypt or MD5-crypt hash."""
    if body.startswith("rounds="):
        rounds, _, body = body[len("rounds="):].partition("$")
        if not rounds.isdigit():
            return False
    salt, _, digest_text = body.partition("$")
    return _crypt_b64(salt, most=16) and _crypt_b64(digest_text, digest)


def _md5_crypt(value: str) -> bool:
    salt, _, digest = value[len("$1$"):].partition("$")
    return value.startswith("$1$") and _crypt_b64(salt, most=8) and _crypt_b64(digest, 22)


def _sha1_crypt(value: str) -> bool:
    parts = value[len("$sha1$"):].split("$", 2)
    return (value.startswith("$sha1$") and len(parts) == 3 and parts[0].isdigit()
            and _crypt_b64(parts[1], most=64) and _crypt_b64(parts[2], 28))


def _des(value: str) -> bool:
    return _crypt_b64(value, 13) or (value.startswith("_") and _crypt_b64(value[1:], 19))


# (prefix, name, well formed), in the order the server tries them: "$2" before "$6$", "$sha1" before "$1".
_CRYPT_PREFIXES: tuple[tuple[str, str, Callable[[str], bool]], ...] = (
    ("$argon2", "Argon2", _phc),
    ("$pbkdf2", "PBKDF2", _phc),
    ("$scrypt", "scrypt", _phc),
    ("$2", "bcrypt", _bcrypt),
    ("$6$", "SHA-512 crypt", lambda value: _salted(value[3:], 86)),
    ("$5$", "SHA-256 crypt", lambda value: _salted(value[3:], 43)),
    ("$sha1", "SHA-1 crypt", _sha1_crypt),
    ("$1", "MD5 crypt", _md5_crypt),
)


def _decoded_size(body: str) -> int | None:
    """Bytes standard base64 ``body`` (padding optional) decodes to; None when it is not base64."""
    if not _STD_B64.fullmatch(body) or len(body.rstrip("=")) % 4 == 1:
        return None
    return len(body.rstrip("=")) * 3 // 4


def _digest_of(size: int, salted: bool) -> Callable[[str], bool]:
    def well_formed(body: str) -> bool:
        found = _decoded_size(body)
        return found is not None and (found > size if salted else found == size)
    return well_formed


def _phc_of(prefix: str) -> Callable[[str], bool]:
    """A ``{SCHEME}`` whose body is a complete PHC string of the family ``prefix`` starts."""
    return lambda body: body.startswith(prefix) and _phc(body)


def _crypt_body(body: str) -> bool:
    return _des(body) or any(body.startswith(prefix) and check(body) for prefix, _, check in _CRYPT_PREFIXES)


_SCHEMES: dict[str, tuple[str, Callable[[str], bool]]] = {
    "SHA": ("SHA-1", _digest_of(20, False)),
    "SSHA": ("salted SHA-1", _digest_of(20, True)),
    "SHA256": ("SHA-256", _digest_of(32, False)),
    "SSHA256": ("salted SHA-256", _digest_of(32, True)),
    "SHA512": ("SHA-512", _digest_of(64, False)),
    "SSHA512": ("salted SHA-512", _digest_of(64, True)),
    "MD5": ("MD5", _digest_of(16, False)),
    "CRYPT": ("crypt", _crypt_body),
    "ARGON2": ("Argon2", _phc_of("$argon2")),
    "ARGON2I": ("Argon2i", _phc_of("$argon2")),
    "ARGON2ID": ("Argon2id", _phc_of("$argon2")),
    "PBKDF2": ("PBKDF2", _phc_of("$pbkdf2")),
    "PLAIN": ("plain text (on purpose)", lambda body: True),
    "CLEAR": ("plain text (on purpose)", lambda body: True),
}
"""``{SCHEME}`` (any case, as the server reads it) → its name, and whether a body is one the server can verify."""

DOCUMENTED = sorted({name for _, name, _ in _CRYPT_PREFIXES} | {"BSDi crypt"} | {name for name, _ in _SCHEMES.values()})
"""Each format the server reads, for the help and the fix lines."""

UNKNOWN_FIX = (
    "store the hashes as Argon2, bcrypt, scrypt, PBKDF2, SHA-crypt ($5$/$6$) or MD5 crypt ($1$), or prefix them "
    "with their scheme: {SSHA}, {SHA256}, {SSHA512}, {MD5}, {CRYPT}, {PLAIN} ..."
)
PLAIN_TEXT = "unknown: compared as plain text, logins will fail"


@dataclass(frozen=True)
class HashVerdict:
    """What the server would make of a stored secret."""

    known: bool
    name: str
    problem: str = PLAIN_TEXT
    """Why no login succeeds with it, when it is not :attr:`known` (the server's way with it)."""

    @property
    def words(self) -> str:
        return f"{self.name}: a format the server reads" if self.known else self.problem


def identify(stored: str) -> HashVerdict:
    """The server's reading of ``stored``; never echoes the value (it may be a real hash)."""
    value = stored.strip()
    if value.startswith("$"):
        found = next(((name, check) for prefix, name, check in _CRYPT_PREFIXES if value.startswith(prefix)), None)
        if found is None:
            return HashVerdict(False, "unknown", "a $ format the server does not read: it refuses every login with"
                                                 " an error")
        return _formed(*found, value)
    if value.startswith("_"):
        return _formed("BSDi crypt", _des, value)
    if value.startswith("{"):
        scheme, closed, body = value[1:].partition("}")
        if not closed:
            return HashVerdict(False, "unknown", "a {scheme} not closed by }: the server refuses every login with an"
                                                 " error")
        known = _SCHEMES.get(scheme.upper())
        if known is None:
            return HashVerdict(False, "unknown", f"the scheme {{{scheme[:20]}}}, which the server does not read"
                                                 ' ("Unsupported algorithm"): it refuses every login')
        return _formed(known[0], known[1], body)
    return HashVerdict(False, "unknown")


def _formed(name: str, check: Callable[[str], bool], body: str) -> HashVerdict:
    if check(body):
        return HashVerdict(True, name)
    return HashVerdict(False, name, f"{name} but not well formed: the server cannot verify it, logins will fail")


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
    if not verdict.known:  # compared as plain text, or refused by the server
        return verdict.problem == PLAIN_TEXT and hmac.compare_digest(value.encode(), password.encode())
    if not value.startswith("{"):
        return None
    scheme, _, body = value[1:].partition("}")
    name = scheme.upper()
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
