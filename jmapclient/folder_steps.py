"""Folders opened a step at a time, each from the descriptor of the one holding it, never through a link.

A path is looked up afresh at each open: a folder listed a moment ago may since have been swapped for a
link by whoever can write the folder holding it, and ``O_NOFOLLOW`` guards only a path's last part. Opened
by name from its parent's descriptor (``openat``) with ``O_NOFOLLOW``, a folder is the one that is there now,
or the open fails; its device and inode then say whether it is the one seen before.

A path the person names is reached the same way (:func:`holding_folder`), its links followed only where no one
else could have put them (:func:`planted_link`).
"""

from __future__ import annotations

import errno
import os
import stat
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

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


_OTHERS_WRITE = stat.S_IWGRP | stat.S_IWOTH
_SUPERUSER = 0


def planted_link(link: os.stat_result, holder: os.stat_result) -> bool:
    """Whether a link on the way to a path the person named may be someone else's doing, by the rule
    :func:`~jmapclient.file_safety.own_file_at` applies to a config file's link: made by another user, or in a
    folder group or others can write into (they could have put it there, or swap it for theirs at any moment).

    Links the system or the person made stay usable: ``/var -> private/var`` and ``/dev/fd`` (root's, in
    folders only root writes), a home folder linked elsewhere, a link of one's own in a sticky folder whose
    owner is the person or root (``/tmp``: there nobody else can rename or remove it).
    """
    trusted = (os.getuid(), _SUPERUSER)
    if link.st_uid not in trusted:
        return True
    if not holder.st_mode & _OTHERS_WRITE:
        return False
    return not (holder.st_mode & stat.S_ISVTX and holder.st_uid in trusted)


MAX_LINKS = 40
"""Links followed on the way to one path, as Linux allows: past it, a loop (ELOOP)."""

PLANTED_ON_THE_WAY = "on its path is a link in a folder others can write, or another user's"


def open_folder(path: Path) -> int:
    """A descriptor (:data:`SEARCH`) of the folder at ``path``, reached a part at a time from ``/`` or the working
    folder, each opened from the one holding it: a link on the way is followed only if it is not planted
    (:func:`planted_link`), what it points to reached the same way. NotAFile names a planted one; OSError says
    why a part cannot be opened.

    ``import-dmarc /srv/dmarc/*/*`` (the usual per-day layout) read the files behind a folder link planted in
    the drop folder: only a path's last part was checked, and the kernel followed the ones before it (tester91).
    Opened from their holder's descriptor, the parts cannot be swapped for a link between the check and the open.
    """
    text = os.fspath(path)
    parts = deque(_parts(text))
    folder = os.open("/" if text.startswith("/") else ".", SEARCH)
    followed = 0
    try:
        while parts:
            name = parts.popleft()
            try:
                inner = step_into(folder, name)
            except NotAFile:
                followed += 1
                if followed > MAX_LINKS:
                    raise OSError(errno.ELOOP, os.strerror(errno.ELOOP), text) from None
                if planted_link(os.stat(name, dir_fd=folder, follow_symlinks=False), os.fstat(folder)):
                    raise NotAFile(f"{LINK_NOT_FOLLOWED} ({name!r} {PLANTED_ON_THE_WAY})") from None
                target = os.readlink(name, dir_fd=folder)
                parts.extendleft(reversed(_parts(target)))
                if not target.startswith("/"):
                    continue  # what it points to is reached from the folder holding it
                inner = os.open("/", SEARCH)
            os.close(folder)
            folder = inner
    except BaseException:
        os.close(folder)
        raise
    return folder


def _parts(path: str) -> list[str]:
    return [part for part in path.split("/") if part not in ("", ".")]


@contextmanager
def holding_folder(path: Path) -> Iterator[tuple[int, str]]:
    """The folder holding ``path``'s last part (:func:`open_folder`), open, and that part (``.`` for a path that
    is a folder itself, ``/`` or ``.``): what the part is, a link or not, is for the caller to judge."""
    folder = open_folder(path.parent)
    try:
        yield folder, path.name or "."
    finally:
        os.close(folder)
