"""Shared fixtures for the DMARC import/export tests."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

# In CI the repository is cloned with shared/ beside it (<repo>/../shared); a
# developer's worktree lives elsewhere, so MAILADMIN_DMARC_SAMPLES can point at it.
REPO_ROOT = Path(__file__).resolve().parents[2]
SAMPLES = Path(os.environ.get("MAILADMIN_DMARC_SAMPLES") or REPO_ROOT / ".." / "shared" / "dmarc-samples").resolve()


@pytest.fixture
def samples() -> Path:
    if not SAMPLES.is_dir():
        pytest.skip(
            f"DMARC sample corpus not found at {SAMPLES}; "
            "set MAILADMIN_DMARC_SAMPLES to the shared dmarc-samples folder"
        )
    return SAMPLES
