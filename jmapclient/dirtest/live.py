"""The live test: from this machine, against the directory's real server. Nothing is written there."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from jmapclient.dirtest.inputs import LiveInput
from jmapclient.dirtest.steps import Outcome, Report

WHERE_IT_RUNS = (
    "This test runs from this machine, not from the mail server: it may reach hosts the server cannot "
    "(or not reach ones it can), and it reads environment variables and files here."
)


RUN = "test"
"""The one step of a test that could not run at all."""


def run_live(wire: Mapping[str, Any], inputs: LiveInput) -> Report:
    """The steps of a live test of ``wire`` (a directory's settings in wire form); never raises but for Ctrl-C.

    A driver may fail on a server's bytes in a way no step foresaw (a decoder's KeyError): that is a failed
    step in words here, for the command line and the console alike, not a traceback.
    """
    try:
        report = _probe(wire, inputs)
    except Exception as error:
        report = Report(str(wire.get("@type")))
        if isinstance(error, ImportError):
            report.add(RUN, Outcome.FAILED, f"the test could not run: {error}",
                       "install the extra: pip install 'mailadmin[directory-test]'")
        else:
            report.add(RUN, Outcome.FAILED, f"the test could not run: the driver failed on the server's answer "
                       f"({type(error).__name__}: {error})",
                       "check that the settings name the directory's own server and port, not another service")
    report.notes[:0] = [WHERE_IT_RUNS, *inputs.said]
    return report


def _probe(wire: Mapping[str, Any], inputs: LiveInput) -> Report:
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
    return report
