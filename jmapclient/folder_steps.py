"""Folders opened a step at a time, each from the descriptor of the one holding it, never through a link.

A path is looked up afresh at each open: a folder listed a moment ago may since have been swapped for a
link by whoever can write the folder holding it, and ``O_NOFOLLOW`` guards only a path's last part. Opened
by name from its parent's descriptor (``openat``) with ``O_NOFOLLOW``, a folder is the one that is there now,
or the open fails; its device and inode then say whether it is the one seen before.
"""

from __future__ import annotations

import errno
import os
import stat

from jmapclient.file_safety import LINK_NOT_FOLLOWED, NotAFile

_FOLDER = os.O_DIRECTORY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
SEARCH = _FOLDER | getattr(os, "O_PATH", os.O_RDONLY)
"""A folder opened to reach what it holds, not to list it: it needs the right to search it only (Linux)."""
READ = _FOLDER | os.O_RDONLY
"""A folder opened to list it."""

Identity = tuple[int, int]
"""A folder's device and inode: which folder it is, whatever path reached it."""


def identity(descriptor: int) -> Identity:
    found = os.fstat(descriptor)
    return found.st_dev, found.st_ino


def step_into(folder: int, name: str, flags: int = SEARCH) -> int:
    """A descriptor of the folder ``name`` inside the open ``folder``; NotAFile when ``name`` is a link there (it
    is not followed), OSError when it is missing, no folder, or cannot be opened."""
    try:
        return os.open(name, flags | os.O_NOFOLLOW, dir_fd=folder)
    except OSError as error:
        # Linux says ENOTDIR for a link opened with O_DIRECTORY | O_NOFOLLOW, others ELOOP.
        if error.errno in (errno.ELOOP, errno.ENOTDIR) and _is_link(folder, name):
            raise NotAFile(LINK_NOT_FOLLOWED) from None
        raise


def _is_link(folder: int, name: str) -> bool:
    try:
        return stat.S_ISLNK(os.stat(name, dir_fd=folder, follow_symlinks=False).st_mode)
    except OSError:
        return False
