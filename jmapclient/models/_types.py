"""Wire types of interface.md, as pydantic annotated types.

Each carries a :class:`WireKind` marker so that forms, the CLI and ``describe`` can
tell a Duration from a plain integer without a second table of fields.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from functools import cached_property, lru_cache
from typing import Annotated, Any, Self, TypeVar

from pydantic import (
    AfterValidator,
    AllowInfNan,
    BeforeValidator,
    PlainSerializer,
    SecretStr,
    StrictBool,
    StrictInt,
    StringConstraints,
    ValidationInfo,
    WrapSerializer,
)
from pydantic_core import PydanticCustomError

from jmapclient import encoding

T = TypeVar("T")


class WireEnum(StrEnum):
    """An enumeration whose members carry a label for people beside their wire value.

    Declared as ``MAIL_FROM = "mailFrom", "MAIL FROM"``; a member without a label reads as its value.
    """

    _value_: str
    label: str

    def __new__(cls, value: str, label: str | None = None) -> Self:
        member = str.__new__(cls, value)
        member._value_ = value
        member.label = label or value
        return member

    @cached_property
    def value(self) -> str:
        """The wire value, kept on the member once read: pydantic reads ``value`` of every enum field it
        validates (``use_enum_values``; 42 a created report), and Enum's own ``value`` is a property written
        in Python, three times slower (issue #33)."""
        return self._value_


@dataclass(frozen=True)
class WireKind:
    """Marks what a field holds on the wire, beyond its Python type."""

    name: str


def _reject_bool_and_text(value: Any) -> Any:
    # JSON true/false and "1.0" must not slip into a number field in lax mode.
    if isinstance(value, bool | str):
        raise ValueError("a number is required")
    return value


def _non_negative(value: int) -> int:
    if value < 0:
        raise ValueError(encoding.bound_message(minimum=0))
    return encoding.check_wire_int(value)


def _positive_duration(value: int) -> int:
    # The real server refuses a Duration of 0 ("Invalid duration value"; wire-notes.md).
    if value <= 0:
        raise ValueError("must be longer than 0 (e.g. 30s); the server refuses a zero duration")
    return encoding.check_duration(value)


_SPACE = re.compile(r"\s")
"""The characters ``str.isspace`` names (the same set, every code point: tests/models), found in one C scan
instead of a Python step per character: a created report's domains and addresses are checked about 14 times."""


def _check_email(value: str) -> str:
    local, at, domain = value.rpartition("@")
    if not at or not local or not domain or _SPACE.search(value):
        raise ValueError(f"{value!r} is not an e-mail address")
    return value


def _check_domain(value: str) -> str:
    if _SPACE.search(value) or value.startswith("."):
        raise ValueError(f"{value!r} is not a domain name")
    return value


def _check_uri(value: str) -> str:
    scheme, sep, rest = value.partition("://")
    if not sep or not scheme or not rest or _SPACE.search(value):
        raise ValueError(f"{value!r} is not a URL like scheme://host")
    return value


LOOPBACK_HOSTS = frozenset({"localhost", "127.0.0.1", "::1", "[::1]"})


def _host_of(url: str) -> str:
    authority = url.partition("://")[2].split("/", 1)[0].rpartition("@")[2]
    if authority.startswith("["):
        return authority[: authority.find("]") + 1].lower()
    return authority.split(":", 1)[0].lower()


def _is_loopback(host: str) -> bool:
    if host in LOOPBACK_HOSTS or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _scheme(value: str) -> str:
    return value.partition("://")[0].lower()


@dataclass(frozen=True)
class Advice:
    """A check beyond the server's, declared with the type: what it finds is a warning shown beside
    the field and by the CLI, never a refusal. The real server checks only that ``url`` and
    ``issuerUrl`` are non-empty, and holds directories that pass no stricter rule (wire-notes.md)."""

    check: Callable[[str], str | None]
    alters: bool = False
    """What it finds means the server stores another value than the one sent (a secret's spaces, trimmed):
    a form holds the save back once, so the admin sees it before it is stored."""


LDAP_SCHEMES = ("ldap", "ldaps", "ldapi")


def _ldap_url_advice(value: str) -> str | None:
    if _scheme(value) in LDAP_SCHEMES and "://" in value:
        return None
    return "not an LDAP URL (ldap://, ldaps:// or ldapi://); the server stores it, but logins may fail"


def _issuer_url_advice(value: str) -> str | None:
    # OpenID Connect Discovery asks for https; plain http is common inside a container network.
    scheme = _scheme(value)
    if scheme == "https" or (scheme == "http" and _is_loopback(_host_of(value))):
        return None
    if scheme == "http":
        return ("plain http: tokens and keys travel unprotected unless the identity provider is on a "
                "private network (e.g. the same container network)")
    return "not an http(s) URL; the server stores it, but cannot discover the provider's endpoints"


_OCTET = "(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])"  # [0-9], not \d: \d also matches other scripts' digits
_CANONICAL_IPV4 = re.compile(rf"(?:{_OCTET}\.){{3}}{_OCTET}")
"""A dotted quad already in the form ``ipaddress`` would print (no leading zeros, each part ≤ 255)."""


def _check_ip(value: str) -> str:
    # Most addresses in reports are plain IPv4: a pattern settles those at a tenth of the cost of
    # ipaddress, which still decides (and normalises) everything else, IPv6 included.
    if _CANONICAL_IPV4.fullmatch(value):
        return value
    try:
        return _normalised_ip(value)
    except ValueError:
        raise ValueError(f"{value!r} is not an IPv4 or IPv6 address") from None


@lru_cache(maxsize=4096)
def _normalised_ip(value: str) -> str:
    # Reports name the same senders over and over; a refused value raises and is not cached.
    return str(ipaddress.ip_address(value))


READING = "reading"
"""Validation context key: the object was read from a server, not written by this client."""


def is_reading(info: ValidationInfo) -> bool:
    return isinstance(info.context, dict) and bool(info.context.get(READING))


@dataclass(frozen=True)
class OutsideText:
    """Marks a string taken from outside (a received report): a server stores it without validation,
    so reading accepts any string, ``""`` included, and a missing one reads as ``""``; writing holds it
    to the same rules as the plain type (wire-notes.md, "DMARC reports as the real server stores them")."""


OUTSIDE_TEXT = OutsideText()


def _outside(check: Any = None) -> AfterValidator:
    def validate(value: str, info: ValidationInfo) -> str:
        if is_reading(info):
            return value
        if not value:
            raise PydanticCustomError(
                "string_too_short", "String should have at least {min_length} character", {"min_length": 1}
            )
        return check(value) if check else value

    return AfterValidator(validate)


def _parse_timestamp(value: Any) -> Any:
    if isinstance(value, str):
        return encoding.parse_utc(value)
    if isinstance(value, datetime):
        return encoding.parse_utc(encoding.format_utc(value))
    raise ValueError("a timestamp is text like 2026-01-31T12:00:00Z")


def _reveal(value: SecretStr) -> str:
    return value.get_secret_value()


# Empty strings are invalid values on the wire; null clears an optional field instead.
Text = Annotated[str, StringConstraints(strict=True, min_length=1), WireKind("string")]
Id = Annotated[str, StringConstraints(strict=True, min_length=1), WireKind("id")]
EmailAddress = Annotated[Text, AfterValidator(_check_email), WireKind("email")]
DomainName = Annotated[Text, AfterValidator(_check_domain), WireKind("domain")]
Uri = Annotated[Text, AfterValidator(_check_uri), WireKind("uri")]
# The server checks only that these are non-empty; stricter checks are advice (warnings).
LdapUrl = Annotated[Text, WireKind("uri"), Advice(_ldap_url_advice)]
IssuerUrl = Annotated[Text, WireKind("uri"), Advice(_issuer_url_advice)]
IpAddr = Annotated[Text, AfterValidator(_check_ip), WireKind("ip")]
# Non-negativity is a validator, not Ge(0): a type-level Ge would replace a field's own
# tighter ``ge=`` bound in pydantic's schema.
UnsignedInt = Annotated[StrictInt, AfterValidator(_non_negative), WireKind("uint")]
Boolean = Annotated[StrictBool, WireKind("bool")]
# NaN and Infinity are not JSON: a report holding 1e999 is refused here, not sent as ``Infinity``.
Float = Annotated[float, BeforeValidator(_reject_bool_and_text), AllowInfNan(False), WireKind("float")]
Duration = Annotated[StrictInt, AfterValidator(_positive_duration), WireKind("duration")]
"""Integer milliseconds on the wire, more than 0; shown to people as ``30s``."""

UTCDateTime = Annotated[
    datetime,
    BeforeValidator(_parse_timestamp),
    PlainSerializer(encoding.format_utc, return_type=str),
    WireKind("datetime"),
]

# The same types for strings taken from a received report: lenient when read, strict when written.
OutsideString = Annotated[str, StringConstraints(strict=True), _outside(), WireKind("string"), OUTSIDE_TEXT]
OutsideEmail = Annotated[str, StringConstraints(strict=True), _outside(_check_email), WireKind("email"), OUTSIDE_TEXT]
OutsideDomain = Annotated[
    str, StringConstraints(strict=True), _outside(_check_domain), WireKind("domain"), OUTSIDE_TEXT
]


def _secret_advice(value: str) -> str | None:
    # The real server trims every string it is sent, a secret's too (wire-notes.md, "set"): a password with a
    # space at its end, typed or pasted, would be stored without it, and the logins it is for would fail
    # with no word of why. A secret is never shown back, so this is the one place the admin can learn it.
    if value != value.strip():
        return ("it starts or ends with a space, tab or line break: the real server removes those, so the "
                "secret it stores is not the one typed")
    return None


SecretText = Annotated[
    SecretStr,
    StringConstraints(min_length=1),
    PlainSerializer(_reveal, return_type=str),
    WireKind("secret"),
    Advice(_secret_advice, alters=True),
]
"""A secret: hidden from repr and logs, revealed only when written to the wire."""


def _set_to_wire(value: list[Any], handler: Any) -> dict[str, bool]:
    return encoding.set_to_wire(handler(value))


def _list_to_wire(value: list[Any], handler: Any) -> dict[str, Any]:
    return encoding.list_to_wire(handler(value))


WireSet = Annotated[
    list[T],
    BeforeValidator(encoding.set_from_wire),
    WrapSerializer(_set_to_wire),
    WireKind("set"),
]
"""Set<T>: ``{member: true}`` on the wire, an ordered de-duplicated list in Python."""

def _index_list_from_wire(value: Any) -> list[Any]:
    """``encoding.list_from_wire`` with the shapes nearly every list of a report has taken first: no item, or
    one at "0" (a created report's 26 lists are read on every create; the general reading costs twice as much)."""
    if type(value) is dict:
        if not value:
            return []
        if len(value) == 1 and "0" in value:
            return [value["0"]]
    return encoding.list_from_wire(value)


IndexList = Annotated[
    list[T],
    BeforeValidator(_index_list_from_wire),
    WrapSerializer(_list_to_wire),
    WireKind("list"),
]
"""List<T> of objects: ``{"0": {...}}`` on the wire (arrays are read too)."""
