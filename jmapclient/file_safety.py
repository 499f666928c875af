"""Permission checks on files this tool reads: config, token, password and CA files; bounded reads,
and writes into a target that is no regular file.

Like ssh with a key file: a file that group or others can write is refused (someone else
could swap in their own server, token or CA); a token or password file that group or
others can read is used, with a warning that names the ``chmod`` that fixes it. These
return the words; :mod:`jmapclient.config` decides what refuses and what warns.
"""

from __future__ import annotations

import errno
import os
import re
import shlex
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, BinaryIO

_OTHERS_WRITE = stat.S_IWGRP | stat.S_IWOTH
_OTHERS_READ = stat.S_IRGRP | stat.S_IROTH


def _mode(path: Path) -> int:
    """The permission bits of a regular file; 0 for anything else.

    A missing or unreadable file is left to its reader, which says why in its own words; a pipe
    or device (``--token-file <(pass show mail)``, ``/dev/stdin``) holds no stored secret.
    """
    try:
        found = path.stat()
    except OSError:
        return 0
    return found.st_mode if stat.S_ISREG(found.st_mode) else 0


def writable_by_others(path: Path, what: str) -> str | None:
    """Why ``path`` must be refused (group or others may write it), or None."""
    if _mode(path) & _OTHERS_WRITE:
        return (f"refusing the {what} file {path}: group or others can write it; "
                f"fix it with `chmod go-w {shlex.quote(str(path))}`")
    return None


def readable_by_others(path: Path, what: str) -> str | None:
    """The warning for a secret file that group or others may read, or None when it is private."""
    if _mode(path) & _OTHERS_READ:
        return (f"the {what} file {path} can be read by group or others; "
                f"fix it with `chmod 600 {shlex.quote(str(path))}`")
    return None


class NotAFile(Exception):
    """The path names a device or a socket where only a file (or a FIFO) makes sense, or a symbolic
    link where none is followed."""


LINK_NOT_FOLLOWED = "a symbolic link, not followed"


def read_bounded(path: Path | str, limit: int, *, devices: bool = True, follow: bool = True,
                 streams: bool = True, dir_fd: int | None = None) -> bytes | None:
    """The bytes at ``path``, or None past ``limit``; a FIFO (``<(pass show mail)``, ``/dev/stdin``
    of a pipe) is read like a file. OSError when it cannot be read.

    ``read_bytes`` trusts ``st_size``: ``/dev/zero`` (size 0) filled memory without end, and a
    FIFO with no writer blocked for ever. A FIFO is opened without waiting for a writer (with
    none, it reads as empty) and every read stops one byte past the limit. With ``devices``
    False, a device or socket is refused (NotAFile) before it is opened: ``/dev/tty`` in a
    report folder would wait for the keyboard. With ``follow`` False a symbolic link is refused
    (NotAFile), at the open itself (``O_NOFOLLOW``): one swapped in after a check is refused too.
    With ``streams`` False a FIFO is refused (NotAFile) too, unopened: one planted in a folder others
    fill may have a writer that never closes it, and the read would wait for ever.
    With ``dir_fd``, ``path`` is a name inside the folder that descriptor holds (``openat``): ``O_NOFOLLOW`` guards
    a path's last part only, and a folder on the way swapped for a link after it was listed was gone through.
    """
    if not devices or not streams:
        kind = os.stat(path, follow_symlinks=follow, dir_fd=dir_fd).st_mode
        if stat.S_ISLNK(kind):
            raise NotAFile(LINK_NOT_FOLLOWED)
        if not devices and (stat.S_ISCHR(kind) or stat.S_ISBLK(kind) or stat.S_ISSOCK(kind)):
            raise NotAFile("not a file (a device or a socket)")
        if not streams and stat.S_ISFIFO(kind):
            raise NotAFile(f"not a regular file ({_kind(kind)})")
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0) | (0 if follow else os.O_NOFOLLOW)
    try:
        descriptor = os.open(path, flags, dir_fd=dir_fd)
    except OSError as error:
        if error.errno == errno.ELOOP and not follow:
            raise NotAFile(LINK_NOT_FOLLOWED) from None
        raise
    with os.fdopen(descriptor, "rb", buffering=0) as handle:
        opened = os.fstat(descriptor)
        if not devices and not (stat.S_ISREG(opened.st_mode) or stat.S_ISFIFO(opened.st_mode)):
            raise NotAFile("not a file (a device or a socket)")  # swapped in after the check
        if not streams and not stat.S_ISREG(opened.st_mode):
            raise NotAFile(f"not a regular file ({_kind(opened.st_mode)})")  # swapped in after the check
        os.set_blocking(descriptor, True)  # only the open must not wait; a writer's data is waited for
        if stat.S_ISREG(opened.st_mode) and opened.st_size > limit:
            return None
        return read_upto(handle, limit)


def read_upto(handle: BinaryIO, limit: int) -> bytes | None:
    """What ``handle`` holds, read one byte past ``limit`` at most; None past it."""
    chunks: list[bytes] = []
    size = 0
    while size <= limit and (chunk := handle.read(min(1 << 20, limit + 1 - size))):
        chunks.append(chunk)
        size += len(chunk)
    return None if size > limit else b"".join(chunks)


def is_stream(path: Path) -> bool:
    """True for an existing target that is no regular file: ``/dev/null``, ``/dev/stdout``, a FIFO.

    An atomic write renames a new file over its target: run by root, an export to ``/dev/null``
    replaced the machine's ``/dev/null`` with a regular 0600 file (every other user's
    ``> /dev/null`` then failed), and one to ``/dev/full`` said "exported" having written nothing
    to it. Such a target is written into, as a shell's ``>`` would (``config.write_private``).

    A link is followed only where the system keeps it (``/dev/stdout``, a descriptor the shell handed over):
    another one, planted at the target and pointing at a FIFO or a terminal, had the export written into
    what it pointed at, where a link to a file is replaced (helper82).
    """
    followed = handed_over(path) or str(path) in _STANDARD_OUTPUTS
    try:
        mode = os.stat(path, follow_symlinks=followed).st_mode
    except (OSError, ValueError):
        return False
    return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode) or stat.S_ISLNK(mode))


_STANDARD_OUTPUTS = ("/dev/stdout", "/dev/stderr")
"""The process's own outputs by the names the system links them under."""


STDOUT_NAME = "standard output"
STDIO_ARG = "-"
"""A file argument that names standard output (or input), as the shell's tools take it."""


def named_output(text: str | None) -> str | None:
    """The file an ``-o`` option names; None for standard output: no option, or ``-``. Taken as a name,
    ``-o -`` left a file called ``-`` in the working folder."""
    return None if text is None or text == STDIO_ARG else text


def naming(error: OSError, target: Path | str) -> OSError:
    """``error`` with ``target`` (a path, or :data:`STDOUT_NAME`) as its file when it names none: a
    write on a full disk says only "No space left on device", and the error lines said "cannot use:
    No space left on device" without the file. A broken pipe is kept as it is (a reader that left)."""
    if error.filename is not None or isinstance(error, BrokenPipeError):
        return error
    return OSError(error.errno, error.strerror or str(error), str(target))


@contextmanager
def naming_target(target: Path | str) -> Iterator[None]:
    """An OSError raised inside, with ``target`` as its file (:func:`naming`)."""
    try:
        yield
    except OSError as error:
        raise naming(error, target) from error


def write_stream(path: Path, content: bytes) -> None:
    """Write ``content`` into the device or FIFO at ``path``; OSError says why it could not.

    A disk (a block device) or a socket is refused. A FIFO is opened without waiting: with no
    reader, the export fails at once (ENXIO) instead of hanging the command or the console.
    """
    mode = path.stat().st_mode
    if stat.S_ISBLK(mode) or stat.S_ISSOCK(mode):
        raise OSError(errno.EINVAL, "it is a disk device or a socket, not a file")
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as error:
        if error.errno == errno.ENXIO and stat.S_ISFIFO(mode):
            raise OSError(errno.ENXIO, "it is a FIFO that nothing reads from") from None
        raise
    with os.fdopen(descriptor, "wb") as handle:
        os.set_blocking(descriptor, True)
        handle.write(content)


class NotRegular(NotAFile):
    """The path names a FIFO, a device, a socket, a folder or (not followed) a symlink: no stored file."""


def read_regular(path: Path, limit: int, *, follow: bool = True) -> bytes | None:
    """The bytes of the regular file at ``path``, or None past ``limit``; OSError when it cannot be read.

    For the product's own files (config, caches, credentials): anything else is refused
    (NotRegular) without reading from it. The open never waits (``O_NONBLOCK``: a FIFO with no
    writer would block it for ever) and the kind is checked on the opened descriptor, so a file
    swapped for a FIFO or ``/dev/zero`` between a check and the open is refused all the same.
    With ``follow`` False a symlink at ``path`` is refused (``O_NOFOLLOW``): where the product
    writes the file, a planted link must not make it read, or later write, somewhere else.
    """
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    if not follow:
        flags |= os.O_NOFOLLOW
    try:
        descriptor = os.open(path, flags)
    except OSError as error:
        if error.errno == errno.ELOOP and not follow:
            raise NotRegular("it is a symbolic link") from None
        raise
    with os.fdopen(descriptor, "rb", buffering=0) as handle:
        opened = os.fstat(descriptor)
        if not stat.S_ISREG(opened.st_mode):
            raise NotRegular(f"it is not a regular file ({_kind(opened.st_mode)})")
        if opened.st_size > limit:
            return None
        return read_upto(handle, limit)


def _kind(mode: int) -> str:
    for test, word in ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a device"), (stat.S_ISBLK, "a device"),
                       (stat.S_ISSOCK, "a socket"), (stat.S_ISDIR, "a folder")):
        if test(mode):
            return word
    return "not a file"


PRIVATE_FOLDER = 0o700


def make_private_folder(folder: Path) -> None:
    """Create ``folder`` and its missing parents 0700: data and config folders hold tokens and caches.

    ``mkdir(parents=True)`` makes the parents with the default mode, so the data folder made for its
    cache folder was 0755. A folder that already exists keeps its mode: the person may have chosen
    it (:func:`folder_writable_by_others` says when others can write into it).
    """
    missing = [folder, *(parent for parent in folder.parents)]
    missing = missing[:next((i for i, path in enumerate(missing) if path.is_dir()), len(missing))]
    for path in reversed(missing):  # the outermost first; at most as many as the path has parts
        path.mkdir(mode=PRIVATE_FOLDER, exist_ok=True)


def folder_writable_by_others(folder: Path, what: str) -> str | None:
    """The warning for a folder of ours that group or others may write into (they could replace its
    caches and files), or None when it is private or not there yet."""
    try:
        mode = folder.stat().st_mode
    except OSError:
        return None
    if not (stat.S_ISDIR(mode) and mode & _OTHERS_WRITE):
        return None
    if mode & stat.S_ISVTX:
        # A shared folder like /tmp (the sticky bit): `chmod go-w /tmp` would break every other user's programs.
        return (f"the {what} folder {folder} can be written by group or others (a shared folder, like /tmp); "
                f"keep the {what} in a folder only you can write")
    return (f"the {what} folder {folder} can be written by group or others; "
            f"fix it with `chmod go-w {shlex.quote(str(folder))}`")


def untrusted_folder(folder: Path, what: str) -> str | None:
    """Why a file of the person's own must not be kept in ``folder``, or None (private, or not made yet: then made
    owner-only). A folder another user owns, or that group or others can write to, lets them put a file of their own
    in place of ours: a DMARC cache whose figures are theirs, a config naming their server."""
    try:
        found = folder.stat()
    except OSError:
        return None  # not there yet (made 0700), or unreadable: the open says why
    if found.st_uid != os.getuid():
        return f"its folder {folder} belongs to another user"
    return folder_writable_by_others(folder, what)


def owned_by_another(path: Path, what: str, *, root_too: bool = False) -> str | None:
    """Why the file at ``path`` must be refused because another user owns it, or None (the person's own, not there,
    or with ``root_too`` root's: a system file such as a CA in /etc/ssl, which root could change anyway).

    Modes alone passed a 0644 file another user wrote: a config planted in a shared folder named their server and
    the person's own token file, and the token went there (the tester's). Run as root, only root's own counts.
    """
    try:
        owner = path.stat().st_uid
    except OSError:
        return None
    if owner == os.getuid() or (root_too and owner == 0):
        return None
    return (f"refusing the {what} file {path}: it belongs to another user (uid {owner}), who decides what it says; "
            f"if it is yours, take it back with `sudo chown $USER {shlex.quote(str(path))}`, else remove it")


MAX_JSON_DEPTH = 64
"""Nesting a JSON file of the product's may reach (its own caches nest 3 deep): deeper is damage, and
``json.loads`` of a 100,000-deep list raised RecursionError, which crashed the console on every start."""

_NOT_BRACKETS = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[^\[\]{}"]+', re.DOTALL)
"""Strings (whose brackets do not nest) and everything else that is no bracket."""


class NestedTooDeep(ValueError):
    """A JSON document nested deeper than the reader allows (said in words, in place of RecursionError)."""


def json_bounded(text: str, depth: int = MAX_JSON_DEPTH, **options: Any) -> Any:
    """``json.loads(text, **options)``, with NestedTooDeep for a document nested deeper than ``depth``.

    Measured before parsing, at C speed: with strings and all but the brackets taken out, each
    pass removes the innermost pairs, so a document ``depth`` deep is empty after ``depth`` passes.
    (A full names cache, 50,000 entries, 3.4 MB: 0.14 s more than ``json.loads``.) ``json.loads``
    itself reads a few hundred thousand levels; what reads the value next (a copy, pydantic) does not.
    """
    import json

    if text.count("[") + text.count("{") <= depth:
        return json.loads(text, **options)  # cannot nest deeper: no scan (a figures entry, a small cache)
    brackets = _NOT_BRACKETS.sub("", text)
    for _ in range(depth):
        inner = brackets.replace("[]", "").replace("{}", "")
        if inner == brackets:
            break  # empty, or brackets that do not pair: json.loads says what is wrong
        brackets = inner
    else:
        if brackets:
            raise NestedTooDeep(f"it is nested deeper than {depth} levels")
    return json.loads(text, **options)


SET_ASIDE = ".damaged"


def read_own_json(path: Path, limit: int) -> Any:
    """The JSON of one of the product's own files (a cache, a previous run, a kept edit): read as
    :func:`read_regular` reads, never through a symlink, and parsed bounded in depth. NotAFile when it is no
    regular file or larger than ``limit``; ValueError when it is no JSON (UnicodeDecodeError is one)."""
    raw = read_regular(path, limit, follow=False)
    if raw is None:
        raise NotAFile(f"larger than {limit:,} bytes")
    return json_bounded(raw.decode())


def set_aside(path: Path, what: str, why: str) -> str:
    """Move a damaged file of the product out of the way (``<name>.damaged``) and say so in one line.

    Kept, not deleted: the person may want to look at it. A link is moved, never its target; a folder
    is never moved (the path still exists afterwards: its user falls back to working without it).
    """
    aside = path.with_name(path.name + SET_ASIDE)
    if path.is_dir() and not path.is_symlink():
        return f"the {what} {path} is a folder; it is left alone and not used"
    try:
        os.replace(path, aside)
    except OSError as error:
        return f"the {what} {path} is unusable ({why}) and could not be moved aside: {error.strerror or error}"
    return f"the {what} {path} was unusable ({why}); set aside as {aside.name}, and started afresh"


LINK_NOT_WRITTEN = "it is a symbolic link; not written through"
LINK_NOT_OWN = ("it is a symbolic link that is not yours alone (made by another user, in a folder others can write, "
                "or to no file of yours); not read, not written through")


def own_file_at(path: Path) -> Path:
    """Where a read or a save of the person's own file at ``path`` goes: ``path`` itself, or the file it links to
    when the link is the person's own (a config kept in a dotfiles checkout). One rule for both: a config
    read through a planted link named another server and the person's own token file, and the token went there.

    A link someone else planted is refused (OSError ELOOP, naming ``path``), so that nothing is created,
    chmodded or written where it points: a link owned by another user, one in a folder others can write (a
    shared folder ``MAILADMIN_CONFIG`` names), one to nothing (it would create its target), or one to a file
    that is not the person's own regular file in a folder only they can write.
    """
    try:
        link = os.lstat(path)
    except FileNotFoundError:
        return path
    if not stat.S_ISLNK(link.st_mode):
        return path
    me = os.getuid()
    try:
        target = path.resolve(strict=True)
        found, folders = os.stat(target), (os.stat(path.parent), os.stat(target.parent))
    except (OSError, RuntimeError):  # dangling, a loop, or a folder that cannot be read
        raise OSError(errno.ELOOP, LINK_NOT_OWN, str(path)) from None
    if (link.st_uid != me or found.st_uid != me or not stat.S_ISREG(found.st_mode)
            or any(folder.st_mode & (stat.S_IWGRP | stat.S_IWOTH) for folder in folders)):
        raise OSError(errno.ELOOP, LINK_NOT_OWN, str(path))
    return target


def open_to_write(path: Path) -> int:
    """A descriptor to write the product's own file at ``path``, emptied, owner-only; never through a symlink.

    ``O_NOFOLLOW``: a link planted at the path (``serve``'s ``<db>.credentials`` pointing at another
    file) is refused, not written through; anything but a regular file is refused without a byte written.
    """
    flags = os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    try:
        found = os.lstat(path).st_mode
    except FileNotFoundError:
        found = stat.S_IFREG
    if stat.S_ISLNK(found):
        raise OSError(errno.ELOOP, LINK_NOT_WRITTEN)
    if not stat.S_ISREG(found):  # a FIFO is refused before it is opened, not after ENXIO
        raise OSError(errno.EINVAL, f"it is not a regular file ({_kind(found)})")
    try:
        descriptor = os.open(path, flags, 0o600)
    except OSError as error:
        if error.errno == errno.ELOOP:
            raise OSError(errno.ELOOP, LINK_NOT_WRITTEN) from None
        raise
    try:
        opened = os.fstat(descriptor)
        if not stat.S_ISREG(opened.st_mode):
            raise OSError(errno.EINVAL, f"it is not a regular file ({_kind(opened.st_mode)})")
        os.fchmod(descriptor, 0o600)
        os.ftruncate(descriptor, 0)
        os.set_blocking(descriptor, True)
    except BaseException:
        os.close(descriptor)
        raise
    return descriptor


class NotAPath(ValueError):
    """Text that cannot name a local file: the one error for it (``local_path``)."""


def local_path(text: str) -> Path:
    """The local file ``text`` names, ``~`` expanded: the one parser of paths a person types or a config holds.

    NotAPath (a ValueError) for what cannot be a path: empty, a NUL byte (``os.stat`` raised
    ValueError), ``~nosuchuser/x`` (``expanduser`` raised RuntimeError); each stopped the console.
    """
    if not text or not text.strip():
        raise NotAPath("no path given")
    if "\0" in text:
        raise NotAPath("a path cannot hold a NUL byte")
    try:
        return Path(text).expanduser()
    except RuntimeError:  # no such user, or no home directory known
        user = text[1:].split("/", 1)[0]
        raise NotAPath(f"~{user} is the home folder of no user here") from None


_HANDED_DESCRIPTORS = ("/dev/stdin", "/dev/fd/", "/proc/self/fd/")
"""Paths of a descriptor the shell handed over: ``--token-file <(pass show mail)`` is a pipe there."""


def handed_over(path: Path) -> bool:
    """Whether ``path`` names a descriptor the shell handed over (``/dev/stdin``, ``<(gunzip -c r.gz)``):
    links the system keeps, which nobody plants."""
    return str(path).startswith(_HANDED_DESCRIPTORS)


def stored_file_problem(path: Path) -> str | None:
    """Why ``path`` is no stored file to read a secret or CA from (a FIFO, device, socket, folder), or None.

    Decided by ``stat``, without opening: opening a named FIFO or ``/dev/tty`` waits for a writer
    or the keyboard (``--ca-file`` naming a FIFO hung). A pipe the shell handed over
    (``<(pass show mail)``, see ``_HANDED_DESCRIPTORS``) is what the person chose and is allowed.
    A missing file is its reader's to say.
    """
    try:
        mode = path.stat().st_mode
    except OSError:
        return None
    if stat.S_ISREG(mode) or (stat.S_ISFIFO(mode) and handed_over(path)):
        return None
    return f"it is not a regular file ({_kind(mode)})"
