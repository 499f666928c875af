"""The report files under the paths named: folders walked, each file found kept with the way back to it.

A report folder is often filled by others (a mail filter, a shared drop). Whatever they put there is listed
and read as what it is at the read: a link is refused, never followed, and a folder on the way is reached
again from the folder named, a step at a time (:mod:`jmapclient.folder_steps`), never by its path. A path the
person named is reached a step at a time too: a link planted in a folder on its way is not followed.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path, PosixPath

from jmapclient.file_safety import NotAFile, handed_over
from jmapclient.folder_steps import READ, SEARCH, Identity, holding_folder, identity, step_into

MAX_FOLDER_DEPTH = 32
"""Folders inside a named folder are walked this many levels deep. Deeper, a folder is named, not walked:
a folder 1,500 levels deep stopped the import with a RecursionError, and the console with it (the tester's),
and its paths pass the length a path may have."""

FOLDER_REPLACED = "its folder is not the one listed (moved since, or another put in its place); not read"


@dataclass(frozen=True, eq=False)
class ListedFolder:
    """A folder the walk listed: ``name`` inside ``parent`` (the path named, for the folder named), ``path`` as
    the summary shows it, and ``identity``, which folder it was."""

    name: str
    parent: ListedFolder | None
    path: str
    identity: Identity

    @contextmanager
    def opened(self, flags: int = SEARCH) -> Iterator[int]:
        """A descriptor of this folder, reached as the walk reached it: the folder named, then each folder inside
        by name from the one holding it. NotAFile when one of them is now a link or not the folder listed.

        By path, a folder swapped for a link after the listing was gone through: a private file behind it was
        read and uploaded under a name planted in the folder (tester91)."""
        steps = [self]
        while (outer := steps[-1].parent) is not None:
            steps.append(outer)
        steps.reverse()
        descriptor = _open_named_folder(steps[0].name, flags if len(steps) == 1 else SEARCH)
        try:
            _same(descriptor, steps[0])
            for step in steps[1:]:
                inner = step_into(descriptor, step.name, flags if step is self else SEARCH)
                os.close(descriptor)
                descriptor = inner
                _same(descriptor, step)
            yield descriptor
        finally:
            os.close(descriptor)


def _same(descriptor: int, folder: ListedFolder) -> None:
    if identity(descriptor) != folder.identity:
        raise NotAFile(FOLDER_REPLACED)


class FoundInFolder(PosixPath):
    """A file found by walking a folder, not named by the person: read only if it is a regular file, and only
    from ``folder`` as it was listed (:meth:`ListedFolder.opened`).

    A link planted in a folder (to ``/etc/shadow``, a key) was followed and read, and a FIFO planted there with a
    writer that never closes it would hold the import for ever. A path named on the command line may be a pipe
    (``<(gunzip -c r.gz)``, ``/dev/stdin``); it is a link followed only where the shell handed a descriptor
    over, as a glob (``/srv/dmarc/*``) names the links planted in a folder too.
    """

    folder: ListedFolder


class NotWalked(PosixPath):
    """A folder inside a named one that was not walked into; ``why`` says why (its import line's reason)."""

    why = ""


def iter_report_files(paths: Iterable[str | os.PathLike[str]]) -> Iterator[Path]:
    """Expand directories (sorted, depth first, at most ``MAX_FOLDER_DEPTH`` levels) and pass files through.

    Symbolic links inside a folder are listed as :class:`FoundInFolder` and refused when read (never
    walked into), so the summary says each was left out; so is a folder that cannot be walked
    (:class:`NotWalked`), too deep or unreadable, and a link named, to a folder as to a file.
    """
    for raw in paths:
        path = Path(raw)
        if _named_folder(path):
            yield from _walked(path)
        else:
            yield path  # a link to a folder too: load_file refuses it, unread, as it does a link to a file


def _named_folder(path: Path) -> bool:
    """Whether ``path``, named by the person, is a folder to walk, by the loader's rule for links: a link is
    followed only where the shell handed a descriptor over.

    ``is_dir`` followed a link: ``import-dmarc /srv/dmarc/*`` refused the file links planted there but
    walked a folder link, reading (and quoting from) every file where it pointed, 0600 ones of the
    person running it included (tester81).
    """
    try:
        return stat.S_ISDIR(os.stat(path, follow_symlinks=handed_over(path)).st_mode)
    except (OSError, ValueError):  # missing, unreadable or a NUL byte: load_file says why
        return False


def _open_named_folder(path: str, flags: int) -> int:
    """A descriptor of the folder the person named: not through a link there (but one the shell handed over), nor
    through one planted on the way to it (:func:`~jmapclient.folder_steps.open_folder`)."""
    named = Path(path)
    with holding_folder(named) as (holder, name):
        if handed_over(named):
            return os.open(name, flags, dir_fd=holder)
        return step_into(holder, name, flags)


def _walked(top: Path) -> Iterator[Path]:
    """The files under ``top``, as ``os.walk`` lists them top down, without its recursion, each folder opened
    from the one holding it (:meth:`ListedFolder.opened`): a folder swapped for a link is not listed either."""
    waiting: list[tuple[ListedFolder | None, str, int]] = [(None, str(top), 0)]
    while waiting:
        parent, name, depth = waiting.pop()
        shown = name if parent is None else os.path.join(parent.path, name)
        try:
            folder, found = _listed(parent, name, shown)
        except NotAFile as refusal:
            yield _not_walked(shown, str(refusal))
            continue
        except OSError as error:
            yield _not_walked(shown, f"cannot read the folder ({error.strerror or error})")
            continue
        inner = sorted(name for name, is_folder in found if is_folder and not name.startswith("."))
        for name in sorted(name for name, is_folder in found if not is_folder):
            # Hidden files and our sample corpus's notes are not reports; a link is listed, to be refused.
            if not name.startswith(".") and not name.lower().endswith(".md"):
                yield _found(folder, name)
        if inner and depth >= MAX_FOLDER_DEPTH:
            yield _not_walked(os.path.join(folder.path, inner[0]), f"a folder more than {MAX_FOLDER_DEPTH} levels "
                              f"inside {top}: not walked into" + (f" (nor {len(inner) - 1:,} beside it)"
                                                                   if len(inner) > 1 else ""))
            continue
        waiting.extend((folder, name, depth + 1) for name in reversed(inner))


def _listed(parent: ListedFolder | None, name: str, shown: str) -> tuple[ListedFolder, list[tuple[str, bool]]]:
    """The folder ``name`` inside ``parent`` (the folder named, without one), and its entries: (name, a folder?)."""
    if parent is None:
        descriptor = _open_named_folder(name, READ)
    else:
        with parent.opened() as holder:
            descriptor = step_into(holder, name, READ)
    try:
        folder = ListedFolder(name, parent, shown, identity(descriptor))
        with os.scandir(descriptor) as entries:
            return folder, [(entry.name, entry.is_dir(follow_symlinks=False)) for entry in entries]
    finally:
        os.close(descriptor)


def _found(folder: ListedFolder, name: str) -> FoundInFolder:
    path = FoundInFolder(folder.path, name)
    path.folder = folder
    return path


def _not_walked(folder: str, why: str) -> NotWalked:
    path = NotWalked(folder)
    path.why = why
    return path
