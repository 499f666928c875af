"""Shared fixtures for the DMARC import/export tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.samples import samples_or_skip


@pytest.fixture
def samples() -> Path:
    return samples_or_skip()
