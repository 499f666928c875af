"""``compact_json`` writes what ``json.dumps`` writes, byte for byte, and refuses what it refuses (issue #33).

The stub stores each created report's JSON (a report read back must be the same bytes as before), and the
importer sends each report as these bytes; both were ``json.dumps``.
"""

from __future__ import annotations

import json
import math
import random
import struct
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bench.hostile_corpus import CASES, write_case
from jmapclient.compact_json import compact_json
from jmapclient.dmarc.loader import load_file, load_reports
from tests.support.samples import samples_or_skip

NOW = datetime(2026, 3, 1, tzinfo=UTC)


def _dumps(value: Any, *, ensure_ascii: bool, allow_nan: bool = True) -> bytes:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=ensure_ascii, allow_nan=allow_nan).encode()


def _same(value: Any, **options: Any) -> None:
    for ensure_ascii in (False, True):
        assert compact_json(value, ensure_ascii=ensure_ascii, **options) == _dumps(
            value, ensure_ascii=ensure_ascii, **options
        )


JSON_DATA = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(), inner, max_size=5),
    max_leaves=30,
)


@settings(max_examples=400, deadline=None)
@given(JSON_DATA)
def test_json_data_is_written_as_json_dumps_writes_it(value: Any) -> None:
    _same(value)
    _same(value, allow_nan=False)


def test_floats_of_every_size_are_written_as_python_writes_them() -> None:
    """Below 1e-4 Python writes an exponent (``1e-05``) where the fast encoder writes ``0.00001`` or ``1e-5``."""
    chosen = random.Random(33)
    floats = [1e-5, 1.5e-7, 9.99e-5, 1e-4, 5e-324, 1e16, 1.2345678901234568e16, 1e22, -0.0, 0.0, 2.5, 1.0]
    floats += [struct.unpack("d", struct.pack("Q", chosen.getrandbits(64)))[0] for _ in range(20_000)]
    floats += [chosen.random() * 10.0 ** chosen.uniform(-320, 300) for _ in range(20_000)]
    for number in floats:
        if math.isfinite(number):
            _same({"version": number, "list": [number]})


def test_text_of_every_plane_is_written_as_json_dumps_writes_it() -> None:
    chosen = random.Random(7)
    planes = [(0, 0x80), (0x80, 0x800), (0x800, 0xD800), (0xE000, 0x10000), (0x10000, 0x110000)]
    for _ in range(5_000):
        text = "".join(chr(chosen.randrange(*chosen.choice(planes))) for _ in range(chosen.randint(0, 12)))
        _same({text: [text, "\x00\x1f\x7f\u2028\"\\"]})


def test_text_that_looks_like_a_float_changes_nothing() -> None:
    _same({"id": "v0.00001", "note": "1e-5 and 2e-07", "domain": "mail-relay.example-corp.com"})


def test_nan_and_infinity_are_refused_as_json_dumps_refuses_them() -> None:
    for number in (math.nan, math.inf, -math.inf):
        with pytest.raises(ValueError):
            compact_json({"version": number}, ensure_ascii=True, allow_nan=False)
        _same({"version": number})  # allowed: NaN, Infinity, as json.dumps writes them
    _same({"text": "NaN and Infinity"}, allow_nan=False)  # only text: written


def test_a_lone_surrogate_fails_as_before() -> None:
    assert compact_json({"a": "\ud800"}, ensure_ascii=True) == _dumps({"a": "\ud800"}, ensure_ascii=True)
    with pytest.raises(UnicodeEncodeError):
        compact_json({"a": "\ud800"}, ensure_ascii=False)


def test_parsed_reports_are_written_alike(tmp_path: Path) -> None:
    reports = [result.wire for result in load_reports([samples_or_skip()], now=NOW) if result.wire is not None]
    for case in CASES:
        if case.outcome == "ok" and not case.heavy:
            result = load_file(write_case(case, tmp_path), now=NOW)
            if result.wire is not None:
                reports.append(result.wire)
    assert len(reports) > 20
    for wire in reports:
        _same(wire)
