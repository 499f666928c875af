"""Every security test gets its own config file and no connection settings from the environment."""

from __future__ import annotations

from pathlib import Path

import pytest

CONNECTION_ENV = ("MAILADMIN_URL", "MAILADMIN_TOKEN", "MAILADMIN_USER", "MAILADMIN_PASSWORD", "MAILADMIN_CA_FILE",
                  "SSL_CERT_FILE", "SSL_CERT_DIR")


@pytest.fixture(autouse=True)
def isolated_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "config" / "config.toml"
    monkeypatch.setenv("MAILADMIN_CONFIG", str(path))
    for name in CONNECTION_ENV:
        monkeypatch.delenv(name, raising=False)
    return path
