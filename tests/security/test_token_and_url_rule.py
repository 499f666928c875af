"""One rule for every token and server URL, wherever it comes from (the tester's findings).

A token is trimmed of the white space around it (a line break from ``echo``, a paste's spaces), and
refused before anything is sent when white space, a control character or a character past ASCII is
left inside it: ``--token`` and ``MAILADMIN_TOKEN`` sent " TOKEN " and failed as a network error that
quoted the token, and "tok€" crashed with a traceback. ``profile add`` saved " https://x " and " TOKEN "
as typed; a server URL is trimmed the same way and checked by the one check ``--url`` uses. A
config file that holds a token and that others can read is warned about, as a token file is.
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path

import pytest

from jmapclient.config import Config, ConfigError, Profile, checked_token, server_url
from jmapclient.connection import ConnectionRequest, argv_secret_warning, resolve
from jmapclient.file_safety import readable_by_others
from mailadmin.main import main
from server_stub.runner import StubServer
from tests.support.transport import CountingTransport

URL = "https://mail.example"
ARGV_WARNING = f"warning: {argv_secret_warning('--token')}"
MALFORMED = {
    "a space inside": ("API tok73", "white space or a control character inside it"),
    "a second line": ("API_tok73\nAPI_more", "a control character"),
    "a tab inside": ("API\ttok73", "a control character"),
    "a euro sign": ("tok€73", "a character outside ASCII"),
    "a smart quote": ("\u201cAPI_tok73\u201d", "a character outside ASCII"),
    "a non-breaking space": ("API\u00a0tok73", "a character outside ASCII"),
    "only white space": (" \n ", "it is empty"),
}
"""Tokens no HTTP header can carry, and the words the refusal says (a token file's own refusal of a second line
says "a control character" too)."""
PADDED = [" API_tok73 ", "API_tok73\n", "\tAPI_tok73\r\n", "\ufeffAPI_tok73\n"]
"""Tokens with white space (or a BOM) around them only: each is API_tok73."""


@pytest.fixture(scope="module")
def server() -> Iterator[StubServer]:
    with StubServer(reports=0) as running:
        yield running


def private_file(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    path.chmod(0o600)
    return path


# --- the rule, at the config layer --------------------------------------------------------------------


@pytest.mark.parametrize("padded", PADDED)
def test_a_token_is_trimmed_of_the_white_space_around_it(padded: str) -> None:
    assert checked_token(padded, "--token") == "API_tok73"


@pytest.mark.parametrize(("token", "words"), MALFORMED.values(), ids=MALFORMED.keys())
def test_a_token_that_no_header_can_carry_is_refused_naming_its_source_never_itself(token: str, words: str) -> None:
    with pytest.raises(ConfigError) as refused:
        checked_token(token, "MAILADMIN_TOKEN")
    message = str(refused.value)
    assert message.startswith("cannot use MAILADMIN_TOKEN: ") and words in message
    assert "tok73" not in message


@pytest.mark.parametrize("padded", [" https://mail.example/ ", "https://mail.example/\n", "\thttps://mail.example/"])
def test_a_server_url_is_trimmed_of_the_white_space_around_it(padded: str) -> None:
    assert server_url(padded) == "https://mail.example/"


@pytest.mark.parametrize("url", ["https://mail.exa mple", "https://mail.example/a b", "https://mail.exa\nmple",
                                 "https://mail.example/\tx", "https://mail.example\x00"])
def test_a_server_url_with_white_space_or_a_control_character_inside_is_refused(url: str) -> None:
    # urlsplit drops a line break or a tab inside a URL without a word: the check must not lean on it.
    with pytest.raises(ConfigError, match="is not a server URL"):
        server_url(url)


def test_a_profile_is_saved_trimmed_and_one_with_a_line_break_in_its_token_is_not_saved(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    config = Config(path=path)
    config.put(Profile(name="sp", url=" https://mail.example/ ", token=" API_tok73\n"))
    saved = Config.load(path).profiles["sp"]
    assert (saved.url, saved.token) == ("https://mail.example/", "API_tok73")
    before = path.read_text()
    with pytest.raises(ConfigError, match="cannot use the token of profile 'bad': it holds white space"):
        config.put(Profile(name="bad", url=URL, token="API_tok73\nAPI_more"))
    assert path.read_text() == before


def test_a_stored_token_in_a_config_others_can_read_is_warned_about_as_a_token_file_is(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    Config(path=path).put(Profile(name="sp", url=URL, token="API_tok73"))
    Config(path=path).put(Profile(name="tf", url=URL, token_file=str(tmp_path / "token")))
    path.chmod(0o644)
    profiles = Config.load(path).profiles
    assert profiles["sp"].token_exposed() == readable_by_others(path, "config") is not None
    assert profiles["tf"].token_exposed() is None  # the file holds no token: its token file says for itself
    heard: list[str] = []
    assert profiles["sp"].resolve_token(heard.append) == "API_tok73"
    assert heard == [readable_by_others(path, "config")]
    path.chmod(0o600)
    assert Config.load(path).profiles["sp"].token_exposed() is None


# --- every source of a token, through resolve() ---------------------------------------------------------


def requests_for(token: str, tmp_path: Path) -> dict[str, ConnectionRequest]:
    """One request a source of a token: each gives ``token`` exactly as the person did."""
    stored = Profile(name="sp", url=URL, token=token)
    return {
        "--token": ConnectionRequest(url=URL, token=token, environ={}),
        "MAILADMIN_TOKEN": ConnectionRequest(url=URL, environ={"MAILADMIN_TOKEN": token}),
        "--token-file": ConnectionRequest(url=URL, token_file=str(private_file(tmp_path, "token", token)),
                                          environ={}),
        "--token-stdin": ConnectionRequest(url=URL, token_stdin=True, environ={}, stdin=lambda _: token),
        "profile": ConnectionRequest(profile="sp", environ={}, profiles=lambda _: stored),
        "prompt": ConnectionRequest(url=URL, environ={}, token_prompt=lambda _: token),
    }


SOURCES = ["--token", "MAILADMIN_TOKEN", "--token-file", "--token-stdin", "profile", "prompt"]


@pytest.mark.parametrize("source", SOURCES)
def test_every_source_of_a_token_trims_it_the_same_way(source: str, tmp_path: Path) -> None:
    assert resolve(requests_for(" API_tok73\n", tmp_path)[source]).token == "API_tok73"


@pytest.mark.parametrize("source", SOURCES)
@pytest.mark.parametrize("malformed", ["API tok73", "tok€73"], ids=["space", "euro"])
def test_every_source_of_a_token_refuses_a_malformed_one_without_quoting_it(
        source: str, malformed: str, tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as refused:
        resolve(requests_for(malformed, tmp_path)[source])
    assert "tok73" not in str(refused.value)


# --- the command line, against the bundled server -------------------------------------------------------


@pytest.mark.parametrize("how", ["--token", "env"])
def test_a_token_with_white_space_around_it_logs_in(how: str, server: StubServer, monkeypatch, capsys) -> None:
    given = ["--token", f" {server.admin_token} "] if how == "--token" else []
    if how == "env":
        monkeypatch.setenv("MAILADMIN_TOKEN", f"{server.admin_token}\n")
    assert main(["--url", server.base_url, *given, "query", "Directory", "--ids-only"]) == 0
    captured = capsys.readouterr()
    assert captured.out.split() and captured.err == (f"{ARGV_WARNING}\n" if how == "--token" else "")


@pytest.mark.parametrize("how", ["--token", "env", "--token-file"])
@pytest.mark.parametrize(("token", "words"), [MALFORMED["a space inside"], MALFORMED["a second line"],
                                              MALFORMED["a euro sign"]], ids=["space", "line", "euro"])
def test_a_malformed_token_is_one_local_error_line_exit_1_nothing_sent_and_never_echoed(
        how: str, token: str, words: str, tmp_path: Path, monkeypatch, capsys) -> None:
    given = {"--token": ["--token", token], "env": [],
             "--token-file": ["--token-file", str(private_file(tmp_path, "token", token))]}[how]
    if how == "env":
        monkeypatch.setenv("MAILADMIN_TOKEN", token)
    counting = CountingTransport()
    code = main(["--url", URL, *given, "query", "Directory"], transport=counting)
    err = capsys.readouterr().err
    errors = [line for line in err.splitlines() if line.startswith("error: ")]
    assert code == 1 and counting.requests == []  # a local error (a value), not "network, try again later"
    assert len(errors) == 1 and words in errors[0] and "Traceback" not in err
    assert "tok73" not in err


def test_profile_add_saves_the_url_and_token_trimmed_and_the_profile_then_logs_in(
        server: StubServer, isolated_config: Path, capsys) -> None:
    assert main(["profile", "add", "sp", "--url", f" {server.base_url}/ ", "--token", f" {server.admin_token} "]) == 0
    saved = Config.load(isolated_config).profiles["sp"]
    assert (saved.url, saved.token) == (f"{server.base_url}/", server.admin_token)
    capsys.readouterr()
    assert main(["--profile", "sp", "query", "Directory", "--ids-only"]) == 0
    captured = capsys.readouterr()
    assert captured.out.split() and captured.err == ""


def test_the_global_url_and_profile_add_take_and_refuse_the_same_urls(server: StubServer, isolated_config: Path,
                                                                    capsys) -> None:
    token = ["--token", server.admin_token]
    padded = f" {server.base_url}/ "
    assert main(["--url", padded, *token, "query", "Directory", "--ids-only"]) == 0
    assert main(["profile", "add", "sp", "--url", padded, *token]) == 0
    capsys.readouterr()
    spaced = f"{server.base_url}/a b"
    assert main(["--url", spaced, *token, "query", "Directory"]) == 1
    said_by_url = capsys.readouterr().err.splitlines()[-1]
    assert main(["profile", "add", "sq", "--url", spaced, *token]) == 1
    assert capsys.readouterr().err.splitlines()[-1] == said_by_url
    assert said_by_url.endswith("is not a server URL; write it like https://mail.example.com")
    assert "sq" not in Config.load(isolated_config).profiles


@pytest.mark.parametrize("how", ["--token", "--token-stdin"])
def test_profile_add_refuses_a_token_with_a_line_break_and_writes_nothing(
        how: str, isolated_config: Path, monkeypatch, capsys) -> None:
    given = ["--token", "API_tok73\nAPI_more"]
    if how == "--token-stdin":
        monkeypatch.setattr("sys.stdin", io.StringIO("API tok73\n"))
        given = ["--token-stdin"]
    assert main(["profile", "add", "sp", "--url", URL, *given]) == 1
    err = capsys.readouterr().err
    assert "error: cannot use the token of profile 'sp': it holds white space" in err and "tok73" not in err
    assert not isolated_config.exists()


def test_a_config_others_can_read_that_holds_a_token_is_warned_about(
        server: StubServer, isolated_config: Path, capsys) -> None:
    assert main(["profile", "add", "sp", "--url", server.base_url, "--token", server.admin_token]) == 0
    isolated_config.chmod(0o644)
    capsys.readouterr()
    warning = f"warning: {readable_by_others(isolated_config, 'config')}"
    assert main(["profile", "list"]) == 0
    assert capsys.readouterr().err.splitlines() == [warning]
    assert main(["--profile", "sp", "query", "Directory", "--ids-only"]) == 0
    assert capsys.readouterr().err.splitlines() == [warning]
    isolated_config.chmod(0o600)
    assert main(["profile", "list"]) == 0
    assert capsys.readouterr().err == ""
