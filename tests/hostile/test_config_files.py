"""A hostile or broken config, token or password file: one error line, bounded reads, never a traceback."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from jmapclient.config import MAX_CONFIG_FILE, MAX_SECRET_FILE, Config, ConfigError, read_secret_file
from mailadmin.main import main


def private(path: Path, content: bytes) -> Path:
    path.write_bytes(content)
    path.chmod(0o600)
    return path


@pytest.mark.parametrize(("content", "words"), [
    (b"\xff\xfe\x00binary", "it is not UTF-8 text"),
    (b"profiles = 5", "`profiles` must be a table"),
    (b'keys = "x"', "`keys` must be a table"),
    (b"keys = [1, 2]", "`keys` must be a table"),
    (b"# padding\n" * (MAX_CONFIG_FILE // 10 + 1), "larger than 1,048,576 bytes"),
], ids=["binary", "profiles-int", "keys-str", "keys-list", "huge"])
def test_a_broken_config_is_one_error_line(tmp_path, monkeypatch, capsys, content, words) -> None:
    # Each was an AttributeError or UnicodeDecodeError traceback (`mailadmin profile list`, the console).
    config = private(tmp_path / "config.toml", content)
    monkeypatch.setenv("MAILADMIN_CONFIG", str(config))
    with pytest.raises(ConfigError, match=words):
        Config.load(config)
    assert main(["profile", "list"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: ") and words in err and "Traceback" not in err


def test_a_huge_token_file_is_refused(tmp_path) -> None:
    # Read whole: `--token-file /dev/zero` grew to a MemoryError (shown here with a large file).
    token = private(tmp_path / "token", b"A" * (MAX_SECRET_FILE + 1))
    with pytest.raises(ConfigError, match="larger than 65,536 bytes"):
        read_secret_file(str(token), "token")


def test_a_named_token_fifo_is_refused_not_waited_on(tmp_path) -> None:
    # Was read as empty; refused now without opening it (#28.3): a FIFO with a writer that never
    # writes, or a device, would hold the command. A pipe the shell hands over is still read (below).
    fifo = tmp_path / "token"
    os.mkfifo(fifo)
    outcome: list[BaseException] = []

    def read() -> None:
        try:
            read_secret_file(str(fifo), "token")
        except ConfigError as error:
            outcome.append(error)

    thread = threading.Thread(target=read, daemon=True)
    thread.start()
    thread.join(5)
    assert outcome and "not a regular file (a FIFO)" in str(outcome[0])


def test_a_token_from_a_pipe_still_works() -> None:
    # `--token-file <(pass show mail)` names the read end of a pipe, /dev/fd/N: read like a file.
    read_end, write_end = os.pipe()
    try:
        os.write(write_end, b"secret-token\n")
        os.close(write_end)
        assert read_secret_file(f"/dev/fd/{read_end}", "token") == "secret-token"
    finally:
        os.close(read_end)
