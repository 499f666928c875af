"""What a live test needs beyond the settings: the login, its password, the directory's own secret.

The server never returns a stored secret (a get shows ``****``), so the test asks for it; a secret
held in an environment variable or a file is read here when it exists on this machine, and the
test says so, since this machine is not the mail server.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jmapclient.dirtest.steps import Step
from jmapclient.encoding import is_masked

Ask = Callable[[str], "str | None"]
"""Asks the person for a secret (a hidden prompt, a password field); None when they give none."""


def _never(_: str) -> str | None:
    return None


def _always(_: str) -> bool:
    return True


@dataclass
class LiveInput:
    login: str | None = None
    """The address to look up (LDAP, SQL)."""
    password: str | None = None
    """The login's password (LDAP user bind), or the access token for an OpenID Connect test."""
    ask_secret: Ask = _never
    """Asked for the directory's own secret (bind secret, database password) when it is masked."""
    secret_source: str = "typed in"
    """How ``ask_secret`` gets it, for the notes ("read from the file PATH")."""
    confirm_cleartext: Callable[[str], bool] = _always
    """Shown the warning before a password goes over an unencrypted LDAP connection; False stops it."""
    timeout: float | None = None
    """Seconds, a bound the person chose (``--timeout``) on each step as a whole (connect, TLS, a bind, the
    searches of a step, a query, a fetch); None: each step is bounded by the directory's own timeout."""
    ca_file: str | None = None
    """A private CA (PEM) trusted for the directory's TLS, on top of the system store."""
    said: list[str] = field(default_factory=list)
    """Where each secret came from, in words, for the report's notes."""
    origins: dict[str, str] = field(default_factory=dict)
    """Each secret's origin by what it is ("bind secret": "read from the file PATH"), for a fix to name it."""
    cancelled: threading.Event = field(default_factory=threading.Event)
    """Set when nobody waits for the result any more (the console's view left): the call under way is cut."""
    on_step: Callable[[Step], None] | None = None
    """Told each step as it ends, in the test's thread: the console shows which one runs meanwhile."""


DEFAULT_STEP_SECONDS = 10.0
"""A step's bound where the directory has no timeout of its own (OpenID Connect)."""
MOST_STEP_SECONDS = 120.0
"""The longest a step waits, whatever the directory's timeout: past two minutes a server is down, not slow,
and the console's test (or a terminal) waits that long for the word."""


def step_timeout(configured: Any, inputs: LiveInput, default_ms: int) -> float:
    """Seconds for one step: the directory's own timeout (milliseconds; ``default_ms``, the server's, when unset),
    at most :data:`MOST_STEP_SECONDS`, and at most the bound the person chose.

    The directory's timeout itself, not a shorter one of the test's: the fix for a silent server says to raise
    it, and a test capped below it kept failing "within 10 s" however far it was raised.
    A form being edited may hold anything there; a value that is no positive number counts as unset.
    """
    millis = configured if isinstance(configured, int) and not isinstance(configured, bool) and configured > 0 \
        else default_ms
    seconds = min(millis / 1000, MOST_STEP_SECONDS)
    return seconds if inputs.timeout is None else min(seconds, inputs.timeout)


def fetch_timeout(inputs: LiveInput) -> float:
    """Seconds for one step of a directory that has no timeout of its own (OpenID Connect's fetches)."""
    return DEFAULT_STEP_SECONDS if inputs.timeout is None else inputs.timeout


def resolve_secret(secret: Any, what: str, inputs: LiveInput) -> str | None:
    """The directory's secret (wire SecretKeyOptional) as this machine can get it, or None."""
    if not isinstance(secret, Mapping):
        return None
    kind = secret.get("@type")
    if kind == "Value":
        value = secret.get("secret")
        if isinstance(value, str) and value and not is_masked(value):
            _came(inputs, what, "taken from the settings given")
            return value
        return _asked(what, inputs, "the server shows it only as ****")
    if kind == "EnvironmentVariable":
        name = str(secret.get("variableName") or "")
        if name and name in os.environ:
            _came(inputs, what, f"read from the environment variable {name} on this machine")
            return os.environ[name]
        return _asked(what, inputs, f"the environment variable {name} is not set on this machine")
    if kind == "File":
        path = Path(str(secret.get("filePath") or ""))
        try:
            value = path.read_text(encoding="utf-8").strip()
        except OSError:
            return _asked(what, inputs, f"the file {path} is not readable on this machine")
        _came(inputs, what, f"read from the file {path} on this machine")
        return value
    return None


def _came(inputs: LiveInput, what: str, origin: str, *, why: str = "") -> None:
    """Where the secret ``what`` came from, kept once for both its readers: the report's notes (a sentence)
    and a fix that names it (``origins``)."""
    inputs.origins[what] = origin
    inputs.said.append(f"The {what} was {origin} ({why})." if why else f"The {what} is {origin}.")


def _asked(what: str, inputs: LiveInput, why: str) -> str | None:
    value = inputs.ask_secret(f"{what} ({why})")
    if value:
        _came(inputs, what, inputs.secret_source, why=why)
        return value
    inputs.said.append(f"No {what} was given ({why}).")
    return None


def directory_secret(wire: Mapping[str, Any]) -> tuple[str, Any] | None:
    """(what it is called, the wire secret) of the directory's own secret, or None when it has none to use."""
    kind = wire.get("@type")
    if kind == "Ldap" and wire.get("bindDn"):
        return "bind secret", wire.get("bindSecret")
    store = wire.get("store")
    if kind == "Sql" and isinstance(store, Mapping) and store.get("@type") in ("PostgreSql", "MySql"):
        return "database password", store.get("authSecret")
    return None


def must_ask(secret: Any) -> bool:
    """The secret cannot be had here without asking: masked, or an environment variable or file absent here."""
    if not isinstance(secret, Mapping):
        return False
    kind = secret.get("@type")
    if kind == "Value":
        return secret.get("secret") in (None, "") or is_masked(secret.get("secret"))
    if kind == "EnvironmentVariable":
        return str(secret.get("variableName") or "") not in os.environ
    if kind == "File":
        return not Path(str(secret.get("filePath") or "")).is_file()
    return False
