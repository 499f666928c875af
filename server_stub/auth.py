"""Bearer tokens: kept only as SHA-256 hashes, compared in constant time, each with permissions."""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass

from jmapclient.models.objects import OBJECT_TYPES


def all_permissions() -> frozenset[str]:
    return frozenset(p for t in OBJECT_TYPES.values() for p in t.all_permissions)


def read_only_permissions() -> frozenset[str]:
    return frozenset(t.permission(a) for t in OBJECT_TYPES.values() for a in ("get", "query"))


def new_token() -> str:
    return secrets.token_urlsafe(24)


def _digest(token: str) -> bytes:
    return hashlib.sha256(token.encode()).digest()


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

    def add(self, token: str, principal: Principal) -> None:
        if not token:
            raise ValueError("a token cannot be empty")
        self._entries.append((_digest(token), principal))

    def authenticate(self, authorization: str | None) -> Principal | None:
        """The principal of an ``Authorization: Bearer`` header value, or None."""
        if not authorization:
            return None
        scheme, _, token = authorization.strip().partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            return None
        digest = _digest(token.strip())
        found: Principal | None = None
        # Compare against every entry so the time taken does not tell which one matched.
        for stored, principal in self._entries:
            if hmac.compare_digest(stored, digest):
                found = principal
        return found

    def __repr__(self) -> str:
        return f"TokenRegistry({len(self._entries)} tokens)"


def standard_registry(admin_token: str, readonly_token: str) -> TokenRegistry:
    """The two tokens of the stub: admin holds every permission, read-only holds get and query."""
    registry = TokenRegistry()
    registry.add(admin_token, Principal("admin", all_permissions()))
    registry.add(readonly_token, Principal("readonly", read_only_permissions()))
    return registry
