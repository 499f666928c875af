"""A stub builds what its first create needs before it serves, not inside that create (issue #33): a fresh
stub answered an import's probe in 20-90 ms, building the report's validator (and its stored-form walk)."""

from __future__ import annotations

import pytest

from jmapclient.models.objects import OBJECT_TYPES
from server_stub.app import create_app
from server_stub.auth import standard_registry
from server_stub.store import Store


def test_the_served_types_validators_are_built_with_the_app(monkeypatch: pytest.MonkeyPatch) -> None:
    for object_type in OBJECT_TYPES.values():  # as in a fresh process: not built yet
        monkeypatch.delitem(object_type.__dict__, "adapter", raising=False)
    store = Store()
    try:
        create_app(store, tokens=standard_registry("a" * 32, "b" * 32, None))
    finally:
        store.close()
    for object_type in OBJECT_TYPES.values():
        assert "adapter" in object_type.__dict__
