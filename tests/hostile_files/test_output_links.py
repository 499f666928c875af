"""An output path that is a link planted by someone else is replaced, never written through, and said.

``is_stream`` followed every link: a link at the export's target pointing at a FIFO or a terminal had the
export written into what it pointed at (a link to a file was replaced, as it still is). Only the links the
system keeps are followed: ``/dev/stdout``, a descriptor the shell handed over (helper82).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from jmapclient.file_safety import is_stream
from mailadmin.main import main
from server_stub.runner import StubServer
from tests.support.env_login import token_in_env


def test_a_link_to_a_fifo_is_no_stream_to_write_into_but_a_fifo_and_a_handed_over_pipe_are(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    planted = tmp_path / "export.csv"
    planted.symlink_to(fifo)
    to_null = tmp_path / "null.csv"
    to_null.symlink_to("/dev/null")
    read, write = os.pipe()
    try:
        assert is_stream(fifo) and is_stream(Path("/dev/null")) and is_stream(Path(f"/dev/fd/{write}"))
    finally:
        os.close(read)
        os.close(write)
    assert not is_stream(planted) and not is_stream(to_null)


def test_an_export_over_a_link_replaces_the_link_and_says_so(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "victim.txt"
    target.write_text("keep me\n")
    planted = tmp_path / "out.csv"
    planted.symlink_to(target)
    with StubServer(reports=3) as server, token_in_env(server.admin_token):
        code = main(["export-dmarc", "-o", str(planted), f"--url={server.base_url}"])
    err = capsys.readouterr().err
    assert code == 0, err
    assert err.count(f"{planted} is a symbolic link (to {target}): the export replaces the link") == 1, err
    assert not planted.is_symlink() and planted.stat().st_mode & 0o777 == 0o600 and "," in planted.read_text()
    assert target.read_text() == "keep me\n"
