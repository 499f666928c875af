"""Local files that cannot trap the product (#28.3, #28.4): bounded, regular, never through a planted link.

Each file here is one the product reads or writes in its own folders (names cache, digest cache,
remembered figures, config, `serve`'s credentials) or one a person names (token, password, CA).
A damaged one is set aside with one line; none crashes, hangs or fills memory.
"""

from __future__ import annotations

import json
import os
import sqlite3
import stat
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from jmapclient.config import Config, ConfigError, read_secret_file
from jmapclient.dmarc.digest_store import DigestStore
from jmapclient.dmarc.insight.names import NameCache, NameStatus
from jmapclient.file_safety import MAX_JSON_DEPTH, NotAPath, json_bounded, local_path
from jmapclient.transport_security import TransportSecurity
from mailadmin.main import main
from server_stub.credentials import write_credentials
from tests.support.digest_cache import EVERYTHING, filled

DEEP = "[" * 100_000 + "]" * 100_000
HANG = 10.0
"""Seconds a read may take here before it is called a hang (each takes milliseconds)."""


def within(seconds: float, action: Callable[[], Any]) -> Any:
    """``action()``'s result; the test fails (instead of hanging the suite) when it blocks."""
    outcome: list[Any] = []

    def run() -> None:
        try:
            outcome.append((action(), None))
        except BaseException as error:
            outcome.append((None, error))

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    assert outcome, f"still blocked after {seconds} s"
    result, error = outcome[0]
    if error is not None:
        raise error
    return result


def private(path: Path, content: bytes) -> Path:
    path.write_bytes(content)
    path.chmod(0o600)
    return path


# --- the DNS names cache -------------------------------------------------------------------------


def names_cache_lookup(path: Path) -> tuple[Any, list[str]]:
    said: list[str] = []
    cache = NameCache(path, warn=said.append)
    return within(HANG, lambda: cache.get("192.0.2.1")), said


@pytest.mark.parametrize("plant", ["nested", "fifo", "dev-zero", "binary"])
def test_a_damaged_names_cache_is_set_aside_in_one_line(tmp_path: Path, plant: str) -> None:
    # nested: RecursionError at every start of the console and of `dmarc-advice`; fifo: the console
    # froze for good; /dev/zero (a link): read until memory ran out.
    path = tmp_path / "dmarc-names.json"
    if plant == "nested":
        private(path, DEEP.encode())
    elif plant == "fifo":
        os.mkfifo(path)
    elif plant == "dev-zero":
        path.symlink_to("/dev/zero")
    else:
        private(path, b"\xff\xfe{")
    found, said = names_cache_lookup(path)
    assert found is None
    assert len(said) == 1 and "set aside as dmarc-names.json.damaged" in said[0]
    assert not path.exists() and not path.is_symlink()
    assert os.path.lexists(tmp_path / "dmarc-names.json.damaged")


def test_a_names_cache_that_is_a_link_is_not_followed(tmp_path: Path) -> None:
    # The product writes this file: a link planted there must not be read (or later written) through.
    elsewhere = private(tmp_path / "elsewhere.json", json.dumps(
        {"192.0.2.1": {"status": "confirmed", "ptr": "planted.example", "at": 9e18}}).encode())
    (tmp_path / "dmarc-names.json").symlink_to(elsewhere)
    found, said = names_cache_lookup(tmp_path / "dmarc-names.json")
    assert found is None and "symbolic link" in said[0]
    assert elsewhere.read_bytes().startswith(b"{")  # the target is left as it was


def test_a_sound_names_cache_is_read(tmp_path: Path) -> None:
    path = private(tmp_path / "dmarc-names.json", json.dumps(
        {"192.0.2.1": {"status": "confirmed", "ptr": "mx.example", "at": 9e18}}).encode())
    found, said = names_cache_lookup(path)
    assert found == (NameStatus.CONFIRMED, "mx.example") and said == []


def test_json_depth_is_bounded_and_strings_do_not_count() -> None:
    assert json_bounded('["[[[[[[", {"a": "]]]]"}]') == ["[[[[[[", {"a": "]]]]"}]
    nested = "[" * MAX_JSON_DEPTH + "]" * MAX_JSON_DEPTH
    assert json_bounded(nested) is not None
    with pytest.raises(ValueError, match="nested deeper than 64"):
        json_bounded("[" + nested + "]")
    with pytest.raises(ValueError):
        json_bounded('["\\"[[[[" ')  # an escaped quote does not end the string; unbalanced is JSON's error


# --- the digest cache and its remembered figures --------------------------------------------------


def test_a_link_at_the_digest_cache_path_leaves_its_target_alone(tmp_path: Path) -> None:
    # Its target (another program's SQLite database) was chmod'ed 0600 and its `meta` table emptied.
    other = tmp_path / "other.sqlite"
    with sqlite3.connect(other) as db:
        db.execute("CREATE TABLE meta(key TEXT, value TEXT)")
        db.execute("INSERT INTO meta VALUES ('owner', 'someone else')")
    other.chmod(0o644)
    link = tmp_path / "cache.sqlite"
    link.symlink_to(other)
    store = DigestStore(link)
    assert store.set_aside is not None and "symbolic link" in store.set_aside
    store.close()
    assert stat.S_IMODE(other.stat().st_mode) == 0o644
    with sqlite3.connect(other) as db:
        assert db.execute("SELECT * FROM meta").fetchall() == [("owner", "someone else")]
    assert not link.is_symlink() and link.is_file()  # a fresh cache of its own, owner-only
    assert stat.S_IMODE(link.stat().st_mode) == 0o600


def test_a_fifo_at_the_digest_cache_path_is_set_aside(tmp_path: Path) -> None:
    path = tmp_path / "cache.sqlite"
    os.mkfifo(path)
    store = within(HANG, lambda: DigestStore(path))
    assert store.set_aside is not None and "not a regular file" in store.set_aside
    store.close()


def test_a_deeply_nested_remembered_figures_entry_is_counted_again(tmp_path: Path) -> None:
    # The console crashed on every start (RecursionError out of the remembered figures).
    path = tmp_path / "d.sqlite"
    filled(path)
    store = DigestStore(path)
    assert store.figures(*EVERYTHING, limit=10).overview.messages == 5  # remembered in the file
    store.close()
    with sqlite3.connect(path) as db:
        db.execute("UPDATE figures SET body=?", (DEEP,))
    store = DigestStore(path)
    assert store.figures(*EVERYTHING, limit=10).overview.messages == 5
    store.close()


def test_new_data_folders_are_private(tmp_path: Path) -> None:
    written = write_credentials(tmp_path / "new" / "serve.credentials", [("url", "http://127.0.0.1:1")])
    assert stat.S_IMODE(written.parent.stat().st_mode) == 0o700
    DigestStore(tmp_path / "digests" / "d.sqlite").close()
    assert stat.S_IMODE((tmp_path / "digests").stat().st_mode) == 0o700


# --- serve's credentials --------------------------------------------------------------------------


@pytest.mark.parametrize("plant", ["link", "fifo"])
def test_serve_never_writes_credentials_through_a_planted_file(tmp_path: Path, plant: str) -> None:
    target = private(tmp_path / "authorized_keys", b"ssh-ed25519 AAAA mine\n")
    path = tmp_path / "store.sqlite.credentials"
    if plant == "link":
        path.symlink_to(target)
    else:
        os.mkfifo(path)
    with pytest.raises(OSError, match=r"symbolic link|not a regular file"):
        within(HANG, lambda: write_credentials(path, [("admin token", "secret")]))
    assert target.read_bytes() == b"ssh-ed25519 AAAA mine\n"


# --- the config, token, password and CA files ------------------------------------------------------


def test_a_config_that_is_a_fifo_is_refused_not_waited_on(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    os.mkfifo(path)
    with pytest.raises(ConfigError, match=r"not a regular file \(a FIFO\)"):
        within(HANG, lambda: Config.load(path))


def test_a_bom_in_a_token_file_is_stripped(tmp_path: Path) -> None:
    # Notepad writes one: the token went into the HTTP header with it, a UnicodeEncodeError traceback.
    token = private(tmp_path / "token", "\ufeffAPI_abc\r\n".encode())
    assert read_secret_file(str(token), "token") == "API_abc"


@pytest.mark.parametrize("content", [b"secret-token\x00tail", b"secret-token\nsecond-line",
                                     b"\xef\xbb\xbfsecret-token\x1b]0"])
def test_a_token_file_with_a_control_character_is_refused_without_quoting_it(tmp_path: Path, content: bytes) -> None:
    # A NUL byte: the error quoted the whole token.
    token = private(tmp_path / "token", content)
    with pytest.raises(ConfigError, match="control character") as refused:
        read_secret_file(str(token), "token")
    assert "secret" not in str(refused.value).replace("the secret alone", "")


@pytest.mark.parametrize("make", ["fifo", "device"])
@pytest.mark.parametrize("role", ["token", "password", "CA"])
def test_a_fifo_or_device_as_a_secret_or_ca_file_is_refused_without_reading(tmp_path: Path, make: str,
                                                                          role: str) -> None:
    # `--ca-file` naming a FIFO hung the CLI (and a profile's froze the console).
    path = tmp_path / "named"
    if make == "fifo":
        os.mkfifo(path)
    else:
        path = Path("/dev/zero")

    def use() -> ConfigError:
        with pytest.raises(ConfigError) as refused:
            if role == "CA":
                TransportSecurity(str(path)).verify()
            else:
                read_secret_file(str(path), role)
        return refused.value

    assert "not a regular file" in str(within(HANG, use))


@pytest.mark.parametrize("text", ["~nosuchuser/x", "a\0b", ""])
def test_what_cannot_be_a_path_is_one_error(text: str) -> None:
    with pytest.raises(NotAPath):
        local_path(text)


def test_the_cli_says_one_line_for_a_token_file_that_cannot_be_a_path(capsys: pytest.CaptureFixture[str]) -> None:
    # A RuntimeError traceback ("Could not determine home directory").
    assert main(["--url", "http://127.0.0.1:9", "--token-file", "~nosuchuser/x", "query", "Directory"]) != 0
    err = capsys.readouterr().err
    assert "Traceback" not in err and err.count("\n") == 1 and "~nosuchuser is the home folder of no user" in err
