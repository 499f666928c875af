"""Each fix names what to check: where the refused bind secret came from; TLS when the database refused it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from jmapclient.dirtest import steps
from jmapclient.dirtest.inputs import LiveInput
from jmapclient.dirtest.live import run_live
from jmapclient.dirtest.steps import Outcome, Step
from tests.support.directory_seeds import ALICE, ALICE_PASSWORD, ldap_settings, sql_settings
from tests.support.directory_servers import Slapd
from tests.support.tls import PrivateCa


def _service_bind(wire: dict[str, Any], directory_ca: PrivateCa, **inputs: Any) -> Step:
    report = run_live(wire, LiveInput(login=ALICE, password=ALICE_PASSWORD, ca_file=str(directory_ca.ca_file),
                                      **inputs))
    bind = report.step(steps.SERVICE_BIND)
    assert bind.outcome is Outcome.FAILED, report.steps
    return bind


def test_a_wrong_bind_secret_from_a_file_names_the_file(slapd: Slapd, directory_ca: PrivateCa,
                                                         tmp_path: Path) -> None:
    secret = tmp_path / "bind-secret"
    secret.write_text("not-the-secret\n")
    wire = ldap_settings(slapd.url, bindSecret={"@type": "File", "filePath": str(secret)})
    fix = _service_bind(wire, directory_ca).fix
    assert fix == f"check the bind DN, and the bind secret (read from the file {secret} on this machine)"


def test_a_wrong_bind_secret_from_the_environment_names_the_variable(
    slapd: Slapd, directory_ca: PrivateCa, monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("TEST_WRONG_BIND", "not-the-secret")
    wire = ldap_settings(slapd.url, bindSecret={"@type": "EnvironmentVariable", "variableName": "TEST_WRONG_BIND"})
    assert "the environment variable TEST_WRONG_BIND on this machine" in _service_bind(wire, directory_ca).fix


def test_a_wrong_bind_secret_typed_in_says_so(slapd: Slapd, directory_ca: PrivateCa) -> None:
    wire = ldap_settings(slapd.url, bindSecret={"@type": "Value", "secret": "****"})
    fix = _service_bind(wire, directory_ca, ask_secret=lambda _prompt: "not-the-secret").fix
    assert fix == "check the bind DN, and the bind secret (typed in)"


def test_a_database_without_tls_asked_for_it_names_tls_in_the_fix(postgres_store: dict[str, Any]) -> None:
    report = run_live(sql_settings({**postgres_store, "useTls": True}), LiveInput(login=ALICE))
    connect = report.step(steps.CONNECT)
    assert connect.outcome is Outcome.FAILED and "SSL" in connect.reason, connect
    assert connect.fix.startswith("check TLS: Use TLS is on"), connect.fix
