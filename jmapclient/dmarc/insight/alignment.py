"""DMARC identifier alignment (RFC 7489 §3.1): does an authenticated domain speak for the From domain?

Relaxed mode (the default, and what ``unspecified`` means): the two share an
organisational domain. Strict mode: the two are the same name.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from jmapclient.dmarc.analytics import AUTH_PASS, SPF_AUTH_FAILURES, RecordDigest
from jmapclient.dmarc.insight.services import base_domain

STRICT = "strict"
RELAXED = "relaxed"


def _normal(name: str) -> str:
    return name.strip().rstrip(".").lower()


def aligned(authenticated: str, from_domain: str, mode: str) -> bool:
    """True when ``authenticated`` aligns with ``from_domain`` under ``mode`` (``strict``, else relaxed)."""
    a, b = _normal(authenticated), _normal(from_domain)
    if not a or not b:
        return False
    if a == b:
        return True
    if mode == STRICT:
        return False
    base = base_domain(a)
    return base is not None and base == base_domain(b)


def under(name: str, domain: str) -> bool:
    """True when ``name`` is ``domain`` or a name under it (both normalised)."""
    return name == domain or name.endswith("." + domain)


@dataclass(frozen=True)
class RecordAlignment:
    """What authenticated a record's mail, split by whether it aligns with its From domain."""

    from_domain: str
    dkim_aligned: tuple[str, ...]
    """Domains of passing DKIM signatures that align."""
    dkim_other: tuple[str, ...]
    """Domains of passing DKIM signatures that do not align."""
    spf_aligned: tuple[str, ...]
    spf_other: tuple[str, ...]
    spf_failed: bool
    """SPF was checked and failed (fail or softfail) with no domain passing: the mark of a forwarding hop."""
    signed_as_own: tuple[str, ...] = ()
    """Domains of DKIM signatures, passing or not, under the From domain's own organisation: the mail came with
    the domain's signature (a list or forwarder that changed it broke it). A spoofer's mail carries none."""

    @property
    def dkim_ok(self) -> bool:
        return bool(self.dkim_aligned)

    @property
    def spf_ok(self) -> bool:
        return bool(self.spf_aligned)

    @property
    def aligned(self) -> bool:
        return self.dkim_ok or self.spf_ok

    @property
    def authenticated(self) -> bool:
        """Something passed, aligned or not."""
        return bool(self.dkim_aligned or self.dkim_other or self.spf_aligned or self.spf_other)


def _passing(results: Iterable[tuple[str, str]]) -> list[str]:
    return list(dict.fromkeys(_normal(d) for d, r in results if r == AUTH_PASS and _normal(d)))


def align_record(record: RecordDigest, policy_domain: str, adkim: str, aspf: str) -> RecordAlignment:
    """The alignment of one record under the published modes.

    The raw DKIM/SPF results decide; when a reporter sent none, its own evaluated
    (already aligned) results stand in, credited to the From domain.

    A record whose From domain is not the policy domain or under it is not the domain's mail
    (a receiver reports a message under the policy it looked up for its From domain): its
    authentication is held against the policy domain, and its evaluated results stand in for
    nothing. A forged report of 900 messages "From" another domain, signed and passing for that
    domain, was counted as the policy domain's authorised, aligned mail, and made it ready.
    """
    header, policy = _normal(record.header_from), _normal(policy_domain)
    foreign = bool(header and policy) and not under(header, policy)
    from_domain = policy if foreign or not header else header
    dkim = _passing(record.dkim_auth)
    spf = _passing(record.spf_auth)
    if not record.dkim_auth and record.dkim == AUTH_PASS and not foreign:
        dkim = [from_domain]
    if not record.spf_auth and record.spf == AUTH_PASS and not foreign:
        spf = [from_domain]
    # Only a raw SPF failure counts: an evaluated "fail" alone says no more than "not aligned".
    spf_failed = not spf and any(r in SPF_AUTH_FAILURES for _, r in record.spf_auth)
    return RecordAlignment(
        from_domain=from_domain,
        dkim_aligned=tuple(d for d in dkim if aligned(d, from_domain, adkim)),
        dkim_other=tuple(d for d in dkim if not aligned(d, from_domain, adkim)),
        spf_aligned=tuple(d for d in spf if aligned(d, from_domain, aspf)),
        spf_other=tuple(d for d in spf if not aligned(d, from_domain, aspf)),
        spf_failed=spf_failed,
        signed_as_own=tuple(dict.fromkeys(_normal(d) for d, _ in record.dkim_auth if aligned(d, from_domain, RELAXED))),
    )
