"""The running test's line (jmapclient.dirtest.progress): the step under way of the kind's plan, the server the
settings name (never a password written in its URL), the whole seconds so far."""

from __future__ import annotations

from jmapclient.dirtest import steps
from jmapclient.dirtest.progress import running_line
from jmapclient.dirtest.steps import Outcome, Report
from tests.support.directory_seeds import ldap_settings, sql_settings


def test_the_line_names_the_first_step_not_ended_and_the_server() -> None:
    wire = ldap_settings("ldaps://ldap.example:636")
    assert running_line(wire, [], 0.4) == "Testing… step 1 of 8: connect · ldaps://ldap.example:636 · 0 s"
    assert running_line(wire, [steps.CONNECT], 3.9) == "Testing… step 2 of 8: TLS · ldaps://ldap.example:636 · 3 s"
    assert running_line(wire, list(steps.LDAP_PLAN), 12) == "Testing… finishing · ldaps://ldap.example:636 · 12 s"


def test_a_user_and_password_in_the_url_are_not_shown() -> None:
    said = running_line(ldap_settings("ldap://admin:hunter2@ldap.example:389/?x#y"), [], 1)
    assert "hunter2" not in said and "admin" not in said and said.endswith("· ldap://ldap.example:389/ · 1 s")


def test_sql_and_openid_name_their_own_servers_and_plans() -> None:
    store = {"@type": "PostgreSql", "host": "db.example", "port": 5432, "database": "accounts"}
    assert running_line(sql_settings(store), [steps.CONNECT], 2) == (
        "Testing… step 2 of 6: login search · db.example:5432/accounts · 2 s")
    oidc = {"@type": "Oidc", "issuerUrl": "https://id.example/realms/staff"}
    assert running_line(oidc, [steps.DISCOVERY, steps.KEYS], 5) == (
        "Testing… step 3 of 6: token checks · https://id.example/realms/staff · 5 s")


def test_a_report_tells_each_step_as_it_is_added_skipped_ones_too() -> None:
    told: list[str] = []
    report = Report("LDAP", on_add=lambda step: told.append(step.name))
    report.add(steps.CONNECT, Outcome.FAILED, "cannot reach it")
    report.skip_rest(steps.LDAP_PLAN, "not run")
    assert told == list(steps.LDAP_PLAN)
