"""The live LDAP test against a real slapd: each misconfiguration people post, named with its fix."""

from __future__ import annotations

from typing import Any

import pytest

from jmapclient.dirtest import steps
from jmapclient.dirtest.inputs import LiveInput
from jmapclient.dirtest.live import WHERE_IT_RUNS, run_live
from jmapclient.dirtest.steps import Outcome, Report
from tests.support.directory_seeds import (
    ALICE,
    ALICE_ALIAS,
    ALICE_PASSWORD,
    BOB,
    READER_DN,
    READER_SECRET,
    SERVICE_SECRET,
    ldap_settings,
)
from tests.support.directory_servers import Slapd
from tests.support.tls import PrivateCa


def _run(wire: dict[str, Any], ca: PrivateCa, login: str | None = ALICE, password: str | None = ALICE_PASSWORD,
         **inputs: Any) -> Report:
    return run_live(wire, LiveInput(login=login, password=password, ca_file=str(ca.ca_file), timeout=5, **inputs))


def _outcomes(report: Report) -> dict[str, Outcome]:
    return {s.name: s.outcome for s in report.steps}


def test_a_correct_directory_passes_every_step(slapd: Slapd, directory_ca: PrivateCa) -> None:
    told: list[str] = []
    report = _run(ldap_settings(slapd.url), directory_ca, on_step=lambda step: told.append(step.name))
    assert _outcomes(report) == {name: Outcome.PASSED for name in steps.LDAP_PLAN}
    assert told == list(steps.LDAP_PLAN)  # each as it ended, in the plan's order: the console's running line
    assert report.passed
    assert report.notes[0] == WHERE_IT_RUNS
    assert ALICE_ALIAS in report.step(steps.ALIASES).details
    assert any("cn=staff" in g for g in report.step(steps.GROUPS).details)
    shown = " ".join(" ".join((s.reason, *s.details)) for s in report.steps)
    assert "salted SHA-1: a format the server reads" in shown
    assert SERVICE_SECRET not in shown and ALICE_PASSWORD not in shown


def test_implicit_tls_with_a_verified_certificate_passes(slapd: Slapd, directory_ca: PrivateCa) -> None:
    report = _run(ldap_settings(slapd.tls_url, useTls=False), directory_ca)
    assert report.step(steps.TLS).outcome is Outcome.PASSED
    assert "implicit TLS" in report.step(steps.TLS).reason
    assert report.passed


def test_starttls_on_an_ldaps_url_is_named_with_its_fix(slapd: Slapd, directory_ca: PrivateCa) -> None:
    report = _run(ldap_settings(slapd.tls_url, useTls=True), directory_ca)
    tls = report.step(steps.TLS)
    assert tls.outcome is Outcome.FAILED
    assert "already TLS" in tls.reason
    assert "turn Use TLS off" in tls.fix
    assert report.step(steps.SERVICE_BIND).outcome is Outcome.SKIPPED


@pytest.mark.parametrize("use_ldaps", [False, True], ids=["starttls", "ldaps"])
def test_a_certificate_this_machine_does_not_trust_fails_the_tls_step(slapd: Slapd, use_ldaps: bool) -> None:
    # The tester's finding: the fix named --ca-file (the JMAP connection's), and the reason was ldap3's
    # wrapped tuples, ("('socket ssl wrapping error: [SSL: CERTIFICATE_VERIFY_FAILED] ...',)",).
    wire = ldap_settings(slapd.tls_url, useTls=False) if use_ldaps else ldap_settings(slapd.url)
    tls = run_live(wire, LiveInput(login=ALICE, timeout=5)).step(steps.TLS)  # no --directory-ca-file
    assert tls.outcome is Outcome.FAILED
    assert tls.reason.endswith("the server's certificate is signed by a CA this machine does not trust "
                               "(unable to get local issuer certificate)")
    assert not any(mark in tls.reason for mark in ("('", "',)", "[SSL:", "_ssl.c")), tls.reason
    assert "(--directory-ca-file, or CA file in the console's test)" in tls.fix
    assert "--ca-file" not in tls.fix.replace("--directory-ca-file", "")


@pytest.mark.parametrize("use_ldaps", [False, True], ids=["starttls", "ldaps"])
def test_a_certificate_for_other_names_says_which_and_the_fix_is_the_name(
    slapd: Slapd, directory_ca: PrivateCa, use_ldaps: bool,
) -> None:
    # The tester's finding: ldap3's own name check printed the certificate's whole dict, with the fix for a
    # wrong port (ldaps://) or for a server without STARTTLS, both right there. "127.1" (127.0.0.1's short
    # form: the same host, a name the certificate lacks) reaches slapd, whose certificate names localhost and
    # 127.0.0.1.
    url = (slapd.tls_url if use_ldaps else slapd.url).replace("127.0.0.1", "127.1")
    tls = _run(ldap_settings(url, useTls=not use_ldaps), directory_ca).step(steps.TLS)
    assert tls.outcome is Outcome.FAILED
    assert tls.reason.endswith("the server's certificate is for localhost, 127.0.0.1, not 127.1"), tls.reason
    assert "{" not in tls.reason and "host name its certificate holds" in tls.fix, tls


def test_the_tls_port_spoken_to_in_plain_ldap_says_so(slapd: Slapd) -> None:
    tls = run_live(ldap_settings(f"ldaps://127.0.0.1:{slapd.port}", useTls=False), LiveInput(login=ALICE, timeout=5))
    step = tls.step(steps.TLS)
    assert step.outcome is Outcome.FAILED and "did not answer in TLS on this port" in step.reason
    assert "usually 636" in step.fix and "--directory-ca-file" not in step.fix


def test_a_wrong_bind_secret_fails_the_service_bind(slapd: Slapd, directory_ca: PrivateCa) -> None:
    wire = ldap_settings(slapd.url, bindSecret={"@type": "Value", "secret": "wrong"})
    report = _run(wire, directory_ca)
    bind = report.step(steps.SERVICE_BIND)
    assert bind.outcome is Outcome.FAILED and "invalidCredentials" in bind.reason
    assert report.step(steps.LOGIN_SEARCH).outcome is Outcome.SKIPPED


def test_a_masked_bind_secret_is_asked_for_and_said(slapd: Slapd, directory_ca: PrivateCa) -> None:
    asked: list[str] = []

    def ask(prompt: str) -> str:
        asked.append(prompt)
        return SERVICE_SECRET

    wire = ldap_settings(slapd.url, bindSecret={"@type": "Value", "secret": "****"})
    report = _run(wire, directory_ca, ask_secret=ask)
    assert report.passed
    assert asked == ["bind secret (the server shows it only as ****)"]
    assert "The bind secret was typed in (the server shows it only as ****)." in report.notes


def test_an_environment_secret_is_read_here_and_said(slapd: Slapd, directory_ca: PrivateCa, monkeypatch: Any) -> None:
    monkeypatch.setenv("TEST_LDAP_BIND", SERVICE_SECRET)
    wire = ldap_settings(slapd.url, bindSecret={"@type": "EnvironmentVariable", "variableName": "TEST_LDAP_BIND"})
    report = _run(wire, directory_ca)
    assert report.passed
    assert "The bind secret is read from the environment variable TEST_LDAP_BIND on this machine." in report.notes


def test_bind_authentication_with_no_secret_attribute_names_account_does_not_contain_secrets(
    slapd: Slapd, directory_ca: PrivateCa
) -> None:
    # pwdChangeTime needs the ppolicy overlay, which this slapd (like many) does not run.
    wire = ldap_settings(slapd.url, attrSecret={})
    report = _run(wire, directory_ca)
    attributes = report.step(steps.ATTRIBUTES)
    assert attributes.outcome is Outcome.FAILED
    assert "Account does not contain secrets" in attributes.reason
    assert "Password-changed attributes" in attributes.fix


def test_a_login_filter_by_uid_warns_of_two_accounts(slapd: Slapd, directory_ca: PrivateCa) -> None:
    wire = ldap_settings(slapd.url, filterLogin="(&(objectClass=inetOrgPerson)(|(uid=?)(mail=?)))")
    report = _run(wire, directory_ca, login="alice")
    search = report.step(steps.LOGIN_SEARCH)
    assert search.outcome is Outcome.WARNING
    assert "two accounts" in search.reason and ALICE in search.reason
    assert "(mail=?)" in search.fix


def test_groups_unresolved_without_memberof_are_named(slapd: Slapd, directory_ca: PrivateCa) -> None:
    report = _run(ldap_settings(slapd.url, filterMemberOf=None), directory_ca)
    groups = report.step(steps.GROUPS)
    assert groups.outcome is Outcome.FAILED
    assert "no memberOf" in groups.reason and "no membership filter" in groups.reason
    assert "(&(objectClass=groupOfNames)(member=?))" in groups.fix
    assert any("cn=staff" in g for g in groups.details)


def test_service_mode_with_a_bind_dn_that_reads_no_hash(slapd: Slapd, directory_ca: PrivateCa) -> None:
    wire = ldap_settings(slapd.url, bindAuthentication=False, bindDn=READER_DN,
                         bindSecret={"@type": "Value", "secret": READER_SECRET})
    report = _run(wire, directory_ca)
    attributes = report.step(steps.ATTRIBUTES)
    assert attributes.outcome is Outcome.FAILED
    assert "returns no hash" in attributes.reason and "olcAccess" in attributes.fix


def test_service_mode_with_an_unknown_hash_says_logins_will_fail(slapd: Slapd, directory_ca: PrivateCa) -> None:
    report = _run(ldap_settings(slapd.url, bindAuthentication=False), directory_ca, login=BOB, password="password")
    attributes = report.step(steps.ATTRIBUTES)
    assert attributes.outcome is Outcome.FAILED
    assert "unknown: compared as plain text, logins will fail" in attributes.reason


def test_service_mode_compares_the_password_with_a_known_hash(slapd: Slapd, directory_ca: PrivateCa) -> None:
    wire = ldap_settings(slapd.url, bindAuthentication=False)
    assert _run(wire, directory_ca).step(steps.USER_BIND).outcome is Outcome.PASSED
    assert _run(wire, directory_ca, password="nope").step(steps.USER_BIND).outcome is Outcome.FAILED


def test_a_wrong_password_fails_the_user_bind(slapd: Slapd, directory_ca: PrivateCa) -> None:
    report = _run(ldap_settings(slapd.url), directory_ca, password="wrong")
    bind = report.step(steps.USER_BIND)
    assert bind.outcome is Outcome.FAILED and "invalidCredentials" in bind.reason


def test_an_unknown_address_fails_the_login_search(slapd: Slapd, directory_ca: PrivateCa) -> None:
    report = _run(ldap_settings(slapd.url), directory_ca, login="nobody@example.org")
    assert report.step(steps.LOGIN_SEARCH).outcome is Outcome.FAILED
    assert report.step(steps.USER_BIND).outcome is Outcome.SKIPPED


def test_an_alias_the_recipient_filter_misses_is_named(slapd: Slapd, directory_ca: PrivateCa) -> None:
    report = _run(ldap_settings(slapd.url, filterMailbox="(&(objectClass=inetOrgPerson)(mail=?))"), directory_ca)
    aliases = report.step(steps.ALIASES)
    assert aliases.outcome is Outcome.FAILED and ALICE_ALIAS in aliases.reason


def test_no_password_goes_over_cleartext_without_the_warning_first(
    slapd: Slapd, directory_ca: PrivateCa, monkeypatch: Any
) -> None:
    # The loopback is exempt from the warning; the test stands the server's address in for a remote one.
    from jmapclient.dirtest import ldap_probe

    monkeypatch.setattr(ldap_probe, "ldap_is_cleartext", lambda url, tls: True)
    warned: list[str] = []

    def refuse(warning: str) -> bool:
        warned.append(warning)
        return False

    report = _run(ldap_settings(slapd.url, useTls=False), directory_ca, confirm_cleartext=refuse)
    assert report.step(steps.TLS).outcome is Outcome.WARNING
    assert report.step(steps.SERVICE_BIND).outcome is Outcome.SKIPPED
    assert warned and "unencrypted" in warned[0]


def test_an_unreachable_server_fails_the_connect_step(directory_ca: PrivateCa) -> None:
    from tests.support.directory_servers import free_port

    report = _run(ldap_settings(f"ldap://127.0.0.1:{free_port()}"), directory_ca)
    assert report.step(steps.CONNECT).outcome is Outcome.FAILED
    assert [s.outcome for s in report.steps[1:]] == [Outcome.SKIPPED] * (len(steps.LDAP_PLAN) - 1)


def test_settings_half_edited_in_the_form_are_tested_not_crashed_on(slapd: Slapd, directory_ca: PrivateCa) -> None:
    # Found in the console: a timeout being typed ("t") ended the test with "invalid literal for int()".
    report = _run(ldap_settings(slapd.url, timeout="t"), directory_ca)
    assert report.passed
    bad_port = _run(ldap_settings("ldap://127.0.0.1:port"), directory_ca)
    assert bad_port.step(steps.CONNECT).outcome is Outcome.FAILED
    assert "not valid" in bad_port.step(steps.CONNECT).reason
