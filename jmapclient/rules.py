"""interface.md's rules L1 (LDAP login) and O1 (OpenID Connect login name), as pure functions.

The console shows them live next to the forms; the CLI or tests can call them too. They
read wire-shaped settings (``Mapping``), so a half-filled form can be explained as well.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from pydantic import TypeAdapter, ValidationError

from jmapclient.encoding import set_from_wire
from jmapclient.models._types import EmailAddress

_EMAIL = TypeAdapter(EmailAddress)


def is_email_address(value: str) -> bool:
    """The same check the models apply to an ``EmailAddress``."""
    try:
        _EMAIL.validate_python(value)
    except ValidationError:
        return False
    return True


# --- Rule L1 -------------------------------------------------------------------------------


@dataclass(frozen=True)
class LoginExplanation:
    """How a login is checked, step by step, and what in the settings would make it fail."""

    mode: str
    steps: tuple[str, ...]
    warnings: tuple[str, ...] = field(default_factory=tuple)


def members(value: Any) -> list[str]:
    """A wire Set<String> as a list ([] for none, or for a malformed one)."""
    if value is None:
        return []
    try:
        return [str(m) for m in set_from_wire(value)]
    except ValueError:
        return []


def _secret_kind(value: Any) -> str | None:
    return str(value.get("@type")) if isinstance(value, Mapping) and value.get("@type") else None


def explain_ldap_login(settings: Mapping[str, Any]) -> LoginExplanation:
    """Rule L1 for LDAP directory settings in wire form (``bindAuthentication``, ``bindDn`` ...)."""
    login_filter = str(settings.get("filterLogin") or "(no login filter)")
    base = str(settings.get("baseDn") or "(no base DN)")
    bind_dn = settings.get("bindDn")
    secret = _secret_kind(settings.get("bindSecret"))
    attr_secret = members(settings.get("attrSecret"))
    warnings: list[str] = []
    if settings.get("bindAuthentication", True) is not False:
        searcher = f"as {bind_dn}" if bind_dn else "anonymously (no bind DN)"
        steps = (
            f"1. Connects {searcher} and searches under {base} with {login_filter}, "
            "the ? replaced by the login e-mail address.",
            "2. Binds as the account found, with the password the person typed.",
            "3. The login succeeds when that bind succeeds; no password hash is read.",
        )
        return LoginExplanation("bind authentication", steps, ())
    steps = (
        f"1. Binds as the service user {bind_dn or '(no bind DN)'} with the bind secret.",
        f"2. Searches under {base} with {login_filter}, the ? replaced by the login e-mail address.",
        f"3. Reads the password hash from the account's {', '.join(attr_secret) or '(no attribute)'} "
        "attribute and compares it with the typed password.",
    )
    if secret in (None, "None"):
        warnings.append(
            "Service-user mode needs a bind secret, but none is set: the server cannot bind to read hashes."
        )
    if not bind_dn:
        warnings.append("Service-user mode binds with the bind DN, but none is set.")
    if not attr_secret:
        warnings.append(
            "Service-user mode reads the password hash attribute, but the list is empty: no login can succeed."
        )
    return LoginExplanation("service user (password hash compared)", steps, tuple(warnings))


# --- Rule O1 --------------------------------------------------------------------------------


@dataclass(frozen=True)
class LoginOutcome:
    """The login name rule O1 derives, or None with the reason authentication is rejected."""

    login: str | None
    reason: str


def _claim_text(claims: Mapping[str, Any], name: str) -> str | None:
    value = claims.get(name)
    if isinstance(value, str) and value.strip():
        return value.strip()
    return None


def oidc_login_name(
    claims: Mapping[str, Any], *, claim_username: str, username_domain: str | None
) -> LoginOutcome:
    """Rule O1: derive the login name from a token's (or user info's) claims."""
    value = _claim_text(claims, claim_username)
    if value is not None and "@" in value:
        candidate, how = value, f"the {claim_username} claim contains @, so it is used as is"
    elif value is not None and username_domain:
        candidate = f"{value}@{username_domain}"
        how = f"the {claim_username} claim has no @, so @{username_domain} is appended"
    else:
        missing = f"the {claim_username} claim " + ("is missing" if value is None else "has no @")
        if not username_domain and value is not None:
            missing += " and no username domain is set"
        email = _claim_text(claims, "email")
        if email is None:
            return LoginOutcome(None, f"rejected: {missing}, and there is no email claim to fall back on")
        candidate, how = email, f"{missing}, so the email claim is used"
    if candidate.count("@") > 1:
        # The models' address check splits at the last @ (a report's odd address is still shown), so
        # "a@b@c" passed as local part "a@b": an @ outside quotes makes no valid address (RFC 5321).
        return LoginOutcome(None, f"rejected: {how}, but {candidate!r} is not a valid e-mail address "
                                  "(it holds more than one @)")
    if not is_email_address(candidate):
        return LoginOutcome(None, f"rejected: {how}, but {candidate!r} is not a valid e-mail address")
    return LoginOutcome(candidate, how)
