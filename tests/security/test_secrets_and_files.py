"""Secrets out of argv, and permissions checked on read (config, token, password and CA files)."""

from __future__ import annotations

import io
import os
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from jmapclient.config import ConfigError
from jmapclient.connection import ConnectionRequest, resolve
from jmapclient.file_safety import LINK_NOT_OWN
from mailadmin.main import main
from server_stub.auth import ADMIN_USER
from server_stub.runner import StubServer
from tests.support.transport import CountingTransport

URL = "https://mail.example"
PASSWORD = "hunter2-for-tests"


@pytest.fixture(scope="module")
def server() -> Iterator[StubServer]:
    with StubServer(admin_password=PASSWORD) as running:
        yield running
ARGV_WARNING = ("warning: --token puts the secret in the process list and your shell history; "
                "prefer --token-file, --token-stdin or MAILADMIN_TOKEN")


def secret_file(folder: Path, name: str, text: str, mode: int) -> Path:
    path = folder / name
    path.write_text(text + "\n")
    path.chmod(mode)
    return path


# --- secrets given as command-line values -----------------------------------------------------------


def test_a_token_in_argv_still_works_with_one_warning_line(server: StubServer, capsys) -> None:
    code = main(["query", "Directory", "--ids-only", "--url", server.base_url, f"--token={server.admin_token}"])
    captured = capsys.readouterr()
    assert captured.err.splitlines() == [ARGV_WARNING]
    assert code == 0 and captured.out.split()


def test_profile_add_with_a_token_in_argv_warns_and_stores_it(capsys) -> None:
    assert main(["profile", "add", "p", "--url", URL, "--token", "API_argv"]) == 0
    captured = capsys.readouterr()
    assert captured.err.splitlines() == [ARGV_WARNING] and "API_argv" not in captured.out


@pytest.mark.parametrize("how", ["file", "stdin", "env"])
def test_the_safer_ways_say_nothing(how: str, server: StubServer, tmp_path: Path, capsys, monkeypatch) -> None:
    extra: list[str] = []
    if how == "file":
        extra = ["--token-file", str(secret_file(tmp_path, "token", server.admin_token, 0o600))]
    elif how == "stdin":
        monkeypatch.setattr("sys.stdin", io.StringIO(server.admin_token + "\n"))
        extra = ["--token-stdin"]
    else:
        monkeypatch.setenv("MAILADMIN_TOKEN", server.admin_token)
    assert main(["query", "Directory", "--ids-only", "--url", server.base_url, *extra]) == 0
    captured = capsys.readouterr()
    assert captured.err == "" and captured.out.split()


def test_an_empty_stdin_is_one_error_line(capsys, monkeypatch) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    assert main(["query", "Directory", "--url", URL, "--token-stdin"]) == 1
    assert capsys.readouterr().err == "error: no token on standard input\n"


def test_a_password_from_stdin_logs_in_with_basic(server: StubServer, capsys, monkeypatch) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(PASSWORD + "\n"))
    assert main(["query", "Directory", "--ids-only", "--url", server.base_url, "--user", ADMIN_USER,
                 "--password-stdin"]) == 0
    captured = capsys.readouterr()
    assert captured.err == "" and captured.out.split()


# --- permissions on read ----------------------------------------------------------------------------


@pytest.mark.parametrize("mode", [0o620, 0o602, 0o666])
def test_a_token_file_others_can_write_is_refused(mode: int, tmp_path: Path, capsys) -> None:
    path = secret_file(tmp_path, "token", "API_x", mode)
    counting = CountingTransport()
    assert main(["query", "Directory", "--url", URL, "--token-file", str(path)], transport=counting) == 1
    assert capsys.readouterr().err == (f"error: refusing the token file {path}: group or others can write it; "
                                       f"fix it with `chmod go-w {path}`\n")
    assert counting.requests == []


@pytest.mark.parametrize(("mode", "what", "flag"), [
    (0o640, "token", "--token-file"), (0o604, "token", "--token-file"), (0o644, "password", "--password-file"),
])
def test_a_secret_file_others_can_read_is_used_with_the_chmod_that_fixes_it(
    mode: int, what: str, flag: str, server: StubServer, tmp_path: Path, capsys
) -> None:
    path = secret_file(tmp_path, what, PASSWORD if what == "password" else server.admin_token, mode)
    login = ["--user", ADMIN_USER] if what == "password" else []
    assert main(["query", "Directory", "--url", server.base_url, *login, flag, str(path)]) == 0
    capsys.readouterr()  # the first run's listing; the second run's stderr is checked
    assert main(["query", "Directory", "--url", server.base_url, *login, flag, str(path)]) == 0
    assert capsys.readouterr().err == (f"warning: the {what} file {path} can be read by group or others; "
                                       f"fix it with `chmod 600 {path}`\n")


def test_a_private_token_file_is_used_without_a_word(server: StubServer, tmp_path: Path, capsys) -> None:
    path = secret_file(tmp_path, "token", server.admin_token, 0o600)
    assert main(["query", "Directory", "--url", server.base_url, "--token-file", str(path)]) == 0
    capsys.readouterr()  # the first run's listing; the second run's stderr is checked
    assert main(["query", "Directory", "--url", server.base_url, "--token-file", str(path)]) == 0
    assert capsys.readouterr().err == ""


def test_a_config_file_others_can_write_is_refused(server: StubServer, isolated_config: Path, capsys) -> None:
    isolated_config.parent.mkdir(parents=True, exist_ok=True)
    isolated_config.write_text(f'default = "p"\n[profiles.p]\nurl = "{server.base_url}"\n'
                               f'token = "{server.admin_token}"\n')
    isolated_config.chmod(0o664)
    assert main(["query", "Directory"]) == 1
    assert capsys.readouterr().err == (f"error: refusing the config file {isolated_config}: group or others can "
                                       f"write it; fix it with `chmod go-w {isolated_config}`\n")
    isolated_config.chmod(0o600)
    assert main(["query", "Directory"]) == 0


@pytest.mark.parametrize("how", ["another owner", "a folder others can write"])
def test_a_config_that_is_a_link_not_yours_alone_is_refused_when_read(
    how: str, server: StubServer, isolated_config: Path, tmp_path: Path, capsys
) -> None:
    # Writes refused such a link, reads followed it: its profile named a server and the person's own token
    # file, and `query Directory` sent the token there without a word (tester81). ssh refuses such a config.
    token = secret_file(tmp_path, "token", server.admin_token, 0o600)
    shared = tmp_path / "shared"
    shared.mkdir()
    planted = secret_file(shared, "config.toml", f'default = "p"\n[profiles.p]\nurl = "{server.base_url}"\n'
                                                 f'token_file = "{token}"', 0o644)
    isolated_config.parent.mkdir(parents=True, exist_ok=True)
    isolated_config.symlink_to(planted)
    if how == "another owner":
        if os.getuid() != 0:
            pytest.skip("making a link another user owns needs root")
        os.lchown(isolated_config, 4242, 4242)
    else:  # the link's target in a folder others can write: they could swap in their own
        shared.chmod(0o777)
    assert main(["query", "Directory"]) == 1
    err = capsys.readouterr().err
    assert err == f"error: cannot read {isolated_config}: {LINK_NOT_OWN}\n"  # its content is never quoted


def test_a_ca_file_others_can_write_is_refused(tmp_path: Path) -> None:
    ca = secret_file(tmp_path, "ca.pem", "-----BEGIN CERTIFICATE-----", 0o646)
    with pytest.raises(ConfigError, match=r"refusing the CA file .* group or others can write it"):
        resolve(ConnectionRequest(url=URL, ca_file=str(ca),
                environ={"MAILADMIN_TOKEN": "t"})).open_client()


def test_with_no_token_anywhere_a_terminal_is_asked_and_a_script_is_told() -> None:
    asked: list[str] = []
    found = resolve(ConnectionRequest(url=URL, environ={},
                    token_prompt=lambda url: asked.append(url) or "API_typed"))
    assert asked == [URL] and found.token == "API_typed"
    with pytest.raises(ConfigError, match=re.escape(f"no token given for {URL}: use --token-file")):
        resolve(ConnectionRequest(url=URL, environ={}))  # stdin: no terminal
