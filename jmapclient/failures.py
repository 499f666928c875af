"""Errors → ``error: ...`` lines on stderr, one per field or per failed object.

Messages come from :mod:`jmapclient.errors`; nothing here prints a value the person
typed, a token, or a traceback.
"""

from __future__ import annotations

import errno
import socket
import ssl
from collections.abc import Iterable, Iterator, Mapping
from urllib.parse import urlsplit

from jmapclient.errors import LocalValidationError, ServerUnreachable, SetError, SetFailed
from jmapclient.outcome import note

ERROR_PREFIX = "error: "


def emit_error(line: str) -> None:
    note(f"{ERROR_PREFIX}{line}")


def emit_notes(notes: Iterable[str]) -> None:
    """One ``note:`` line each on stderr, so piped output stays data: the server could not
    filter or sort exactly as asked, and what the client did about it."""
    for text in notes:
        note(f"note: {text}")


def set_error_lines(error: SetError, subject: str = "") -> list[str]:
    """One line per field the server named, or one line with the error's message."""
    lead = f"{subject}: " if subject else ""
    fields = error.field_messages()
    if fields:
        # Some servers repeat the path in the description; say it once.
        return [f"{lead}{path}: {reason.removeprefix(f'{path}: ')}" for path, reason in fields.items()]
    return [f"{lead}{error.message}"]


def set_failures_lines(failures: Mapping[str, SetError], single: bool = False) -> list[str]:
    """Lines for every failed object; ``single`` leaves out the creation key of a lone create."""
    lines: list[str] = []
    for key, error in failures.items():
        lines += set_error_lines(error, "" if single else key)
    return lines


REFUSAL_HINT = "import the reports into a server that accepts their creation, such as `mailadmin serve`"
"""What to do, said after the server's refusal (whose words already say it never creates reports): not the
refusal again in other words."""


def error_lines(error: BaseException) -> list[str]:
    if isinstance(error, LocalValidationError):
        return [f"{path}: {reason}" for path, reason in error.fields.items()]
    if isinstance(error, SetFailed):
        return set_failures_lines(error.failures, single=list(error.failures) == ["new"])
    return [str(error) or type(error).__name__]


CONNECT_WORDS: dict[int, str] = {
    errno.ECONNREFUSED: "connection refused (is the server running?)",
    errno.EHOSTUNREACH: "no route to that host",
    errno.ENETUNREACH: "the network is unreachable from this machine",
    errno.ETIMEDOUT: "the connection timed out",
    errno.ECONNRESET: "the connection was reset",
    errno.EADDRNOTAVAIL: "that address cannot be used from this machine",
}
"""Why a connection could not be made, in plain words, the most telling first: an address tried several ways
(``localhost``: ::1, then 127.0.0.1) is said by the first of these its attempts met."""
NAME_WORDS: dict[int, str] = {
    socket.EAI_NONAME: "no such host name (check the URL)",
    socket.EAI_AGAIN: "the host name could not be looked up now (is DNS reachable?)",
}
CHAIN_LIMIT = 32
"""Exceptions looked at under httpx's, at most: the chain is short; a cycle or a huge group ends here."""


def not_connected(url: str, error: BaseException) -> ServerUnreachable | None:
    """``url``'s server when no connection to it could be made: which address, and the operating system's
    reason in plain words ("All connection attempts failed", httpx's own, named neither). None when the
    reason is not there to tell, or is TLS's (said with its own hint)."""
    found = list(_under(error))
    if any(isinstance(item, ssl.SSLError) for item in found):
        return None
    named = [item for item in found if isinstance(item, OSError) and item.errno is not None]
    if not named:
        return None
    return ServerUnreachable(url, _connect_words(named), address=_address(url))


def _under(error: BaseException) -> Iterator[BaseException]:
    """``error`` and what it was raised from or during, a group's members too, each once."""
    pending: list[BaseException] = [error]
    seen: set[int] = set()
    while pending and len(seen) < CHAIN_LIMIT:
        item = pending.pop(0)
        if id(item) in seen:
            continue
        seen.add(id(item))
        yield item
        if isinstance(item, BaseExceptionGroup):
            pending += item.exceptions
        pending += [linked for linked in (item.__cause__, item.__context__) if linked is not None]


def _connect_words(errors: list[OSError]) -> str:
    for code, words in CONNECT_WORDS.items():
        if any(item.errno == code and not isinstance(item, socket.gaierror) for item in errors):
            return words
    first = errors[0]
    if isinstance(first, socket.gaierror) and first.errno in NAME_WORDS:
        return NAME_WORDS[first.errno]
    return (first.strerror or str(first)).lower()


def _address(url: str) -> str:
    """``host:port`` as the connection was tried: the URL's port, else its scheme's."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    port = parts.port or (443 if parts.scheme.lower() == "https" else 80)
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
