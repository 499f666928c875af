"""Basic login from the command line and from profiles, beside Bearer (wire-notes.md: the real
server takes both, and its recovery administrator only Basic)."""

from __future__ import annotations

import base64
import io
import stat
from pathlib import Path

import httpx
import pytest

from jmapclient.auth import BasicLogin, BearerToken
from jmapclient.config import MAX_SECRET_FILE, Config, ConfigError, Profile
from jmapclient.connection import ConnectionRequest, read_stdin_line, resolve
from mailadmin.main import main
from tests.support.fake_jmap import FakeServer

URL = "https://mail.example"


def _basic(user: str, password: str) -> str:
    return "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()


def _never(user: str) -> str:
    raise AssertionError("no prompt expected")


def test_user_with_password_file_then_env_then_prompt(tmp_path: Path) -> None:
    secret = tmp_path / "pw"
    secret.write_text("from-file\n")
    env = {"MAILADMIN_PASSWORD": "env"}
    by_file = resolve(ConnectionRequest(URL, user="admin", password_file=str(secret), environ=env, prompt=_never))
    by_env = resolve(ConnectionRequest(URL, user="admin", environ=env, prompt=_never))
    asked: list[str] = []
    by_prompt = resolve(ConnectionRequest(URL, user="admin", environ={}, prompt=lambda u: asked.append(u) or "typed"))
    env_user = {"MAILADMIN_USER": "root", "MAILADMIN_PASSWORD": "p"}
    from_env_user = resolve(ConnectionRequest(URL, environ=env_user, prompt=_never))
    assert by_file.credentials == BasicLogin("admin", "from-file")
    assert by_env.credentials == BasicLogin("admin", "env")
    assert by_prompt.credentials == BasicLogin("admin", "typed") and asked == ["admin"]
    assert from_env_user.credentials == BasicLogin("root", "p")
    assert "from-file" not in repr(by_file) and "typed" not in repr(by_prompt.credentials)


def test_a_token_flag_beats_the_user_of_the_environment() -> None:
    got = resolve(ConnectionRequest(url=URL, token="API_t", timeout=None,
                  environ={"MAILADMIN_USER": "root", "MAILADMIN_PASSWORD": "p"}, prompt=_never))
    assert got.credentials == BearerToken("API_t")


def test_user_and_token_flags_together_are_refused() -> None:
    with pytest.raises(ConfigError, match="not both"):
        resolve(ConnectionRequest(url=URL, token="API_t", user="admin", environ={}))


def test_no_terminal_and_no_password_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys.stdin.isatty", lambda: False)
    with pytest.raises(ConfigError, match="--password-stdin or set MAILADMIN_PASSWORD"):
        resolve(ConnectionRequest(url=URL, user="admin", environ={}))


def test_the_cli_sends_basic_with_user_and_password_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    secret = tmp_path / "pw"
    secret.write_text("s3cret-pw\n")
    server = FakeServer(api=lambda body: {"methodResponses": [
        ["x:Directory/query", {"ids": [], "position": 0, "total": 0}, "c0"],
        ["x:Directory/get", {"list": [], "notFound": []}, "c1"]]})
    code = main(["query", "Directory", "--url", URL, "--user", "admin", "--password-file", str(secret)],
                transport=httpx.MockTransport(server.handler))
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert {r.headers["Authorization"] for r in server.requests} == {_basic("admin", "s3cret-pw")}
    assert "s3cret-pw" not in captured.out + captured.err


def test_a_profile_holds_a_user_and_a_password_file_and_logs_in_with_basic(
    tmp_path: Path, isolated_config: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    secret = tmp_path / "pw"
    secret.write_text("pw-in-file")
    assert main(["profile", "add", "recovery", "--url", URL, "--user", "admin", "--password-file", str(secret)]) == 0
    stored = Config.load().profiles["recovery"]
    assert (stored.user, stored.password_file, stored.token) == ("admin", str(secret), None)
    assert "pw-in-file" not in isolated_config.read_text()
    assert stat.S_IMODE(isolated_config.stat().st_mode) == 0o600
    assert main(["profile", "list"]) == 0
    assert "user admin" in capsys.readouterr().out
    got = resolve(ConnectionRequest(profile="recovery", environ={}))
    assert got.credentials == BasicLogin("admin", "pw-in-file")
    # the stored password goes to that profile's server only
    with pytest.raises(ConfigError, match="no token given"):
        resolve(ConnectionRequest(url="https://elsewhere.example", profile="recovery", timeout=None,
                environ={}))


def test_a_password_file_without_a_user_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    secret = tmp_path / "pw"
    secret.write_text("x")
    assert main(["profile", "add", "p", "--url", URL, "--token", "API_t", "--password-file", str(secret)]) == 1
    assert "--password-file belongs to --user" in capsys.readouterr().err


def _ended(prompt: str) -> str:
    raise EOFError  # Ctrl-D at the prompt: getpass sees the input end


@pytest.mark.parametrize("argv", [["--user", "admin"], []], ids=["password", "token"])
def test_ctrl_d_at_a_secret_prompt_is_said_in_words(argv: list[str], monkeypatch: pytest.MonkeyPatch,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    # getpass's EOFError was a traceback, exit 1, at every secret prompt (the tester's).
    monkeypatch.setattr("sys.stdin.isatty", lambda: True)
    monkeypatch.setattr("getpass.getpass", _ended)
    monkeypatch.delenv("MAILADMIN_TOKEN", raising=False)
    code = main(["query", "Directory", "--url", URL, *argv])
    err = capsys.readouterr().err
    assert code != 0 and "Traceback" not in err
    assert f"no {'password' if argv else 'token'} given (the input ended)" in err, err


def test_token_stdin_at_a_terminal_asks_without_echo(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    # At a terminal --token-stdin waited with no prompt and echoed the token as typed (the tester's).
    asked: list[str] = []
    monkeypatch.setattr("sys.stdin.isatty", lambda: True)
    monkeypatch.setattr("getpass.getpass", lambda prompt: asked.append(prompt) or "typed-token\n")
    monkeypatch.setattr("sys.stdin.readline", lambda: pytest.fail("read with echo"))
    assert main(["profile", "add", "typed", "--url", URL, "--token-stdin"]) == 0
    assert asked == ["token: "]
    assert Config.load().profiles["typed"].token == "typed-token"


@pytest.mark.parametrize(("flags", "said"), [
    ({"token": ""}, "--token is empty"),
    ({"token": "   "}, "--token is empty"),
    ({"token_file": ""}, "--token-file is empty"),
    ({"user": ""}, "--user is empty"),
    ({"url": ""}, "--url is empty"),
    ({"profile": ""}, "--profile is empty"),
])
def test_a_flag_given_empty_is_refused_not_passed_over(flags: dict[str, str], said: str) -> None:
    # `--token "$TOKEN"` with TOKEN unset sent the default profile's token to the server instead.
    profile = Profile("prod", URL, token="API_profile")
    request = ConnectionRequest(**{"url": URL, **flags}, environ={}, prompt=_never, profiles=lambda _: profile)
    with pytest.raises(ConfigError, match=said):
        resolve(request)


def test_an_empty_environment_variable_still_means_unset() -> None:
    profile = Profile("prod", URL, token="API_profile")
    got = resolve(ConnectionRequest(environ={"MAILADMIN_TOKEN": "", "MAILADMIN_URL": ""}, prompt=_never,
                                    profiles=lambda _: profile))
    assert got.credentials == BearerToken("API_profile")


@pytest.mark.parametrize("user", ["ad:min", "admin\n", "ad\tmin"])
def test_a_basic_user_name_that_cannot_be_sent_as_typed_is_refused(user: str) -> None:
    with pytest.raises(ConfigError, match=r"colon|control character"):
        resolve(ConnectionRequest(URL, user=user, environ={"MAILADMIN_PASSWORD": "pw"}, prompt=_never))
    with pytest.raises(ConfigError, match=r"colon|control character"):
        resolve(ConnectionRequest(URL, environ={"MAILADMIN_USER": user, "MAILADMIN_PASSWORD": "pw"}, prompt=_never))
    with pytest.raises(ConfigError, match="the user of profile 'r'"):
        Profile("r", URL, user=user).credentials({"MAILADMIN_PASSWORD": "pw"})


@pytest.mark.parametrize("flag", ["--token", "--token-file", "--user", "--password-file", "--ca-file"])
def test_profile_add_refuses_a_flag_given_empty(flag: str, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    # `profile add x --url … --token ''` said "added profile x", a profile that failed at its first use (tester83).
    monkeypatch.setenv("MAILADMIN_CONFIG", str(tmp_path / "config.toml"))
    assert main(["profile", "add", "x", "--url", URL, flag, ""]) == 1
    assert f"{flag} is empty" in capsys.readouterr().err
    assert not (tmp_path / "config.toml").exists()


@pytest.mark.parametrize("argv", [["profile", "add", "x", "--url", URL, "--token-stdin"],
                                  ["query", "Directory", "--url", URL, "--user", "admin", "--password-stdin"]],
                         ids=["token", "password"])
def test_endless_standard_input_for_a_secret_is_refused_in_one_line(
        argv: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    # `--token-stdin < /dev/zero`: an unbounded readline filled memory to a MemoryError traceback (the tester's).
    monkeypatch.setenv("MAILADMIN_CONFIG", str(tmp_path / "config.toml"))
    with open("/dev/zero") as endless:
        monkeypatch.setattr("sys.stdin", endless)
        assert main(argv) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"on standard input: its line is longer than {MAX_SECRET_FILE:,}" in err, err
    assert "\0" not in err and not (tmp_path / "config.toml").exists()


@pytest.mark.parametrize("line_break", ["", "\n", "\r\n"])
def test_a_secret_on_standard_input_as_long_as_a_secret_file_may_hold_is_read(
        line_break: str, monkeypatch: pytest.MonkeyPatch) -> None:
    longest = "A" * MAX_SECRET_FILE
    monkeypatch.setattr("sys.stdin", io.StringIO(longest + line_break))
    assert read_stdin_line("token") == longest
    monkeypatch.setattr("sys.stdin", io.StringIO(longest + "A" + line_break))
    with pytest.raises(ConfigError, match="longer than"):
        read_stdin_line("token")
