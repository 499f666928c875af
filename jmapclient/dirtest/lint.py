"""Offline checks of a directory's settings (wire form), run on every save: the mistakes people post.

Each :class:`Finding` names the field (its wire name), what is wrong, and the fix. They never
block a save: the server accepts all of these settings, and then no one can log in.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from jmapclient.dirtest import hashes, ldapfilter, sqlcheck
from jmapclient.rules import explain_ldap_login, members

DEFAULT_AUDIENCE = "stalwart"
"""The server's default required audience (wire-notes.md), which no provider puts in ``aud`` by itself."""
_LOOPBACK = {"localhost", "127.0.0.1", "::1"}


@dataclass(frozen=True)
class Finding:
    field: str
    """The wire name of the field concerned (``url``, ``queryLogin``, ``store/host``)."""
    message: str
    fix: str
    severity: str = "warning"
    """``error``: no login can work so; ``warning``: some logins, or later ones, will not."""

    def as_json(self) -> dict[str, str]:
        return {"field": self.field, "severity": self.severity, "message": self.message, "fix": self.fix}


def lint_directory(wire: Mapping[str, Any]) -> list[Finding]:
    """Every finding for a directory's settings, whichever its variant."""
    kind = wire.get("@type")
    if kind == "Ldap":
        return lint_ldap(wire)
    if kind == "Sql":
        return lint_sql(wire)
    if kind == "Oidc":
        return lint_oidc(wire)
    return []


def check_sample_hash(sample: str, field: str = "sample hash") -> Finding | None:
    """A pasted hash checked against the formats the server reads; None when it reads it."""
    verdict = hashes.identify(sample)
    if verdict.known:
        return None
    return Finding(field, f"sample hash {verdict.words}", hashes.UNKNOWN_FIX, "error")


# --- LDAP -----------------------------------------------------------------------------------


def ldap_is_cleartext(url: str, use_tls: bool) -> bool:
    """Passwords would cross the network unencrypted (ldapi:// and loopback do not leave the host)."""
    parts = urlsplit(url)
    return parts.scheme.lower() == "ldap" and not use_tls and (parts.hostname or "") not in _LOOPBACK


def lint_ldap(wire: Mapping[str, Any]) -> list[Finding]:
    found: list[Finding] = []
    url = str(wire.get("url") or "")
    scheme = urlsplit(url).scheme.lower()
    use_tls = wire.get("useTls") is True
    if scheme == "ldaps" and use_tls:
        found.append(Finding(
            "useTls",
            "Use TLS starts STARTTLS on a plain connection, but ldaps:// is already TLS: the connection fails",
            "turn Use TLS off to keep ldaps:// (implicit TLS, port 636), or use ldap:// (port 389) with Use TLS on",
            "error",
        ))
    elif ldap_is_cleartext(url, use_tls):
        found.append(Finding(
            "url", "ldap:// without Use TLS: bind passwords cross the network in clear text",
            "turn Use TLS on (STARTTLS), or use ldaps://",
        ))
    for name, required in (("filterLogin", True), ("filterMailbox", True), ("filterMemberOf", False)):
        value = wire.get(name)
        if not value:
            if required:
                found.append(Finding(name, "no filter: no account can be found", "set a filter holding ?", "error"))
            continue
        try:
            ldapfilter.check_filter(str(value))
        except ldapfilter.FilterError as error:
            found.append(Finding(name, f"the filter does not parse: {error}", "balance the parentheses; "
                                 "escape ( ) * \\ in values as \\28 \\29 \\2a \\5c", "error"))
            continue
        if "?" not in str(value):
            found.append(Finding(name, "the filter has no ?: every search finds the same entries, whoever logs in",
                                 "put ? where the address (or, for membership, the account DN) goes", "error"))
    login_filter = str(wire.get("filterLogin") or "")
    if "uid=?" in login_filter.replace(" ", "").lower():
        found.append(Finding(
            "filterLogin",
            "the login filter matches uid: a login by uid and one by e-mail address make two accounts",
            "find accounts by address only, e.g. (&(objectClass=inetOrgPerson)(mail=?))",
        ))
    if wire.get("bindAuthentication", True) is not False:
        if not members(wire.get("attrSecretChanged")):
            both = not members(wire.get("attrSecret"))
            found.append(Finding(
                "attrSecretChanged",
                "bind authentication with no password-changed attribute"
                + (" and no password-hash attribute: logins fail with \"Account does not contain secrets\""
                   if both else ": OAuth tokens stay valid after a password change"),
                "set Password-changed attributes to pwdChangeTime (OpenLDAP ppolicy) or pwdLastSet (Active "
                "Directory); with bind authentication the server reads it in place of a hash",
                "error" if both else "warning",
            ))
    else:
        fields = {"bind secret": "bindSecret", "bind DN": "bindDn", "password hash": "attrSecret"}
        for warning in explain_ldap_login(wire).warnings:
            field = next((f for words, f in fields.items() if words in warning), "bindAuthentication")
            found.append(Finding(field, warning, "fill it in, or turn bind authentication on (rule L1)", "error"))
    return found


# --- SQL ------------------------------------------------------------------------------------

SQL_QUERIES = ("queryLogin", "queryRecipient", "queryMemberOf", "queryEmailAliases")
_DIALECTS = {"PostgreSql": "postgresql", "MySql": "mysql", "Sqlite": "sqlite"}


def mapped_columns(wire: Mapping[str, Any]) -> dict[str, str]:
    """Field → column, for the columns the server reads from the login query's row."""
    return {f: str(wire[f]) for f in ("columnEmail", "columnSecret", "columnClass", "columnDescription") if wire.get(f)}


def lint_sql(wire: Mapping[str, Any]) -> list[Finding]:
    found: list[Finding] = []
    store = wire.get("store") if isinstance(wire.get("store"), Mapping) else {}
    dialect = _DIALECTS.get(str(store.get("@type")), "sqlite") if isinstance(store, Mapping) else "sqlite"
    for name in SQL_QUERIES:
        query = wire.get(name)
        if not query:
            continue
        text = str(query)
        if not sqlcheck.has_placeholder(text):
            found.append(Finding(name, "the query has no $1: it cannot depend on the address being looked up",
                                 "compare the address column with $1, e.g. WHERE name = $1", "error"))
        error = sqlcheck.parse_error(text, dialect=dialect)
        if error is not None:
            words = "does not parse" if dialect == "sqlite" else "does not parse as standard SQL"
            found.append(Finding(name, f"the query {words}: {error}", "correct the SQL; the live test runs it "
                                 "on the database itself", "error" if dialect == "sqlite" else "warning"))
    login = wire.get("queryLogin")
    selected = sqlcheck.selected_columns(str(login)) if login else None
    if selected is not None:
        for field, column in mapped_columns(wire).items():
            if column.lower() not in selected:
                severity = "error" if field == "columnSecret" else "warning"
                found.append(Finding(
                    field, f"the login query does not select the column {column!r} (it selects "
                    f"{', '.join(selected)})", "select that column in the login query, or name one it selects",
                    severity,
                ))
    return found


# --- OpenID Connect -------------------------------------------------------------------------


def lint_oidc(wire: Mapping[str, Any]) -> list[Finding]:
    found: list[Finding] = []
    if wire.get("requireAudience", DEFAULT_AUDIENCE) == DEFAULT_AUDIENCE:
        found.append(Finding(
            "requireAudience",
            f"the required audience is left at its default {DEFAULT_AUDIENCE!r}: providers put their client id "
            "(Keycloak: account) in aud, and every token is then rejected",
            "set it to the client id your provider puts in the tokens' aud claim (the live test shows it)",
        ))
    if urlsplit(str(wire.get("issuerUrl") or "")).scheme.lower() == "http":
        found.append(Finding("issuerUrl", "the issuer is reached over plain http: its keys can be replaced "
                             "on the way", "use https:// unless the provider is on the same host or network"))
    return found + _scope_findings(members(wire.get("requireScopes")))


def _scope_findings(scopes: list[str]) -> list[Finding]:
    """A required scope no token can hold, and two that differ only in case: each rejects every token."""
    found: list[Finding] = []
    scopes = list(dict.fromkeys(s.strip() for s in scopes if s.strip()))  # the server trims a set's members
    for scope in scopes:
        if any(char.isspace() for char in scope):
            found.append(Finding(
                "requireScopes",
                f"the required scope {scope!r} holds white space: a token's scopes are separated by spaces (RFC 6749 "
                "§3.3), so no token holds this one and every token is rejected",
                "give each scope as a member of its own, or remove this one", "error",
            ))
    alike: dict[str, list[str]] = {}
    for scope in scopes:
        alike.setdefault(scope.casefold(), []).append(scope)
    for variants in (group for group in alike.values() if len(group) > 1):
        found.append(Finding(
            "requireScopes",
            f"the required scopes {' and '.join(repr(v) for v in variants)} differ only in case: scopes are "
            "case-sensitive, so a token must hold each, and a provider grants one",
            "keep only the one your provider grants (usually lower case, as openid)",
        ))
    return found
