"""One decision for the CLI and the console: flags > --profile > environment > the default profile.

A profile is in effect only for its own URL: its token, read-only flag, CA and cleartext
permission never follow ``--url`` to another server.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from jmapclient.config import ConfigError
from jmapclient.connection import ConnectionRequest, given_explicitly, resolve
from mailadmin.cli.parser import build_parser
from mailadmin.main import build_parser as console_parser
from mailadmin.main import main
from tests.support.transport import CountingTransport

A, B, C = "https://a.example", "https://b.example", "https://c.example"


@pytest.fixture(autouse=True)
def stored(isolated_config: Path) -> None:
    isolated_config.parent.mkdir(parents=True, exist_ok=True)
    isolated_config.write_text(
        'default = "admin"\n'
        f'[profiles.admin]\nurl = "{A}"\ntoken = "API_admin"\n'
        f'[profiles.viewer]\nurl = "{C}"\ntoken = "API_viewer"\nread_only = true\ninsecure = true\n'
    )
    isolated_config.chmod(0o600)


def decide(*argv: str, env: dict[str, str] | None = None):  # type: ignore[no-untyped-def]
    args = build_parser().parse_args(["query", "Directory", *argv])
    return resolve(ConnectionRequest(url=args.url, token=args.token, profile=args.profile, timeout=None,
                   environ=env or {}))


@pytest.mark.parametrize(("argv", "env", "expected"), [
    # nothing given: the default profile, whole
    ((), {}, (A, "API_admin", "admin", False)),
    # --profile beats the default profile
    (("--profile", "viewer"), {}, (C, "API_viewer", "viewer", True)),
    # a named --profile beats the environment: its server, its token, its read-only flag
    (("--profile", "viewer"), {"MAILADMIN_URL": B, "MAILADMIN_TOKEN": "API_env"}, (C, "API_viewer", "viewer", True)),
    (("--profile", "viewer"), {"MAILADMIN_TOKEN": "API_env"}, (C, "API_viewer", "viewer", True)),
    # the environment beats the default profile
    ((), {"MAILADMIN_URL": B, "MAILADMIN_TOKEN": "API_env"}, (B, "API_env", None, False)),
    ((), {"MAILADMIN_TOKEN": "API_env"}, (A, "API_env", "admin", False)),
    # flags beat the environment
    (("--url", B, "--token=API_flag"), {"MAILADMIN_URL": C, "MAILADMIN_TOKEN": "API_env"},
     (B, "API_flag", None, False)),
    # a token flag alone keeps the default profile's server and its read-only flag, never its token
    (("--token=API_ro",), {}, (A, "API_ro", "admin", False)),
    (("--profile", "viewer", "--token=API_ro"), {}, (C, "API_ro", "viewer", True)),
])
def test_precedence_matrix(argv: tuple[str, ...], env: dict[str, str], expected: tuple[object, ...]) -> None:
    found = decide(*argv, env=env)
    assert (found.url, found.credentials.header.removeprefix("Bearer "), found.profile, found.read_only) == expected


def test_another_url_never_gets_the_default_profile_token() -> None:
    with pytest.raises(ConfigError, match=f"no token given for {B}"):
        decide("--url", B)


def test_a_profile_insecure_flag_does_not_follow_url_to_another_server() -> None:
    assert decide("--profile", "viewer").security.insecure
    assert not decide("--profile", "viewer", "--url", B, "--token=API_b").security.insecure


@pytest.mark.parametrize(("argv", "env", "explicit"), [
    ((), {}, False), (("--profile", "viewer"), {}, False), (("--url", B), {}, True),
    (("--token-file", "/t"), {}, True), (("-k",), {}, True), ((), {"MAILADMIN_URL": B}, True),
    ((), {"MAILADMIN_TOKEN": "t"}, True), ((), {"MAILADMIN_PASSWORD": "p"}, False),
    (("--profile", "viewer"), {"MAILADMIN_URL": B, "MAILADMIN_TOKEN": "t"}, False),
])
def test_the_console_connects_at_once_exactly_when_flags_or_environment_say_where(
    argv: tuple[str, ...], env: dict[str, str], explicit: bool
) -> None:
    assert given_explicitly(console_parser().parse_args(list(argv)), env) is explicit


def test_a_read_only_profile_refuses_changes_locally_and_says_why(capsys) -> None:
    for argv in (["create", "Directory/Ldap", "--field", "description=x"],
                 ["update", "Directory", "d1", "--field", "description=x"],
                 ["delete", "Directory", "--ids", "d1"]):
        counting = CountingTransport()
        assert main([*argv, "--profile", "viewer", "--insecure"], transport=counting) == 1
        err = capsys.readouterr().err
        assert f"error: profile 'viewer' is read-only: {argv[0]} changes the server and is refused here" in err
        assert counting.requests == []
