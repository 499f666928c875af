"""The JMAP session resource (RFC 8620 §2) and the choices the client makes from it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

CORE_CAPABILITY = "urn:ietf:params:jmap:core"
SPEC_CAPABILITY = "urn:service:jmap"
"""interface.md's management capability."""
STALWART_CAPABILITY = "urn:stalwart:jmap"
"""The real server's own management capability (wire-notes.md)."""
MANAGEMENT_CAPABILITIES = (SPEC_CAPABILITY, STALWART_CAPABILITY)
"""In order of preference: the spec's, then the real server's."""


@dataclass(frozen=True)
class CoreLimits:
    """Limits of ``urn:ietf:params:jmap:core``; defaults are the real server's."""

    max_size_request: int = 10_000_000
    max_calls_in_request: int = 16
    max_objects_in_get: int = 500
    max_objects_in_set: int = 500
    max_concurrent_requests: int = 4
    """RFC 8620's floor for a server; a client keeps its requests in flight at most this many."""

    @classmethod
    def from_wire(cls, core: Mapping[str, Any]) -> CoreLimits:
        def positive(key: str, fallback: int) -> int:
            value = core.get(key)
            return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else fallback

        defaults = cls()
        return cls(
            max_size_request=positive("maxSizeRequest", defaults.max_size_request),
            max_calls_in_request=positive("maxCallsInRequest", defaults.max_calls_in_request),
            max_objects_in_get=positive("maxObjectsInGet", defaults.max_objects_in_get),
            max_objects_in_set=positive("maxObjectsInSet", defaults.max_objects_in_set),
            max_concurrent_requests=positive("maxConcurrentRequests", defaults.max_concurrent_requests),
        )


@dataclass(frozen=True)
class Session:
    api_url: str
    capability: str
    """The management capability the client puts into ``using``."""
    account_id: str | None = None
    username: str = ""
    state: str = ""
    limits: CoreLimits = field(default_factory=CoreLimits)
    discovered: bool = True
    """False when no session resource answered and the spec's ``{base}/api`` is assumed."""
    raw: Mapping[str, Any] = field(default_factory=dict)

    @property
    def using(self) -> list[str]:
        return [CORE_CAPABILITY, self.capability]

    @property
    def report_times_follow_ids(self) -> bool:
        """Whether a DMARC report's ``receivedAt`` grows with its id. The real server stores reports only as
        they arrive by mail (it refuses to create one, wire-notes), numbering them and timing them on arrival.
        A server as interface.md writes it takes created reports with the ``receivedAt`` the client sends: an
        import keeps each e-mail's ``Date:``, which its sender wrote, in whatever order the files come."""
        return self.capability == STALWART_CAPABILITY

    @property
    def sorts_leave_out(self) -> bool:
        """Whether a sort the models mark (``ObjectType.sorts_that_leave_out``) lists only some objects here: on
        the real server, sorting directories by tenant lists only those that have one (wire-notes)."""
        return self.capability == STALWART_CAPABILITY

    @classmethod
    def from_wire(cls, data: Mapping[str, Any], *, resolve_url: Any) -> Session:
        """Read a session resource; ``resolve_url`` makes a possibly relative apiUrl absolute."""
        capabilities = data.get("capabilities")
        api_url = data.get("apiUrl")
        if not isinstance(capabilities, Mapping) or not isinstance(api_url, str) or not api_url:
            raise ValueError("the session resource has no capabilities or apiUrl")
        advertised = set(capabilities)
        raw_accounts = data.get("accounts")
        accounts: Mapping[str, Any] = raw_accounts if isinstance(raw_accounts, Mapping) else {}
        for account in accounts.values():
            if isinstance(account, Mapping) and isinstance(account.get("accountCapabilities"), Mapping):
                advertised.update(account["accountCapabilities"])
        capability = next((c for c in MANAGEMENT_CAPABILITIES if c in advertised), None)
        if capability is None:
            raise ValueError(
                "the server advertises no management capability "
                f"({' or '.join(MANAGEMENT_CAPABILITIES)})"
            )
        raw_primary = data.get("primaryAccounts")
        primary: Mapping[str, Any] = raw_primary if isinstance(raw_primary, Mapping) else {}
        account_id = primary.get(capability) or primary.get(CORE_CAPABILITY)
        core = capabilities.get(CORE_CAPABILITY)
        return cls(
            api_url=resolve_url(api_url),
            capability=capability,
            account_id=account_id if isinstance(account_id, str) else None,
            username=str(data.get("username") or ""),
            state=str(data.get("state") or ""),
            limits=CoreLimits.from_wire(core if isinstance(core, Mapping) else {}),
            raw=dict(data),
        )

    @classmethod
    def fallback(cls, base_url: str) -> Session:
        """interface.md's ``POST {base_url}/api`` when no session resource answers."""
        return cls(api_url=base_url.rstrip("/") + "/api", capability=SPEC_CAPABILITY, discovered=False)
