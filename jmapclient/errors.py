"""Typed errors, each with a message a person understands.

Three layers, as RFC 8620 has them:
- transport: the server could not be reached, timed out, refused the token, failed;
- request: a problem-details answer that rejects the whole request (§3.6.1);
- method: an error response in place of one method's result (§3.6.2);
and per-object :class:`SetError` values inside a successful ``/set`` response.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


class JmapError(Exception):
    """Base of every error this package raises."""


# --- Local ------------------------------------------------------------------------------


class LocalValidationError(JmapError, ValueError):
    """Bad input caught before anything is sent. ``fields`` maps a wire path to its reason."""

    def __init__(self, fields: Mapping[str, str]) -> None:
        self.fields = dict(fields)
        super().__init__("; ".join(f"{path}: {reason}" for path, reason in self.fields.items()))


# --- Transport ----------------------------------------------------------------------------


class TransportError(JmapError):
    """The exchange with the server failed below JMAP."""

    sent = False
    """True when the request went out and no answer came back: the server may have carried it out
    (a write may be stored). False when it never left: nothing was done."""


class ServerUnreachable(TransportError):
    def __init__(self, url: str, reason: str, *, sent: bool = False, dropped: bool = False,
                 address: str | None = None) -> None:
        self.url = url
        self.sent = sent  # a connection dropped after the request went out, not one never made
        self.dropped = dropped
        """The connection was made and then dropped before the answer (reset, or closed early)."""
        self.address = address
        """``host:port`` when no connection to it could be made, ``reason`` then saying why in plain words
        (:func:`jmapclient.failures.not_connected`)."""
        where = f"cannot connect to {address}" if address else f"cannot reach the server at {url}"
        super().__init__(f"{where}: {reason}")


class RequestTimeout(TransportError):
    def __init__(self, url: str, seconds: float | None, *, sent: bool = True) -> None:
        self.url = url
        self.sent = sent  # False: the connection itself was never made in time
        after = f" after {seconds:g}s" if seconds else ""
        super().__init__(f"the server at {url} did not answer{after}")


class AuthenticationFailed(TransportError):
    """HTTP 401: the token, or the user name and password, are missing, wrong or expired."""

    def __init__(self, url: str, reason: str = "refused the token (401): check or renew it") -> None:
        super().__init__(f"the server at {url} {reason}")


class AccessDenied(TransportError):
    """HTTP 403 on the request as a whole; with a bearer token the real server means a revoked API key."""

    def __init__(self, url: str, detail: str = "", *, revoked_key: bool = False) -> None:
        self.revoked_key = revoked_key
        if revoked_key:
            reason = (
                "refused the API key (403): it has been revoked; create a new one in the server's "
                "web interface"
            )
        else:
            reason = "denied access (403)"
        super().__init__(f"the server at {url} {reason}{': ' + detail if detail else ''}")


class SecondFactorRequired(AuthenticationFailed):
    """HTTP 402: the account has two-factor login, so a password over Basic is never enough (wire-notes.md)."""

    def __init__(self, url: str) -> None:
        super().__init__(
            url,
            "asks for a second factor (402): this account has two-factor login, so a password never works "
            "here; use an app password (app_...) or an API key (--token-file)",
        )


class TooManyAttempts(TransportError):
    """HTTP 429: too many failed logins; the server may then ban the address (wire-notes.md)."""

    def __init__(self, url: str, retry_after: str = "") -> None:
        self.retry_after = retry_after
        wait = f"wait {_seconds_words(retry_after)}" if retry_after else "wait a while"
        super().__init__(
            f"the server at {url} refused the login after too many failed attempts (429): {wait} before "
            "trying again, and check the credentials first: more failures may get this address banned"
        )


def _seconds_words(retry_after: str) -> str:
    """``Retry-After`` in words: seconds as "N seconds", an HTTP date as given."""
    text = retry_after.strip()
    return f"{text} seconds" if text.isdigit() else f"until {text}"


class ServerError(TransportError):
    """HTTP 5xx."""

    def __init__(self, url: str, status: int, detail: str = "") -> None:
        self.status = status
        tail = f": {detail}" if detail else ""
        super().__init__(f"the server at {url} failed with HTTP {status}{tail}")


class ProtocolError(TransportError):
    """The server answered something that is not a JMAP response."""


# --- Request-level problem details ------------------------------------------------------------

_REQUEST_MESSAGES = {
    "notJSON": "the server could not read the request as JSON",
    "notRequest": "the server did not accept the request as a JMAP request",
    "unknownCapability": "the server does not know a capability the request names",
    "limit": "the request is over a server limit",
}


class RequestError(JmapError):
    """RFC 8620 §3.6.1: the whole request was rejected."""

    def __init__(self, error_type: str, status: int, detail: str = "", limit: str | None = None) -> None:
        self.type = error_type
        self.status = status
        self.detail = detail
        self.limit = limit
        message = _REQUEST_MESSAGES.get(error_type, f"the request was rejected ({error_type})")
        if limit:
            message += f" ({limit})"
        if detail:
            message += f": {detail}"
        super().__init__(message)


# --- Method-level --------------------------------------------------------------------------------

_METHOD_MESSAGES = {
    "unknownMethod": "the server does not offer this method",
    "invalidArguments": "the server rejected the arguments",
    "forbidden": "you are not allowed to do this",
    "unsupportedFilter": "the server does not support this filter",
    "unsupportedSort": "the server cannot sort this way",
    "anchorNotFound": "the anchor is not in the results",
    "requestTooLarge": "too many objects in one call",
    "invalidResultReference": "a result reference could not be resolved",
    "accountNotFound": "the account does not exist on the server",
    "accountNotSupportedByMethod": "the account does not support this method",
    "accountReadOnly": "the account is read-only",
    "stateMismatch": "the data changed on the server since it was read; reload and try again",
    "cannotCalculateChanges": "the server cannot calculate the changes",
    "serverUnavailable": "the server is temporarily unavailable; try again",
    "serverPartialFail": "the server partly failed; reload to see what changed",
    "serverFail": "the server failed to carry out the call",
    "tooManyChanges": "too many changes to list",
}


BOOTSTRAP_MODE = "bootstrap mode"
"""Words of the real server's ``forbidden`` while it is still being set up (wire-notes.md)."""
BOOTSTRAP_MESSAGE = (
    "the server is still in bootstrap mode: finish its first-time setup in its web interface, "
    "then connect again"
)


class MethodError(JmapError):
    """RFC 8620 §3.6.2: an ``error`` response in place of a method's result."""

    def __init__(self, method: str, error_type: str, description: str | None = None, **extra: Any) -> None:
        self.method = method
        self.type = error_type
        self.description = description
        self.extra = extra
        if self.bootstrap:
            message = BOOTSTRAP_MESSAGE  # not a missing permission: nothing works until setup ends
        else:
            message = _METHOD_MESSAGES.get(error_type, f"the call failed ({error_type})")
        if description:
            message += f": {description}"
        super().__init__(f"{method}: {message}")

    @property
    def forbidden(self) -> bool:
        return self.type == "forbidden"

    @property
    def bootstrap(self) -> bool:
        """The real server refuses everything because it is not set up yet."""
        return self.forbidden and BOOTSTRAP_MODE in (self.description or "").lower()


# --- Per-object SetError --------------------------------------------------------------------------

_SET_MESSAGES = {
    "invalidProperties": "some values are not valid",
    "invalidPatch": "the change could not be applied",
    "validationFailed": "some values are not valid",
    "notFound": "the server has no object with this id (deleted, or never there)",
    "forbidden": "you are not allowed to do this",
    "willDestroy": "it is being deleted in the same call",
    "tooLarge": "it is too large for the server",
    "overQuota": "the server's quota would be exceeded",
    "rateLimit": "too many changes in a short time; wait and try again",
    "singleton": "it cannot be created or deleted",
    "alreadyExists": "it already exists",
    "stateMismatch": "the data changed on the server since it was read",
    "objectIsLinked": "it is still in use by other objects",
    "invalidForeignKey": "it refers to an object that does not exist",
    "primaryKeyViolation": "another object already has this unique value",
    "notAnswered": "not done: the server did not answer for this id (is it right?)",
}

_VALIDATION_REASONS = {
    "Required": "is required",
    "Invalid": "is not a valid value",
    "MaxValue": "is above the maximum",
    "MinValue": "is below the minimum",
    "MaxLength": "is too long",
    "MinLength": "is too short",
}


WRITE_REFUSAL = re.compile(r"\bcannot be (created|updated)\b", re.IGNORECASE)
"""The real server's words for reports it never writes: "Reports cannot be created",
"External reports cannot be updated" (wire-notes.md)."""

_BOUND_WORDS = {"MaxValue": "maximum", "MaxLength": "maximum", "MinValue": "minimum", "MinLength": "minimum"}


def _object_name(item: Any) -> str:
    """One object of the real shape (``{"object": "Domain", "id": "e"}``) as "Domain e"; older
    shapes (``@type``/``type``/``objectType`` with ``id``/``objectId``) and bare names as given."""
    if not isinstance(item, Mapping):
        return str(item) if item is not None else ""
    kind = item.get("object") or item.get("@type") or item.get("type") or item.get("objectType") or ""
    ident = item.get("id") or item.get("objectId") or ""
    ident = ", ".join(map(str, ident)) if isinstance(ident, list) else str(ident)
    return f"{kind} {ident}".strip()


def _joined(names: list[str]) -> str:
    """"a", "a and b", "a, b and c"; past five, the rest as a count."""
    if len(names) > 5:
        names = [*names[:5], f"{len(names) - 5} more"]
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def _linked_names(linked: Any) -> str:
    """``linkedObjects`` in words: "Domain e and Authentication singleton" ("" when none are named)."""
    if isinstance(linked, Mapping):
        linked = [{"object": kind, "id": ids} for kind, ids in linked.items()]
    if not isinstance(linked, list):
        return ""
    names = [name for name in map(_object_name, linked) if name]
    return _joined(names) if names else ""


def qualified_path(name: str, sent: Mapping[str, Any]) -> str:
    """The full path of a bare field name in what was sent, when it names one nested field.

    The real server's ``validationFailed`` names a nested field bare (``host``, not
    ``store/host``; wire-notes.md). A name that is a top-level key, that is not in ``sent``,
    or that is there more than once stays as it is.
    """
    if not name or "/" in name or name in sent:
        return name
    found: list[str] = []

    def walk(node: Any, prefix: str) -> None:
        if isinstance(node, Mapping):
            for key, value in node.items():
                path = f"{prefix}{key}"
                if str(key).rsplit("/", 1)[-1] == name:  # a patch's pointer path ends in the name
                    found.append(path)
                walk(value, path + "/")
        elif isinstance(node, list):
            for index, value in enumerate(node):
                walk(value, f"{prefix}{index}/")

    walk(sent, "")
    return found[0] if len(found) == 1 else name


def _reasons_by_path(description: str | None, paths: list[str]) -> dict[str, str]:
    """A description of the form "a: reason; b: reason" split by the paths it names (servers
    often join one line per property); {} when it is not of that form."""
    found: dict[str, str] = {}
    for part in (description or "").split("; "):
        path, sep, reason = part.partition(": ")
        if sep and path in paths and reason:
            found.setdefault(path, reason)
    return found


@dataclass
class SetError:
    """One object's failure inside a ``/set`` response."""

    type: str
    description: str | None = None
    properties: list[str] = field(default_factory=list)
    validation_errors: list[dict[str, Any]] = field(default_factory=list)
    raw: dict[str, Any] = field(default_factory=dict)
    sent: Mapping[str, Any] = field(default_factory=dict)
    """What was sent for this object: bare nested names in the answer are found in it."""

    @classmethod
    def from_wire(cls, data: Mapping[str, Any]) -> SetError:
        return cls(
            type=str(data.get("type", "unknown")),
            description=data.get("description"),
            properties=[str(p) for p in data.get("properties") or []],
            validation_errors=[dict(v) for v in data.get("validationErrors") or [] if isinstance(v, Mapping)],
            raw=dict(data),
        )

    @property
    def message(self) -> str:
        worded = self._worded_by_client()
        if worded:
            return f"{worded}: {self.description}" if self.description else worded
        text = _SET_MESSAGES.get(self.type, self.type)
        return f"{text}: {self.description}" if self.description else text

    @property
    def write_refused(self) -> bool:
        """The real server refuses to create or update this kind of object as its rule."""
        return WRITE_REFUSAL.search(self.description or "") is not None

    def _worded_by_client(self) -> str:
        """The real server sends these three without a description (wire-notes.md); say what they mean.

        Their ``objectId`` is ``{"object": "Directory", "id": "b"}``: the object concerned (for
        ``invalidForeignKey`` the one referred to), named as "Directory b".
        """
        target = _object_name(self.raw.get("objectId"))
        if self.type == "objectIsLinked":
            linked = _linked_names(self.raw.get("linkedObjects"))
            users = f"used by {linked}" if linked else "used by other objects"
            return f"it is still {users}; change or delete those first"
        if self.type == "invalidForeignKey":
            return f"it refers to {target or 'another object'}, which does not exist on the server"
        if self.type == "forbidden" and self.write_refused:
            # The server's rule, not the token's rights: no token could do this.
            return "the server never accepts this write: received reports arrive only by e-mail"
        if self.type == "primaryKeyViolation":
            fields = ", ".join(self.properties)
            value = f" the same {fields}" if fields else " this unique value"
            other = f" ({target})" if target else ""
            return f"another object{other} already has{value}"
        return ""

    def _referring_field(self) -> str | None:
        """The field an ``invalidForeignKey`` is about: the real server names only the object referred to, and
        "error: it refers to Tenant zzz, which does not exist on the server" named no field (the CLI's lines are
        ``field: reason``; the form could not mark it)."""
        if self.type != "invalidForeignKey" or not isinstance(self.raw.get("objectId"), Mapping):
            return None
        from jmapclient.models.objects import REFERRING_FIELDS  # the models' word, read only for this refusal

        return REFERRING_FIELDS.get(str(self.raw["objectId"].get("object")))

    def field_messages(self) -> dict[str, str]:
        """Per-field messages from ``invalidProperties``/``invalidPatch`` or ``validationFailed``."""
        messages: dict[str, str] = {}
        for item in self.validation_errors:
            path = str(item.get("property") or item.get("path") or "")
            kind = str(item.get("type"))
            reason = _VALIDATION_REASONS.get(kind, f"is not valid ({item.get('type')})")
            # The real server puts the bound in `required` (e.g. 8192); others name it.
            for bound in ("required", "value", "maximum", "minimum", "max", "min"):
                value = item.get(bound)
                if isinstance(value, int | float | str) and not isinstance(value, bool):
                    reason += f" ({_BOUND_WORDS.get(kind, bound)} {value})"
                    break
            if item.get("description"):
                reason = str(item["description"])
            messages[path] = reason
        if not self.properties and (field := self._referring_field()):
            messages[field] = self._worded_by_client()
        own = _reasons_by_path(self.description, self.properties)
        whole = self.description if len(self.properties) == 1 else None  # never one text repeated per path
        for path in self.properties:
            reason = own.get(path) or whole or self._worded_by_client() or _SET_MESSAGES.get(self.type, "is not valid")
            messages.setdefault(path, reason)
        return {qualified_path(path, self.sent): reason for path, reason in messages.items()}

    def __str__(self) -> str:
        fields = self.field_messages()
        if fields:
            return "; ".join(f"{path}: {reason}" for path, reason in fields.items())
        return self.message


class SetFailed(JmapError):
    """Raised by convenience calls when one or more objects of a ``/set`` failed."""

    def __init__(self, failures: Mapping[str, SetError], done: Mapping[str, Any] | None = None) -> None:
        self.failures = dict(failures)
        self.done = dict(done or {})
        parts = [f"{key}: {error}" for key, error in self.failures.items()]
        super().__init__("; ".join(parts))


def answer_lost(error: JmapError) -> bool:
    """True when the request went out and no answer came: the server may have carried it out."""
    return isinstance(error, TransportError) and error.sent


def not_found(error: JmapError | SetError) -> bool:
    """True when the server answered that it has no such object (``notFound``, for any object of a failed
    set): deleted, elsewhere, since it was read."""
    if isinstance(error, SetFailed):
        return any(not_found(failure) for failure in error.failures.values())
    return isinstance(error, SetError) and error.type == "notFound"
