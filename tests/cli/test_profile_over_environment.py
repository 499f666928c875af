"""A ``--profile`` typed on the command line beats MAILADMIN_URL / MAILADMIN_TOKEN set long before.

The tester's finding: with the environment naming server A, ``--profile stal`` listed server A
without a word, and a read-only profile was bypassed the same way (a real apply went through).
The environment still beats the *default* profile.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from jmapclient.connection import ConnectionRequest, resolve
from mailadmin.main import main
from tests.support.transport import CountingTransport

ENV_SERVER, PROFILE_SERVER = "https://env.example", "https://prod.example"


@pytest.fixture(autouse=True)
def profiles(isolated_config: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    isolated_config.parent.mkdir(parents=True, exist_ok=True)
    isolated_config.write_text(
        'default = "lab"\n'
        '[profiles.lab]\nurl = "https://lab.example"\ntoken = "API_lab"\n'
        f'[profiles.prod]\nurl = "{PROFILE_SERVER}"\ntoken = "API_prod"\nread_only = true\n'
    )
    isolated_config.chmod(0o600)
    monkeypatch.setenv("MAILADMIN_URL", ENV_SERVER)
    monkeypatch.setenv("MAILADMIN_TOKEN", "API_env")


def test_a_named_profile_is_where_the_command_goes_and_the_left_aside_environment_is_said(
    capsys: pytest.CaptureFixture[str]
) -> None:
    counting = CountingTransport()
    main(["--profile", "prod", "query", "Directory"], transport=counting)
    assert counting.requests, "the query was sent"
    assert {request.url.host for request in counting.requests} == {"prod.example"}
    assert {request.headers["authorization"] for request in counting.requests} == {"Bearer API_prod"}
    assert ("warning: --profile prod is used: MAILADMIN_URL, MAILADMIN_TOKEN from the environment left aside"
            in capsys.readouterr().err)


def test_a_named_read_only_profile_refuses_a_change_whatever_the_environment_names(
    capsys: pytest.CaptureFixture[str]
) -> None:
    counting = CountingTransport()
    assert main(["--profile", "prod", "delete", "Directory", "d1"], transport=counting) == 1
    assert "error: profile 'prod' is read-only: delete changes the server" in capsys.readouterr().err
    assert counting.requests == []


def test_the_environment_still_beats_the_default_profile() -> None:
    found = resolve(ConnectionRequest(environ={"MAILADMIN_URL": ENV_SERVER, "MAILADMIN_TOKEN": "API_env"}))
    assert (found.url, found.token, found.profile) == (ENV_SERVER, "API_env", None)


def test_the_environment_ca_still_fills_in_for_a_named_profile_without_one() -> None:
    found = resolve(ConnectionRequest(profile="prod", environ={"MAILADMIN_CA_FILE": "/etc/ca.pem"}))
    assert (found.url, found.security.ca_file) == (PROFILE_SERVER, "/etc/ca.pem")
