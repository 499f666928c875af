"""Bearer tokens and Basic passwords: kept only as SHA-256 hashes, compared in constant time, each with permissions."""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import secrets
from dataclasses import dataclass

from jmapclient.models.objects import OBJECT_TYPES


def all_permissions() -> frozenset[str]:
    return frozenset(p for t in OBJECT_TYPES.values() for p in t.all_permissions)


def read_only_permissions() -> frozenset[str]:
    return frozenset(t.permission(a) for t in OBJECT_TYPES.values() for a in ("get", "query"))


def _printable_secret(nbytes: int) -> str:
    # URL-safe base64 may begin with "-": `--token -Ab3…` then reads as a missing value, in our
    # CLI and in any other. Such a draw is simply made again.
    while (value := secrets.token_urlsafe(nbytes)).startswith("-"):
        pass
    return value


def new_token() -> str:
    return _printable_secret(24)


ADMIN_USER = "admin"
"""The user name of the Basic login that holds the admin token's permissions."""


def _digest(token: str) -> bytes:
    return hashlib.sha256(token.encode()).digest()


def _basic_digest(user: str, password: str) -> bytes:
    # The "basic:" prefix keeps a password from ever matching a token of the same text.
    return _digest(f"basic:{user}:{password}")


def _credential_digest(authorization: str) -> bytes | None:
    """The digest an ``Authorization`` header value stands for: a Bearer token or Basic user:password."""
    scheme, _, value = authorization.strip().partition(" ")
    value = value.strip()
    if not value:
        return None
    if scheme.lower() == "bearer":
        return _digest(value)
    if scheme.lower() == "basic":
        try:
            user, colon, password = base64.b64decode(value, validate=True).decode("utf-8").partition(":")
        except (binascii.Error, UnicodeDecodeError):
            return None
        # The real server trims and lowercases Basic user names (wire-notes.md).
        user = user.strip().lower()
        return _basic_digest(user, password) if colon and user else None
    return None


@dataclass(frozen=True)
class Principal:
    """Who a request acts as: a display name and the permission names its token holds."""

    username: str
    permissions: frozenset[str]

    def may(self, permission: str) -> bool:
        return permission in self.permissions


class TokenRegistry:
    """Tokens by hash. The plaintext is never kept, so a dump of this object reveals nothing."""

    def __init__(self) -> None:
        self._entries: list[tuple[bytes, Principal]] = []
        self._revoked: set[bytes] = set()

    def add(self, token: str, principal: Principal) -> None:
        if not token:
            raise ValueError("a token cannot be empty")
        self._entries.append((_digest(token), principal))

    def add_password(self, user: str, password: str, principal: Principal) -> None:
        """A Basic login (the real server's, wire-notes.md): ``user`` with ``password`` acts as ``principal``."""
        if not user or ":" in user or not password:
            raise ValueError("a Basic login needs a user name without ':' and a password")
        self._entries.append((_basic_digest(user.strip().lower(), password), principal))

    def revoke(self, token: str) -> None:
        """Revoke an API key: it no longer logs in, and the real server then answers 403, not 401."""
        digest = _digest(token)
        self._entries = [(stored, p) for stored, p in self._entries if not hmac.compare_digest(stored, digest)]
        self._revoked.add(digest)

    def is_revoked(self, authorization: str | None) -> bool:
        digest = _credential_digest(authorization) if authorization else None
        return digest is not None and any(hmac.compare_digest(digest, r) for r in self._revoked)

    def authenticate(self, authorization: str | None) -> Principal | None:
        """The principal of an ``Authorization: Bearer`` or ``Basic`` header value, or None."""
        if not authorization:
            return None
        digest = _credential_digest(authorization)
        if digest is None:
            return None
        found: Principal | None = None
        # Compare against every entry so the time taken does not tell which one matched.
        for stored, principal in self._entries:
            if hmac.compare_digest(stored, digest):
                found = principal
        return found

    def __repr__(self) -> str:
        return f"TokenRegistry({len(self._entries)} tokens)"


def new_password() -> str:
    return _printable_secret(18)


def standard_registry(admin_token: str, readonly_token: str, admin_password: str | None = None) -> TokenRegistry:
    """The two tokens of the stub: admin holds every permission, read-only holds get and query.

    With ``admin_password``, the user ``admin`` can also log in with Basic, with the admin token's permissions.
    """
    registry = TokenRegistry()
    admin = Principal(ADMIN_USER, all_permissions())
    registry.add(admin_token, admin)
    registry.add(readonly_token, Principal("readonly", read_only_permissions()))
    if admin_password is not None:
        registry.add_password(ADMIN_USER, admin_password, admin)
    return registry
