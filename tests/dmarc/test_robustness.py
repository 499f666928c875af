"""Arbitrary damage to a report never crashes the importer, and whatever it
accepts is still a valid create object."""

from __future__ import annotations

import gzip

from hypothesis import given, settings
from hypothesis import strategies as st

from jmapclient.dmarc import load_bytes
from jmapclient.models import DmarcExternalReport
from tests.support.clock import FROZEN_NOW
from tests.support.dmarc_xml import feedback, record

BASE = feedback(records=record() + record(count="2", dkim="fail"))


def check(data: bytes) -> None:
    result = load_bytes(data, "fuzz.xml", now=FROZEN_NOW)
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


def test_a_domain_broken_by_a_newline_is_dropped_not_sent() -> None:
    # Found by hypothesis: damage inside <domain> left "e\nxample.com", which the
    # model rejects; the importer must drop such a value itself.
    damaged = BASE.replace(b"<dkim><domain>example.com</domain>", b"<dkim><domain>e\nxample.com</domain>", 1)
    assert damaged != BASE
    check(damaged)
    result = load_bytes(damaged, "damaged.xml", now=FROZEN_NOW)
    assert result.status == "ok" and any("domain" in warning for warning in result.warnings)
