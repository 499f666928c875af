"""The data folder is made owner-only (0700), as its files (0600) and its cache folder are; one that
exists is left as it is, and a connection says when group or others can write into it.

A tester's finding: made for its cache folder by ``mkdir(parents=True)``, it was 0755."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from jmapclient.config import DATA_ENV
from jmapclient.connection import ConnectionRequest, resolve
from jmapclient.file_safety import make_private_folder


@pytest.fixture
def usual_umask() -> Iterator[None]:
    before = os.umask(0o022)
    yield
    os.umask(before)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.mark.usefixtures("usual_umask")
def test_every_folder_made_for_a_cache_folder_is_owner_only(tmp_path: Path) -> None:
    data = tmp_path / "share" / "mailadmin"
    make_private_folder(data / "dmarc-digests")
    assert [mode(p) for p in (tmp_path / "share", data, data / "dmarc-digests")] == [0o700] * 3


@pytest.mark.usefixtures("usual_umask")
def test_an_existing_folder_keeps_its_mode(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir(mode=0o755)
    make_private_folder(data / "cache")
    assert (mode(data), mode(data / "cache")) == (0o755, 0o700)


def test_a_data_folder_others_can_write_into_is_said(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    data = tmp_path / "data"
    data.mkdir()
    monkeypatch.setenv(DATA_ENV, str(data))
    heard: list[str] = []

    def connect() -> None:
        resolve(ConnectionRequest("https://mail.example.com", token="API_t", warn=heard.append))

    data.chmod(0o700)
    connect()
    assert not [line for line in heard if "data folder" in line]
    data.chmod(0o777)
    connect()
    assert f"the data folder {data} can be written by group or others" in " ".join(heard), heard
    assert mode(data) == 0o777  # said, not changed
