"""The live test: from this machine, against the directory's real server. Nothing is written there."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from jmapclient.dirtest.inputs import LiveInput
from jmapclient.dirtest.steps import Report

WHERE_IT_RUNS = (
    "This test runs from this machine, not from the mail server: it may reach hosts the server cannot "
    "(or not reach ones it can), and it reads environment variables and files here."
)


def run_live(wire: Mapping[str, Any], inputs: LiveInput) -> Report:
    """The steps of a live test of ``wire`` (a directory's settings in wire form)."""
    kind = wire.get("@type")
    if kind == "Ldap":
        from jmapclient.dirtest.ldap_probe import probe_ldap

        report = probe_ldap(wire, inputs)
    elif kind == "Sql":
        from jmapclient.dirtest.sql_probe import probe_sql

        report = probe_sql(wire, inputs)
    elif kind == "Oidc":
        from jmapclient.dirtest.oidc_probe import probe_oidc

        report = probe_oidc(wire, inputs)
    else:
        report = Report(str(kind))
    report.notes[:0] = [WHERE_IT_RUNS, *inputs.said]
    return report
