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
    api_url_from_host: bool
    """Without a configured public URL, ``apiUrl`` names the listening address (spec), not ``https://<hostname>``."""
    real_get_and_set: bool
    """The real server's get and set (wire-notes.md): no states, ``@type`` only when listed, unknown
    properties dropped, ``ids: null`` capped silently, empty maps omitted, ``ifInState`` ignored;
    ``created`` holding only the id; strings and set members trimmed; nested objects merged; a
    top-level ``@type`` change rebuilding the object; malformed ids left unanswered; objects in use
    refused with ``objectIsLinked``."""
    sorts_refused: frozenset[str]
    """Sort properties this server answers ``unsupportedSort`` to."""
    foreign_account_error: str
    """The method error for an ``accountId`` that is not the one account."""
    strict_request_json: bool
    """RFC 8620 §3.3 to the letter: Content-Type application/json and I-JSON (no duplicate member names)."""
    x_methods_need_only_core: bool
    """``x:`` methods run when ``using`` lists only core (the real server), not only with the management
    capability."""
    bad_filter_value_error: str
    """The method error for a filter value of the wrong kind (a string total, a malformed date)."""
    position_past_end_is_zero: bool
    """A query ``position`` past the end answers ``position: 0`` and no ids (the real server)."""
    real_request_errors: bool
    """The real server's request-level answers: ``notJSON`` only for a Content-Type other than
    application/json (a missing one is accepted), ``notRequest`` for a body that is not JSON and for
    an unknown capability in ``using``; the session without credentials is an anonymous one (200);
    a Basic login of a two-factor account gets 402, repeated failures 429."""
    query_state: str | None
    """The constant ``queryState`` (the real server's ``"n"``: nothing is pushed, a client re-queries);
    None: the stub's own state."""
    tenant_sort_only_tenanted: bool
    """Sorted by ``memberTenantId``, only the objects that have a tenant are returned (the real server)."""
    page_cut_before_sort: bool
    """Sorted by id with no total, no anchor offset and no explicit position 0, the page is cut in
    storage order before it is sorted (wire-notes.md, "query")."""
    first_comparator_only: bool
    """A query is sorted by its first comparator; the others are not read (wire-notes.md, "query")."""

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
    api_url_from_host=True,
    real_get_and_set=False,
    sorts_refused=frozenset(),
    foreign_account_error="accountNotFound",
    strict_request_json=True,
    x_methods_need_only_core=False,
    bad_filter_value_error="invalidArguments",
    position_past_end_is_zero=False,
    real_request_errors=False,
    query_state=None,
    tenant_sort_only_tenanted=False,
    page_cut_before_sort=False,
    first_comparator_only=False,
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
    api_url_from_host=False,
    real_get_and_set=True,
    sorts_refused=frozenset({"receivedAt"}),
    foreign_account_error="forbidden",
    strict_request_json=False,
    x_methods_need_only_core=True,
    bad_filter_value_error="unsupportedFilter",
    position_past_end_is_zero=True,
    real_request_errors=True,
    query_state="n",
    tenant_sort_only_tenanted=True,
    page_cut_before_sort=True,
    first_comparator_only=True,
)

PROFILES: dict[str, ServerProfile] = {p.name: p for p in (SPEC, STALWART)}


def server_profile(name: str) -> ServerProfile:
    try:
        return PROFILES[name]
    except KeyError:
        raise ValueError(f"unknown profile {name!r}; use {' or '.join(PROFILES)}") from None
