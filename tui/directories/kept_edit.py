"""Where an ``E`` edit of a directory is made, and kept when it cannot be saved, for the next ``E`` on it.

The file may hold a secret the person typed over ``****``. It was made in /tmp (a folder anyone can list)
and kept there when the save failed, with nothing saying so, and the next ``E`` started again from the
server's copy: the file, secret included, was left behind for good (the tester's). Now it is made in a
0700 folder of the console's data folder, 0600, named by server and directory, so the next ``E`` on the same
directory finds it and offers to resume or discard it. Beside it is kept the server's copy the edit started
from (secrets masked): a resumed edit is compared with that, so a field someone changed on the server since
is not put back to what it was.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import stat
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jmapclient.config import data_dir, write_private
from jmapclient.file_safety import NotAFile, read_own_json, untrusted_folder

EDITS_FOLDER = "directory-edits"
"""The data folder's sub-folder of kept edits."""
MAX_KEPT = 1 << 20
"""Bytes a kept edit's starting copy may hold (a directory is a few KB)."""
_NOT_IN_A_NAME = re.compile(r"[^A-Za-z0-9_.-]")


@dataclass(frozen=True)
class KeptEdit:
    """The edit file of one directory on one server, and the server's copy it started from."""

    edit: Path
    base: Path

    @classmethod
    def of(cls, server: str, directory_id: str) -> KeptEdit:
        """The files for ``directory_id`` on ``server``: ids are the server's own, so the server is in the name
        (hashed with the id: a server's id may hold any character); the id is there too, for a person looking."""
        digest = hashlib.sha256(f"{server}\0{directory_id}".encode()).hexdigest()[:12]
        stem = f"directory-{_NOT_IN_A_NAME.sub('_', directory_id)[:40]}-{digest}"
        folder = data_dir() / EDITS_FOLDER
        return cls(folder / f"{stem}.json", folder / f"{stem}.base.json")

    def unsafe(self) -> str | None:
        """Why an edit, which may hold secrets, must not be made here (a folder others could read or fill), or
        None."""
        folder = self.edit.parent
        return untrusted_folder(folder, "directory edits") or untrusted_folder(folder.parent, "data")

    def found(self) -> bool:
        """Whether an edit is kept (a regular file; a link planted there is no edit of ours)."""
        try:
            return stat.S_ISREG(os.lstat(self.edit).st_mode)
        except OSError:
            return False

    def start(self, text: str, base: Mapping[str, Any]) -> None:
        """A new edit: ``text`` for the editor, and ``base``, the copy it is made from (0600, the folder 0700)."""
        write_private(self.base, json.dumps(base).encode())
        write_private(self.edit, text.encode())

    def rebase(self, now: Mapping[str, Any]) -> None:
        """The edit's starting copy is now ``now``: the person was told what changed on the server, and a
        resumed edit then puts its values over those."""
        write_private(self.base, json.dumps(now).encode())

    def started_from(self) -> dict[str, Any] | None:
        """The copy the kept edit started from; None when it cannot be read."""
        try:
            found = read_own_json(self.base, MAX_KEPT)
        except (OSError, ValueError, NotAFile):  # UnicodeDecodeError and a damaged file are ValueErrors
            return None
        return found if isinstance(found, dict) else None

    def drop(self) -> None:
        """Saved or discarded: the edit, and any secret typed in it, goes."""
        self.edit.unlink(missing_ok=True)
        self.base.unlink(missing_ok=True)

    def said(self, resumed_means: str = "") -> str:
        """Where the edit is kept, that it may hold secrets, and what the next ``E`` does with it."""
        return (f"Your edit is kept in {self.edit}, which only you can read (it may hold secrets you typed); "
                f"E on this directory offers to resume it{resumed_means} or to discard it.")

    def briefly(self) -> str:
        """Where the edit is kept, for a line with little room (the status line): the file named early."""
        return f"kept in {self.edit}"
