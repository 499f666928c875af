"""What the console does when it stops on an error nobody expected.

Textual's own handler prints a traceback WITH local variables, and a local can hold a
secret (a save's patch holds the new bind secret). Here the person sees a short message
and a traceback without locals; the full details, locals included, go to a crash file
(0600) in the data directory. Every secret is masked in both: the values of fields the
models declare ``secret=True`` found anywhere in the frames' locals, and the known tokens.
"""

from __future__ import annotations

import traceback
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType

from textual.worker import WorkerFailed

from jmapclient.config import data_dir, write_private
from jmapclient.display import safe_text
from jmapclient.file_safety import make_private_folder
from jmapclient.masking import mask_text, secret_field_names, secrets_in

CRASH_PREFIX = "crash-"


def _frames(tb: TracebackType | None) -> Iterable[TracebackType]:
    while tb is not None:
        yield tb
        tb = tb.tb_next


def underlying(error: BaseException) -> BaseException:
    """The error a worker raised, out of the ``WorkerFailed`` Textual wraps it in.

    Textual makes a ``WorkerFailed`` without raising it: it has no traceback, no cause and no
    context, so reporting it would say what failed but never where, and the locals of the
    worker's frames (where a secret may sit) would never be looked at.
    """
    while isinstance(error, WorkerFailed) and isinstance(error.error, BaseException):
        error = error.error
    return error


def _chain(error: BaseException) -> Iterable[BaseException]:
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__


def secrets_of(error: BaseException, known: Iterable[str]) -> set[str]:
    """The known secrets plus every secret field's value in the locals of the error's frames."""
    names = secret_field_names()
    found = {k for k in known if k}
    for link in _chain(underlying(error)):
        for tb in _frames(link.__traceback__):
            try:
                found |= secrets_in(dict(tb.tb_frame.f_locals), names)
            except Exception:  # a local whose walk fails must not stop the crash report
                continue
    return found


def short_report(error: BaseException, secrets: Iterable[str]) -> str:
    """What the terminal shows: the traceback without locals, masked, made visible."""
    text = "".join(traceback.format_exception(underlying(error)))
    return safe_text(mask_text(text, secrets), single_line=False)


def full_report(error: BaseException, secrets: Iterable[str]) -> str:
    """The crash file's body: the traceback with locals (their reprs), masked."""
    error = underlying(error)
    try:
        exception = traceback.TracebackException.from_exception(error, capture_locals=True)
        text = "".join(exception.format())
    except Exception:  # a repr that raises: fall back to the traceback without locals
        text = "".join(traceback.format_exception(error))
    return mask_text(text, secrets)


def write_crash_file(error: BaseException, secrets: Iterable[str], directory: Path | None = None) -> Path | None:
    """The full report in ``crash-<time>.txt`` (owner-only), or None when it cannot be written."""
    folder = directory or data_dir()
    path = folder / f"{CRASH_PREFIX}{datetime.now(UTC):%Y%m%dT%H%M%S%fZ}.txt"
    try:
        make_private_folder(folder)
        write_private(path, full_report(error, secrets).encode("utf-8", "backslashreplace"))
    except OSError:
        return None
    return path
