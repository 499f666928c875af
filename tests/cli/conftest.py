"""Fixtures of the CLI tests: an isolated config file and environment, and a request counter."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest


@pytest.fixture(autouse=True)
def isolated_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test gets its own config file and no connection settings from the environment."""
    path = tmp_path / "config" / "config.toml"
    monkeypatch.setenv("MAILADMIN_CONFIG", str(path))
    monkeypatch.delenv("MAILADMIN_URL", raising=False)
    monkeypatch.delenv("MAILADMIN_TOKEN", raising=False)
    return path


class CountingTransport(httpx.AsyncBaseTransport):
    """Counts requests and answers each with HTTP 500; for tests that expect no request at all."""

    def __init__(self) -> None:
        self.requests: list[httpx.Request] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        return httpx.Response(500, json={"detail": "counting transport"})


@pytest.fixture
def counting() -> CountingTransport:
    return CountingTransport()
