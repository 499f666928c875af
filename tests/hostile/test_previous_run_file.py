"""``dmarc-advice``'s previous-run file (``--check --since-last``) is read as the cache is (tester101).

It was read with ``read_text``: a FIFO planted at its name hung the run for ever, a link to ``/dev/zero`` filled
memory, and a file another user wrote was their word on what the last run saw. Each is now set aside, said once.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from jmapclient.dmarc import attention
from jmapclient.dmarc.attention import read_previous, untrusted_state
from tests.support.hangs import finished

RECORD = {"at": "2026-11-29T22:00:00Z",
          "domains": {"victim.example": {"verdict": "too little data", "sources": ["198.18.0.66"],
                                         "failing": {"198.18.0.66": 100000}}}}


def private_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "dmarc-digests"
    folder.mkdir(mode=0o700)
    return folder


def read_with_warnings(path: Path) -> tuple[attention.PreviousRun | None, list[str]]:
    said: list[str] = []
    previous = finished(lambda: read_previous(path, warn=said.append))
    return previous, said


def test_the_persons_own_record_is_read(tmp_path: Path) -> None:
    path = private_folder(tmp_path) / "h.last-advice.json"
    path.write_text(json.dumps(RECORD))
    previous, said = read_with_warnings(path)
    assert previous is not None and previous.domains["victim.example"].sources == {"198.18.0.66"}
    assert said == [] and untrusted_state(path) is None


def test_a_fifo_at_its_name_is_set_aside_unread(tmp_path: Path) -> None:
    path = private_folder(tmp_path) / "h.last-advice.json"
    os.mkfifo(path)
    previous, said = read_with_warnings(path)
    assert previous is None
    [line] = said
    assert "not a regular file (a FIFO)" in line and "set aside" in line
    assert not path.exists() and path.with_name(path.name + ".damaged").exists()


def test_a_link_at_its_name_is_not_followed(tmp_path: Path) -> None:
    # A link to /dev/zero filled memory; one to a record elsewhere made another file the previous run.
    elsewhere = tmp_path / "elsewhere.json"
    elsewhere.write_text(json.dumps(RECORD))
    path = private_folder(tmp_path) / "h.last-advice.json"
    path.symlink_to(elsewhere)
    previous, said = read_with_warnings(path)
    assert previous is None and len(said) == 1 and "set aside" in said[0]
    assert not os.path.lexists(path) and elsewhere.read_text() == json.dumps(RECORD)  # the link moved, not its target


def test_a_link_to_an_endless_device_is_not_read(tmp_path: Path) -> None:
    path = private_folder(tmp_path) / "h.last-advice.json"
    path.symlink_to("/dev/zero")
    previous, said = read_with_warnings(path)
    assert previous is None and len(said) == 1


def test_a_record_past_its_bound_is_set_aside(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = private_folder(tmp_path) / "h.last-advice.json"
    path.write_text(json.dumps(RECORD))
    monkeypatch.setattr(attention, "MAX_STATE_FILE", 10)
    previous, said = read_with_warnings(path)
    assert previous is None and len(said) == 1 and "larger than 10 bytes" in said[0]


@pytest.mark.skipif(os.getuid() != 0, reason="giving a file to another user takes root")
def test_a_record_another_user_owns_is_set_aside(tmp_path: Path) -> None:
    path = private_folder(tmp_path) / "h.last-advice.json"
    path.write_text(json.dumps(RECORD))
    os.chown(path, 65534, 65534)  # nobody
    previous, said = read_with_warnings(path)
    assert previous is None and len(said) == 1 and "it belongs to another user" in said[0]
    assert path.with_name(path.name + ".damaged").stat().st_uid == 65534


@pytest.mark.parametrize("mode", [0o777, 0o1777], ids=["writable", "shared"])
def test_a_folder_others_can_write_is_untrusted(tmp_path: Path, mode: int) -> None:
    folder = private_folder(tmp_path)
    folder.chmod(mode)
    assert untrusted_state(folder / "h.last-advice.json") is not None
