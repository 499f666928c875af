"""The two behaviours the stub can take: interface.md as written, or the real server's.

wire-notes.md lists where the real server (Stalwart) differs from interface.md; each
difference is one attribute here, so the rest of the stub asks the profile instead of
comparing profile names.
"""

from __future__ import annotations

from dataclasses import dataclass

from jmapclient.session import CORE_CAPABILITY, SPEC_CAPABILITY, STALWART_CAPABILITY


@dataclass(frozen=True)
class ServerProfile:
    name: str
    api_path: str
    capability: str
    capability_in_session: bool
    """Whether the management capability is also listed in the session's top-level ``capabilities``."""
    filter_operators: frozenset[str]
    unsupported_conditions: frozenset[str]
    validation_failed: bool
    """Answer validation problems as ``validationFailed`` (real server) instead of ``invalidProperties``."""
    reports_writable: bool

    @property
    def known_capabilities(self) -> frozenset[str]:
        return frozenset({CORE_CAPABILITY, self.capability})


SPEC = ServerProfile(
    name="spec",
    api_path="/api",
    capability=SPEC_CAPABILITY,
    capability_in_session=True,
    filter_operators=frozenset({"AND", "OR", "NOT"}),
    unsupported_conditions=frozenset(),
    validation_failed=False,
    reports_writable=True,
)

STALWART = ServerProfile(
    name="stalwart",
    api_path="/jmap/",
    capability=STALWART_CAPABILITY,
    capability_in_session=False,
    filter_operators=frozenset({"AND"}),
    unsupported_conditions=frozenset({"domain"}),
    validation_failed=True,
    reports_writable=False,
)

PROFILES: dict[str, ServerProfile] = {p.name: p for p in (SPEC, STALWART)}


def server_profile(name: str) -> ServerProfile:
    try:
        return PROFILES[name]
    except KeyError:
        raise ValueError(f"unknown profile {name!r}; use {' or '.join(PROFILES)}") from None
