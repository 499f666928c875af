"""In-process stub fixtures: the stub of ``tests.support.stub`` in each profile."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from tests.support.stub import Stub, running_stub


@pytest.fixture(params=["spec", "stalwart"])
async def stub(request: pytest.FixtureRequest) -> AsyncIterator[Stub]:
    """The stub in each profile."""
    async with running_stub(request.param) as made:
        yield made


@pytest.fixture
async def spec_stub() -> AsyncIterator[Stub]:
    async with running_stub("spec") as made:
        yield made


@pytest.fixture
async def stalwart_stub() -> AsyncIterator[Stub]:
    async with running_stub("stalwart") as made:
        yield made
