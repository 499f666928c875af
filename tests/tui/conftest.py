"""Console fixtures: the directory console over a fresh store, and DMARC inbox worlds in both profiles.

The builders live in ``tests.support.console``; animations are off so snapshots are stable.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from server_stub.store import Store
from tests.support.console import PROFILES, Console, StubWorld, make_console, make_world
from tests.support.seeding import seed_fresh

os.environ.setdefault("TEXTUAL_ANIMATIONS", "none")


@pytest.fixture(autouse=True)
def private_data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The analytics cache and exports never touch the real data directory."""
    data = tmp_path / "data"
    monkeypatch.setenv("MAILADMIN_DATA", str(data))
    yield data


@pytest.fixture
def store() -> Iterator[Store]:
    """A fresh in-memory stub database holding the three demo directories."""
    database = Store()
    seed_fresh(database, reports=0, directories=True)
    yield database
    database.close()


@pytest.fixture
def console(store: Store) -> Console:
    return make_console(store)


@pytest.fixture(params=PROFILES)
def world(request: pytest.FixtureRequest) -> Iterator[StubWorld]:
    made = make_world(str(request.param))
    yield made
    made.store.close()


@pytest.fixture(params=PROFILES)
def profile(request: pytest.FixtureRequest) -> str:
    return str(request.param)
