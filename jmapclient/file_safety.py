"""Permission checks on files this tool reads: config, token, password and CA files.

Like ssh with a key file: a file that group or others can write is refused (someone else
could swap in their own server, token or CA); a token or password file that group or
others can read is used, with a warning that names the ``chmod`` that fixes it. These
return the words; :mod:`jmapclient.config` decides what refuses and what warns.
"""

from __future__ import annotations

import shlex
import stat
from pathlib import Path

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
