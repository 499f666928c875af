"""Saving the config file without losing what someone else wrote into it.

Two writers share the file: the console (which read it when it started, maybe hours ago) and
``mailadmin profile add`` (or a person with an editor). A save therefore never writes the copy it
holds: under a lock on a sidecar file, it reads the file as it is on disk now, applies only the
changes its caller made since its own read (a profile added, edited or removed, the default, a
key remap, the offline switch), and writes the result atomically. tomlkit keeps comments, order
and keys this version does not know. A ``config.toml`` (or its lock) that is a symbolic link is
refused, never written through nor replaced: a link planted there made ``profile add --token`` write
the token into the file it pointed at (and chmod it), or create a dangling link's target.
"""

from __future__ import annotations

import errno
import os
import time
from collections.abc import Collection, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from jmapclient.file_safety import LINK_NOT_WRITTEN

LOCK_WAIT = 5.0
"""Seconds a save waits for another writer's lock: a save holds it for milliseconds."""

Plain = dict[str, Any]
"""The config as plain data, the shape ``tomllib`` reads: what a save compares."""


@contextmanager
def locked(target: Path) -> Iterator[None]:
    """Hold an exclusive lock beside ``target`` (``.<name>.lock``, 0600) for a read-change-write.

    The lock is on a sidecar file, not the config itself: the config is replaced by a rename on
    every save, and a lock on the replaced file would guard nothing. Waits up to
    :data:`LOCK_WAIT` seconds, then OSError (EAGAIN) says that another writer holds it. A link at the
    lock's path is refused (``O_NOFOLLOW``): nothing is created where it points.
    """
    import fcntl

    sidecar = target.parent / f".{target.name}.lock"
    try:
        descriptor = os.open(sidecar, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0), 0o600)
    except OSError as error:
        if error.errno == errno.ELOOP:
            raise OSError(errno.ELOOP, LINK_NOT_WRITTEN, str(sidecar)) from None
        raise
    try:
        deadline = time.monotonic() + LOCK_WAIT
        while True:
            try:
                fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise OSError(errno.EAGAIN, "another mailadmin is saving it; try again") from None
                time.sleep(0.02)
        yield
    finally:
        os.close(descriptor)  # closing drops the lock


def merge(document: Any, before: Plain, after: Plain, *, renamed: Mapping[str, str] | None = None,
          whole: Collection[str] = ()) -> None:
    """Apply to ``document`` (tomlkit, as on disk now) what changed from ``before`` to ``after``.

    Only the entries that differ are touched; a profile table keeps its own comments and the
    keys this version does not know. A profile removed here but edited elsewhere meanwhile is
    still removed: the person asked for it last. ``renamed`` (new name → old) marks a profile
    renamed here: it is the old one's table as on disk now, moved, with only this side's changes
    on it. Written whole, a rename put back the URL and token another writer had replaced meanwhile.
    A profile named in ``whole`` is written whole, as this side holds it (the person chose to save it over
    what another writer put there).
    """
    _merge_value(document, "default", before.get("default"), after.get("default"))
    old_profiles, new_profiles = before.get("profiles", {}), after.get("profiles", {})
    renamed = renamed or {}
    if old_profiles != new_profiles:
        profiles = _table(document, "profiles", super_table=True)
        moved = {new: profiles.get(old) for new, old in renamed.items()
                 if old in old_profiles and _is_table(profiles.get(old))}
        for name in [*old_profiles, *(name for name in new_profiles if name not in old_profiles)]:
            old, new = old_profiles.get(name), new_profiles.get(name)
            if name in moved and new is not None:  # compared with the old name's table as this side read it
                old, profiles[name] = old_profiles[renamed[name]], moved[name]
            if name in whole and new is not None:
                profiles[name] = new
                continue
            if old == new:
                continue
            if new is None:
                profiles.pop(name, None)
            elif old is None or not _is_table(profiles.get(name)):
                profiles[name] = new  # added here: written whole, as the person filled the form
            else:
                _merge_keys(profiles[name], old, new)
    for name in ("keys", "dmarc", "console"):
        old, new = before.get(name, {}), after.get(name, {})
        if old != new:
            _merge_keys(_table(document, name, super_table=False), old, new)


def _is_table(value: Any) -> bool:
    return hasattr(value, "items")


def _table(document: Any, name: str, *, super_table: bool) -> Any:
    """The table ``name`` of ``document``, made (at the end) when missing or not a table."""
    import tomlkit

    if not _is_table(document.get(name)):
        document[name] = tomlkit.table(is_super_table=super_table)
    return document[name]


def _merge_keys(table: Any, old: Mapping[str, Any], new: Mapping[str, Any]) -> None:
    for key in [*old, *(key for key in new if key not in old)]:
        _merge_value(table, key, old.get(key), new.get(key))


def _merge_value(table: Any, key: str, old: Any, new: Any) -> None:
    if old == new:
        return
    if new is None:
        table.pop(key, None)
    else:
        table[key] = new
