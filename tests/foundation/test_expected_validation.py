"""Validation a person expects (issue 16): URL schemes per field, the 2^53-1 bound, pool sizes,
retention in the future, and one wording for a value outside its bounds."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from jmapclient import encoding
from jmapclient.dmarc.importing import import_reports
from jmapclient.dmarc.retention import check_retention
from jmapclient.errors import LocalValidationError
from jmapclient.models.introspect import field_warnings, patch_warnings
from jmapclient.models.objects import DIRECTORY
from jmapclient.validation import validate_object

NONE_SECRET = {"@type": "None"}


def ldap(**fields: Any) -> dict[str, Any]:
    return {"@type": "Ldap", "description": "d", "baseDn": "dc=x", "bindSecret": NONE_SECRET, **fields}


def oidc(issuer: str) -> dict[str, Any]:
    return {"@type": "Oidc", "description": "d", "issuerUrl": issuer}


def mysql(**store: Any) -> dict[str, Any]:
    store = {"@type": "MySql", "host": "h", "authSecret": NONE_SECRET, **store}
    return {"@type": "Sql", "description": "d", "store": store}


def errors_of(wire: dict[str, Any]) -> dict[str, str]:
    with pytest.raises(LocalValidationError) as caught:
        validate_object(DIRECTORY, wire)
    return caught.value.fields


def warnings_of(wire: dict[str, Any]) -> dict[str, str]:
    """The advice on a directory the client accepts: the server checks only that URLs are non-empty."""
    model = validate_object(DIRECTORY, wire)
    return field_warnings(type(model), model.to_wire())


@pytest.mark.parametrize("url", ["http://ldap.example", "https://ldap.example", "ftp://x", "LDAPX://x"])
def test_ldap_url_other_than_ldap_ldaps_or_ldapi_is_a_warning_not_a_refusal(url: str) -> None:
    # Before issue 27 these were refused, and the CLI could not write what the real server holds.
    assert "not an LDAP URL" in warnings_of(ldap(url=url))["url"]


@pytest.mark.parametrize("url", ["ldap://ldap.example:389", "ldaps://ldap.example", "LDAPS://Ldap.Example",
                                 "ldapi://%2Fvar%2Frun%2Fslapd.sock"])
def test_ldap_ldaps_and_ldapi_urls_are_accepted_without_a_word(url: str) -> None:
    assert warnings_of(ldap(url=url)) == {}


def test_an_empty_ldap_url_is_still_refused() -> None:
    assert "url" in errors_of(ldap(url=""))


@pytest.mark.parametrize(
    "issuer",
    [
        "ftp://idp.example",
        "http://idp.example",
        "http://localhost.evil.example/",  # a name that only begins like localhost
        "http://127.0.0.1.evil.example/",
        "http://user@idp.example/",
    ],
)
def test_oidc_issuer_other_than_https_or_loopback_http_is_a_warning_not_a_refusal(issuer: str) -> None:
    assert "http" in warnings_of(oidc(issuer))["issuerUrl"]


@pytest.mark.parametrize(
    "issuer",
    ["https://idp.example/realms/x", "http://localhost:8080/", "http://127.0.0.1/", "http://[::1]:9000/x",
     "http://auth.localhost/", "http://127.0.0.2/"],
)
def test_oidc_issuer_https_or_loopback_http_is_accepted(issuer: str) -> None:
    assert warnings_of(oidc(issuer)) == {}


def test_a_duration_past_2_53_ms_is_refused_typed_or_on_the_wire() -> None:
    with pytest.raises(ValueError, match="must be at most"):
        encoding.parse_duration("99999999999d")
    assert "must be at most" in errors_of(ldap(timeout=encoding.MAX_UNSIGNED_INT + 1))["timeout"]
    validate_object(DIRECTORY, ldap(timeout=encoding.MAX_UNSIGNED_INT))
    assert encoding.parse_duration(encoding.format_duration(encoding.MAX_UNSIGNED_INT)) == encoding.MAX_UNSIGNED_INT


def test_an_unsigned_int_past_2_53_is_refused() -> None:
    # maxAllowedPacket is bounded tighter; a replica's port too: check the type's own bound on a count.
    from jmapclient.models.dmarc import DmarcReportRecord

    with pytest.raises(ValueError, match="must be at most 9007199254740991"):
        DmarcReportRecord.model_validate(
            {"count": encoding.MAX_UNSIGNED_INT + 1, "evaluatedDisposition": "none", "evaluatedDkim": "pass",
             "evaluatedSpf": "pass", "envelopeFrom": "a.example", "headerFrom": "a.example"}
        )


def test_bounds_are_worded_one_way_not_pydantics() -> None:
    found = errors_of(ldap(poolMaxConnections=9000))
    assert found["poolMaxConnections"] == encoding.bound_message(maximum=8192) == "must be at most 8192"
    assert "Input should" not in str(found)


def test_mysql_minimum_above_maximum_is_an_error_on_the_minimum() -> None:
    found = errors_of(mysql(poolMinConnections=20, poolMaxConnections=10))
    assert found == {"store/poolMinConnections": "must be at most 10, the maximum connections"}
    validate_object(DIRECTORY, mysql(poolMinConnections=10, poolMaxConnections=10))
    validate_object(DIRECTORY, mysql(poolMinConnections=20, poolMaxConnections=None))


@pytest.mark.parametrize("retain", [timedelta(0), timedelta(days=-1), timedelta(milliseconds=-1)])
def test_a_retention_not_in_the_future_is_refused(retain: timedelta) -> None:
    with pytest.raises(ValueError, match="already have expired"):
        check_retention(retain)
    with pytest.raises(ValueError, match="already have expired"):
        asyncio.run(import_reports(None, [], now=datetime.now(UTC), retain=retain))


def test_a_retention_past_a_hundred_years_is_refused_before_any_file_is_read() -> None:
    # --retain 3650000d passed, then every file was rejected with an OverflowError (the tester's).
    assert check_retention(timedelta(days=36_525)) == timedelta(days=36_525)
    with pytest.raises(ValueError, match="at most 36525d"):
        check_retention(timedelta(days=3_650_000))


def test_a_retention_of_a_millisecond_is_allowed() -> None:
    assert check_retention(timedelta(milliseconds=1)) == timedelta(milliseconds=1)


@pytest.mark.parametrize("path", ["bindSecret/secret", "store/authSecret/secret",
                                  "store/readReplicas/0/authSecret/secret"])
def test_a_value_set_by_its_path_gets_the_advice_of_the_field_it_names(path: str) -> None:
    model = DIRECTORY.model_for("Sql" if path.startswith("store") else "Ldap")
    assert "starts or ends with a space" in patch_warnings(model, {path: "pw ", "description": "d"})[path]
    assert patch_warnings(model, {path: "pw", f"{path}x": "pw "}) == {}  # no such field: nothing said
