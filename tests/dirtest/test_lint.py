"""The offline lint: each posted mistake is found from the settings alone, and a correct setup is clean."""

from __future__ import annotations

from typing import Any

import pytest

from jmapclient.dirtest import hashes
from jmapclient.dirtest.ldapfilter import FilterError, check_filter
from jmapclient.dirtest.lint import Finding, check_sample_hash, lint_directory
from jmapclient.dirtest.sqlcheck import parse_error, selected_columns
from tests.support.directory_seeds import ldap_settings, sql_settings, ssha

LDAP_URL = "ldap://127.0.0.1:389"
SQLITE = {"@type": "Sqlite", "path": "/var/lib/accounts.db"}
POSTGRES = {"@type": "PostgreSql", "host": "db", "port": 5432}


def _found(wire: dict[str, Any]) -> dict[str, Finding]:
    return {f.field: f for f in lint_directory(wire)}


def _oidc(**changes: Any) -> dict[str, Any]:
    return {"@type": "Oidc", "issuerUrl": "https://sso.example", "requireAudience": "mail", **changes}


@pytest.mark.parametrize("wire", [ldap_settings(LDAP_URL), sql_settings(SQLITE), sql_settings(POSTGRES), _oidc()])
def test_a_correct_setup_has_no_finding(wire: dict[str, Any]) -> None:
    assert lint_directory(wire) == []


def test_starttls_with_ldaps_is_an_error() -> None:
    found = _found(ldap_settings("ldaps://ldap.example:636", useTls=True))["useTls"]
    assert found.severity == "error" and "already TLS" in found.message


def test_cleartext_ldap_to_another_host_is_warned() -> None:
    assert "clear text" in _found(ldap_settings("ldap://ldap.example", useTls=False))["url"].message
    assert "url" not in _found(ldap_settings("ldap://localhost", useTls=False))


@pytest.mark.parametrize(
    ("field", "value", "words"),
    [
        ("filterLogin", "(&(objectClass=inetOrgPerson)(mail=?)", "does not parse"),
        ("filterLogin", "(&(objectClass=inetOrgPerson)(mail=alice@example.org))", "has no ?"),
        ("filterMailbox", "(mail=?", "does not parse"),
        ("filterMemberOf", "(member=)", "does not parse"),
        ("filterLogin", "(&(objectClass=inetOrgPerson)(|(uid=?)(mail=?)))", "two accounts"),
    ],
)
def test_ldap_filters(field: str, value: str, words: str) -> None:
    assert words in _found(ldap_settings(LDAP_URL, **{field: value}))[field].message


def test_bind_authentication_without_any_secret_attribute_is_account_does_not_contain_secrets() -> None:
    found = _found(ldap_settings(LDAP_URL, attrSecret={}, attrSecretChanged={}))["attrSecretChanged"]
    assert found.severity == "error" and "Account does not contain secrets" in found.message
    warned = _found(ldap_settings(LDAP_URL, attrSecretChanged={}))["attrSecretChanged"]
    assert warned.severity == "warning" and "OAuth tokens" in warned.message


def test_service_mode_needs_a_hash_attribute_rule_l1() -> None:
    found = _found(ldap_settings(LDAP_URL, bindAuthentication=False, attrSecret={}))
    assert "attrSecret" in found and found["attrSecret"].severity == "error"


@pytest.mark.parametrize(
    ("field", "value", "words"),
    [
        ("queryLogin", "SELECT name, secret, description, type FROM accounts WHERE name = 'x'", "no $1"),
        ("queryMemberOf", "SELEC member_of FROM group_members WHERE name = $1", "does not parse"),
        ("queryEmailAliases", "SELECT address FROM emails WHERE name = $1; DELETE FROM emails", "more than one"),
    ],
)
def test_sql_queries(field: str, value: str, words: str) -> None:
    assert words in _found(sql_settings(SQLITE, **{field: value}))[field].message


def test_a_login_query_missing_a_mapped_column_names_it() -> None:
    found = _found(sql_settings(SQLITE, queryLogin="SELECT name, pw, description, type FROM a WHERE name = $1"))
    assert found["columnSecret"].severity == "error" and "'secret'" in found["columnSecret"].message
    aliased = sql_settings(SQLITE, queryLogin="SELECT name, pw AS secret, description, type FROM a WHERE name = $1")
    assert "columnSecret" not in _found(aliased)


def test_postgresql_spellings_are_not_syntax_errors() -> None:
    query = "SELECT name::text, secret, description, type FROM accounts WHERE name ILIKE $1"
    assert lint_directory(sql_settings(POSTGRES, queryLogin=query)) == []
    assert selected_columns(query) == ["name", "secret", "description", "type"]
    assert parse_error("SELECT name FROM accounts WHERE name = $1", dialect="sqlite") is None


def test_the_default_audience_is_warned_and_o1_stays_in_its_panel() -> None:
    found = _found(_oidc(requireAudience="stalwart"))["requireAudience"]
    assert "'stalwart'" in found.message and "client id" in found.fix
    assert "requireAudience" not in _found(_oidc())


SHA512_CRYPT = "$6$saltsalt$" + "a" * 86
BCRYPT = "$2y$12$" + "a" * 53


@pytest.mark.parametrize(
    ("sample", "name"),
    [
        (ssha("x"), "salted SHA-1"),
        ("$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA", "Argon2"),
        ("{ARGON2ID}$argon2id$v=19$m=65536,t=3,p=4$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA", "Argon2id"),
        ("{argon2i}$argon2i$v=19$m=65536,t=3,p=4$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA", "Argon2i"),
        (BCRYPT, "bcrypt"),
        (SHA512_CRYPT, "SHA-512 crypt"),
        ("{CRYPT}" + SHA512_CRYPT, "crypt"),
        ("$sha1$19703$iVdJqfSE$v4qYKl1zqYThwpjJAoKX6UvlHq/a", "SHA-1 crypt"),
        ("_J9..CCCCXBrJUJV154M", "BSDi crypt"),
        ("{plain}secret", "plain text (on purpose)"),
    ],
)
def test_sample_hashes_the_server_reads(sample: str, name: str) -> None:
    # As the server's code reads them: {ARGON2ID}, $sha1$ and BSDi crypt were said to be compared as plain text
    # (tester90).
    assert hashes.identify(sample).name == name
    assert check_sample_hash(sample) is None


@pytest.mark.parametrize("sample", ["5f4dcc3b5aa765d61d8327deb882cf99", "secret"])
def test_unknown_sample_hashes_are_compared_as_plain_text(sample: str) -> None:
    found = check_sample_hash(sample)
    assert found is not None and found.message == "sample hash unknown: compared as plain text, logins will fail"
    assert sample not in found.message


@pytest.mark.parametrize(("sample", "said"), [
    ("{SSHA1}abc", 'the scheme {SSHA1}, which the server does not read ("Unsupported algorithm")'),
    ("{SMD5}" + "a" * 24, 'the scheme {SMD5}, which the server does not read ("Unsupported algorithm")'),
    ("$y$j9T$salt$hash", "a $ format the server does not read"),
    ("$7$CU..../....salt$hash", "a $ format the server does not read"),
    ("{SSHA}abc", "salted SHA-1 but not well formed"),
    ("{SHA}abc", "SHA-1 but not well formed"),
    ("$2y$10$" + "a" * 52, "bcrypt but not well formed"),
    ("$6$salt$hash", "SHA-512 crypt but not well formed"),
    ("{SSHA", "a {scheme} not closed by }"),
])
def test_hashes_the_server_cannot_verify_are_said_so(sample: str, said: str) -> None:
    # Said to be "a format the server reads" ({SMD5}, $7$, a malformed body) or "compared as plain text" (an
    # unknown scheme): the server refuses every login with an error (tester90).
    found = check_sample_hash(sample)
    assert found is not None and found.message.startswith(f"sample hash {said}"), found
    assert hashes.verify(sample, "pw") is False


def test_the_hashes_checked_here_verify_as_the_server_would() -> None:
    assert hashes.verify(ssha("pw"), "pw") is True and hashes.verify(ssha("pw"), "nope") is False
    assert hashes.verify("{PLAIN}pw", "pw") is True
    assert hashes.verify("5f4dcc3b5aa765d61d8327deb882cf99", "password") is False  # compared as plain text
    assert hashes.verify("$argon2id$v=19$m=1,t=1,p=1$c2FsdA$aGFzaA", "pw") is None


@pytest.mark.parametrize("text", ["(mail=?)", "(&(a=1)(|(b=2)(!(c=3))))", "(cn=a\\28b\\29)", "(mail=*)",
                                  "(memberOf:1.2.840.113556.1.4.1941:=?)", "(x>=1)"])
def test_filters_that_parse(text: str) -> None:
    check_filter(text)


@pytest.mark.parametrize("text", ["", "mail=?", "(mail=?", "(mail=?))", "(&)", "(cn=a(b)", "(=x)", "(cn=\\zz)"])
def test_filters_that_do_not(text: str) -> None:
    with pytest.raises(FilterError):
        check_filter(text)


def test_a_required_scope_holding_a_space_is_an_error() -> None:
    # The tester's "x y" was stored without a word: no token's scopes can hold it, so rule O1 rejected every token.
    findings = lint_directory(_oidc(requireScopes={"openid": True, "x y": True, " email ": True}))
    assert [(f.field, f.severity) for f in findings] == [("requireScopes", "error")]
    assert "'x y' holds white space" in findings[0].message and "RFC 6749" in findings[0].message


def test_required_scopes_differing_only_in_case_are_named() -> None:
    findings = lint_directory(_oidc(requireScopes={"openid": True, "OpenID": True, "email": True}))
    assert [(f.field, f.severity) for f in findings] == [("requireScopes", "warning")]
    assert "'openid' and 'OpenID' differ only in case" in findings[0].message


def test_a_scope_is_shown_escaped_on_one_line() -> None:
    [finding] = lint_directory(_oidc(requireScopes={"a\nb": True}))
    assert "\n" not in finding.message and "'a\\nb'" in finding.message
