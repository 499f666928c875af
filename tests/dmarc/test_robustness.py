"""Arbitrary damage to a report never crashes the importer, and whatever it
accepts is still a valid create object."""

from __future__ import annotations

import gzip

from hypothesis import given, settings
from hypothesis import strategies as st

from jmapclient.dmarc import load_bytes
from jmapclient.models import DmarcExternalReport
from tests.dmarc.conftest import FIXED_NOW
from tests.dmarc.synth import feedback, record

BASE = feedback(records=record() + record(count="2", dkim="fail"))


def check(data: bytes) -> None:
    result = load_bytes(data, "fuzz.xml", now=FIXED_NOW)
    assert result.status in ("ok", "rejected")
    if result.status == "ok":
        assert result.wire is not None
        DmarcExternalReport.model_validate(result.wire)
    else:
        assert result.reason


@settings(max_examples=150, deadline=None)
@given(st.binary(max_size=300))
def test_random_bytes(data: bytes) -> None:
    check(data)


@settings(max_examples=200, deadline=None)
@given(
    st.integers(min_value=0, max_value=len(BASE)),
    st.integers(min_value=0, max_value=40),
    st.binary(max_size=8),
)
def test_damaged_report(start: int, length: int, junk: bytes) -> None:
    check(BASE[:start] + junk + BASE[start + length :])


@settings(max_examples=50, deadline=None)
@given(st.integers(min_value=0, max_value=200))
def test_truncated_gzip(cut: int) -> None:
    data = gzip.compress(BASE)
    check(data[: len(data) - cut])
