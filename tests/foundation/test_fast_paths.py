"""The shortcuts taken for speed give exactly what the general path gives, hostile input included.

Each shortcut (a pattern before ``ipaddress``, position keys made once, a formatted timestamp
without strftime, the outside-text fields worked out once per class) is checked against the
slow path it stands in for, over many seeded random and hostile values.
"""

from __future__ import annotations

import ipaddress
import random
from collections.abc import Callable
from datetime import UTC, datetime, timedelta, timezone
from typing import Annotated, Any

import pytest
from pydantic import TypeAdapter, ValidationError

from jmapclient import encoding
from jmapclient.models._base import WireModel
from jmapclient.models._types import (
    _SPACE,
    READING,
    _check_domain,
    _check_email,
    _check_ip,
    _check_uri,
    _index_list_from_wire,
)
from jmapclient.models.dmarc import DmarcDkimResult, DmarcExternalReport
from jmapclient.models.introspect import field_by_wire, fields_of
from jmapclient.models.objects import OBJECT_TYPES
from server_stub.demo_data import DEMO_NOW, demo_report

HOSTILE_IPS = [
    "0.0.0.0", "255.255.255.255", "256.1.1.1", "01.2.3.4", "1.2.3.04", "1.2.3", "1.2.3.4.5", "1.2.3.4\n",
    " 1.2.3.4", "1.2.3.4 ", "1.2.3.4/32", "", ".", "1..2.3", "١.٢.٣.٤", "१.2.3.4", "１.2.3.4", "1.2.3.4\x00",
    "::1", "::", "2001:DB8::1", "2001:db8:0:0:0:0:0:1", "::ffff:192.0.2.1", "fe80::1%eth0", "2001:db8::g",
    "1.2.3.4" * 50, "-1.2.3.4", "+1.2.3.4", "0x1.2.3.4",
]


def _reference_ip(value: str) -> str | None:
    try:
        return str(ipaddress.ip_address(value))
    except ValueError:
        return None


def _checked_ip(value: str) -> str | None:
    try:
        return _check_ip(value)
    except ValueError:
        return None


def _random_dotted(rng: random.Random) -> str:
    parts = [str(rng.choice([rng.randint(0, 300), f"0{rng.randint(0, 9)}", rng.randint(0, 255)]))
             for _ in range(rng.choice([3, 4, 4, 4, 5]))]
    return ".".join(parts)


def test_the_ip_check_agrees_with_ipaddress_on_every_value() -> None:
    rng = random.Random(17)
    values = HOSTILE_IPS + [_random_dotted(rng) for _ in range(5000)]
    disagreements = [(v, _reference_ip(v), _checked_ip(v)) for v in values if _reference_ip(v) != _checked_ip(v)]
    assert disagreements == []
    # The shortcut really is taken for most of them, and refuses as many as the reference does.
    assert sum(_reference_ip(v) is None for v in values) > 1000


def test_an_ipv6_address_is_normalised_each_time_it_is_read() -> None:
    assert _check_ip("2001:DB8:0::1") == "2001:db8::1"
    assert _check_ip("2001:DB8:0::1") == "2001:db8::1"  # a second time, from the cache
    with pytest.raises(ValueError, match="not an IPv4 or IPv6"):
        _check_ip("2001:db8::g")
    with pytest.raises(ValueError, match="not an IPv4 or IPv6"):
        _check_ip("2001:db8::g")  # a refusal is not remembered as an answer


@pytest.mark.parametrize("size", [0, 1, 2, 10, 255, 256, 257, 600])
def test_lists_map_to_positions_and_back_at_any_length(size: int) -> None:
    items = [{"n": n} for n in range(size)]
    wire = encoding.list_to_wire(items)
    assert wire == {str(n): item for n, item in enumerate(items)}
    assert encoding.list_to_wire(iter(items)) == wire
    assert encoding.list_from_wire(wire) == items
    shuffled = dict(random.Random(size).sample(list(wire.items()), size))
    assert encoding.list_from_wire(shuffled) == items


@pytest.mark.parametrize("wire", [{"0": 1, "2": 2}, {"1": 1}, {"0": 1, "00": 2}, {"a": 1}, {"0": 1, "-1": 2}])
def test_a_list_with_a_gap_or_a_foreign_key_is_still_refused(wire: dict[str, int]) -> None:
    with pytest.raises(ValueError, match="list"):
        encoding.list_from_wire(wire)


def test_format_utc_matches_strftime_for_every_kind_of_time() -> None:
    rng = random.Random(5)
    zones = [UTC, UTC, None, timezone(timedelta(hours=5, minutes=30)), timezone(timedelta(hours=-8))]
    for _ in range(5000):
        moment = datetime(rng.randint(2, 9998), rng.randint(1, 12), rng.randint(1, 28), rng.randint(0, 23),
                          rng.randint(0, 59), rng.randint(0, 59), rng.randint(0, 999_999), tzinfo=rng.choice(zones))
        aware = moment if moment.tzinfo else moment.replace(tzinfo=UTC)
        utc = aware.astimezone(UTC)
        assert encoding.format_utc(moment) == f"{utc.year:04d}" + utc.strftime("-%m-%dT%H:%M:%SZ")
    # Below year 1000 strftime does not pad the year ("999-01-02..."), which nothing reads back.
    early = datetime(999, 1, 2, 3, 4, 5, tzinfo=UTC)
    assert encoding.format_utc(early) == "0999-01-02T03:04:05Z"


def _utc_the_long_way(text: str) -> datetime | None:
    """What parse_utc promises, spelled out: offsets and fractions read, UTC seconds out (None: refused)."""
    candidate = text.strip()
    try:
        moment = datetime.fromisoformat(candidate[:-1] + "+00:00" if candidate.endswith(("z", "Z")) else candidate)
        return (moment if moment.tzinfo else moment.replace(tzinfo=UTC)).astimezone(UTC).replace(microsecond=0)
    except (ValueError, OverflowError):
        return None


HOSTILE_TIMES = [
    "2026-01-31T120000.5Z", "2026-W05-6T12:00:00Z", "2026-01-31T24:00:00Z", "2026-13-31T12:00:00Z",
    "2026-02-30T12:00:00Z", "٢٠٢٦-01-31T12:00:00Z", "2026-01-31T12:00:00z", "2026-01-31 12:00:00Z",
    "0001-01-01T00:00:00Z", "9999-12-31T23:59:59Z", "2026-01-31T12:00:60Z", "2026-01-31T12:00:00+",
    "x026-01-31T12:00:00Z", "2026-01-31T12:00:0\x00Z", "2026-01-31T12:00:00.Z", "20260131T120000Z    ",
]


def test_the_timestamp_shortcut_reads_as_the_general_path() -> None:
    rng = random.Random(7)
    written = [encoding.format_utc(datetime(rng.randint(1, 9999), rng.randint(1, 12), rng.randint(1, 28),
                                            rng.randint(0, 23), rng.randint(0, 59), rng.randint(0, 59), tzinfo=UTC))
               for _ in range(2000)]
    for text in [*written, *HOSTILE_TIMES]:
        expected = _utc_the_long_way(text)
        if expected is None:
            with pytest.raises(ValueError):
                encoding.parse_utc(text)
            continue
        moment = encoding.parse_utc(text)
        assert (moment, moment.tzinfo, moment.microsecond) == (expected, UTC, 0), text


def test_missing_outside_text_reads_empty_on_every_nested_model_and_is_required_when_written() -> None:
    wire = demo_report(random.Random(3), DEMO_NOW, 0, 1)
    del wire["subject"], wire["from"], wire["report"]["orgName"]
    record = wire["report"]["records"]["0"]
    del record["headerFrom"], record["dkimResults"]["0"]["domain"], record["dkimResults"]["0"]["selector"]
    read = DmarcExternalReport.model_validate(wire, context={READING: True})
    first = read.report.records[0]
    assert (read.subject, read.sender, read.report.org_name, first.header_from) == ("", "", "", "")
    assert (first.dkim_results[0].domain, first.dkim_results[0].selector) == ("", "")
    assert read.report.policy_domain == wire["report"]["policyDomain"]  # what is there is kept
    # A string that is there is kept; only the missing one reads empty.
    assert DmarcDkimResult.model_validate({"domain": "example.com", "result": "pass"},
                                          context={READING: True}).selector == ""
    with pytest.raises(ValidationError):
        DmarcDkimResult.model_validate({"result": "pass"})


def _every_model() -> list[type[WireModel]]:
    seen: list[type[WireModel]] = []

    def walk(model: type[WireModel]) -> None:
        if model in seen:
            return
        seen.append(model)
        for spec in fields_of(model):
            for nested in [spec.item_model, *spec.variants.values()]:
                if nested is not None:
                    walk(nested)

    for object_type in OBJECT_TYPES.values():
        for model in [*object_type.variants.values()] or [object_type.annotation]:
            walk(model)
    return seen


def test_every_declared_default_is_what_the_field_writes_on_the_wire() -> None:
    checked = 0
    for model in _every_model():
        for name, info in model.model_fields.items():
            if info.is_required() or (info.alias == "@type"):
                continue
            value = info.get_default(call_default_factory=True)
            annotation = Annotated[info.annotation, *info.metadata] if info.metadata else info.annotation
            adapter = TypeAdapter(annotation)
            reference = None if value is None else adapter.dump_python(value, mode="json", by_alias=True)
            spec = field_by_wire(model, info.alias or name)
            assert spec.default == reference and type(spec.default) is type(reference), (model.__name__, name)
            if isinstance(reference, dict):
                assert [type(key) for key in spec.default] == [type(key) for key in reference]
            checked += 1
    assert checked > 50  # the walk reached the nested models


def test_the_space_pattern_finds_exactly_what_isspace_names() -> None:
    """Domains, addresses and URLs are checked for white space by one pattern scan: the same characters
    ``str.isspace`` names, every code point, so no value passes or fails that did not before."""
    differing = [point for point in range(0x110000) if bool(_SPACE.match(chr(point))) != chr(point).isspace()]
    assert differing == []


@pytest.mark.parametrize("check", [_check_domain, _check_email, _check_uri])
def test_a_white_space_anywhere_is_refused(check: Callable[[str], str]) -> None:
    good = {_check_domain: "mail.example.com", _check_email: "a@example.com", _check_uri: "https://example.com"}[check]
    assert check(good) == good
    for space in (" ", "\t", "\n", "\x0b", "\x1c", "\x85", "\xa0", "\u2003", "\u2028", "\u3000"):
        for where in (0, len(good) // 2, len(good)):
            with pytest.raises(ValueError):
                check(good[:where] + space + good[where:])


INDEX_LISTS: list[Any] = [
    {}, {"0": {"a": 1}}, {"1": {"a": 1}}, {"0": 1, "1": 2}, {"1": 2, "0": 1}, {"0": None}, {"00": 1}, {"a": 1},
    {"0": 1, "2": 3}, [], [{"a": 1}], (1, 2), "0", 5, None, {"-1": 1}, {" 0": 1},
]


@pytest.mark.parametrize("value", INDEX_LISTS, ids=repr)
def test_the_index_list_shortcut_reads_as_list_from_wire(value: Any) -> None:
    def read(reader: Callable[[Any], Any]) -> Any:
        try:
            return ("ok", reader(value))
        except ValueError as error:
            return ("refused", str(error))

    assert read(_index_list_from_wire) == read(encoding.list_from_wire)
