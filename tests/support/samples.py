"""Where the shared DMARC sample corpus is, and a skip when it is not there.

In CI the repository is cloned with shared/ beside it (<repo>/../shared); a developer's
worktree may live elsewhere, so MAILADMIN_DMARC_SAMPLES can point at it. The files are
read in place: none is ever copied into the repository.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
SAMPLES = Path(os.environ.get("MAILADMIN_DMARC_SAMPLES") or REPO_ROOT / ".." / "shared" / "dmarc-samples").resolve()


def samples_or_skip() -> Path:
    if not SAMPLES.is_dir():
        pytest.skip(
            f"DMARC sample corpus not found at {SAMPLES}; "
            "set MAILADMIN_DMARC_SAMPLES to the shared dmarc-samples folder"
        )
    return SAMPLES
