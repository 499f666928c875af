"""Fixtures of the CLI tests: an isolated config file and environment, and a request counter."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.transport import CountingTransport


@pytest.fixture(autouse=True)
def isolated_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test gets its own config file and no connection settings from the environment."""
    path = tmp_path / "config" / "config.toml"
    monkeypatch.setenv("MAILADMIN_CONFIG", str(path))
    monkeypatch.delenv("MAILADMIN_URL", raising=False)
    monkeypatch.delenv("MAILADMIN_TOKEN", raising=False)
    return path


@pytest.fixture
def counting() -> CountingTransport:
    return CountingTransport()
