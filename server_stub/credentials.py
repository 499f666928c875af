"""The credentials ``mailadmin serve`` generated, in an owner-only file beside its database.

The terminal shows them too (that is how the demo is used); the file lets a script or a
second terminal read them without copying a secret off the screen or out of ``ps``.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from jmapclient.config import data_dir
from jmapclient.file_safety import make_private_folder, open_to_write
from server_stub.store import MEMORY

SUFFIX = ".credentials"


def credentials_path(db: str, port: int) -> Path:
    """``<database>.credentials``; for a throwaway database, one per port in the data directory."""
    if db == MEMORY:
        return data_dir() / f"serve-{port}{SUFFIX}"
    database = Path(db)
    return database.with_name(database.name + SUFFIX)


def token_path(credentials: Path) -> Path:
    """``<credentials>`` 's admin token alone, as ``--token-file`` and a profile's token file read one."""
    return credentials.with_name(credentials.name.removesuffix(SUFFIX) + TOKEN_SUFFIX)


TOKEN_SUFFIX = ".admin-token"


def write_token(path: Path, token: str) -> Path:
    """The admin token alone on its one line, owner-only and never through a planted link, as
    :func:`write_credentials` writes: the credentials file holds more, and ``--token-file`` refused it."""
    make_private_folder(path.parent)
    with os.fdopen(open_to_write(path), "w", encoding="utf-8") as file:
        file.write(f"{token}\n")
    return path


def write_credentials(path: Path, lines: Sequence[tuple[str, str]]) -> Path:
    """Write ``name: value`` lines, owner-only from the first byte (an older file's mode is reset too).

    Never through a symlink planted at the path (it wrote the tokens wherever the link pointed), nor
    into a FIFO or device: ``file_safety.open_to_write`` refuses both (OSError, said by ``serve``).
    """
    make_private_folder(path.parent)
    with os.fdopen(open_to_write(path), "w", encoding="utf-8") as file:
        file.writelines(f"{name}: {value}\n" for name, value in lines)
    return path
