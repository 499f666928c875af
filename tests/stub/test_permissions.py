"""The permission matrix: admin and read-only tokens × every method and set action, both types."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from jmapclient.models.objects import OBJECT_TYPES, ObjectType
from server_stub.auth import Principal, TokenRegistry, all_permissions, read_only_permissions
from tests.support.stub import ADMIN, READONLY, Stub

TYPES = list(OBJECT_TYPES.values())


def _existing(stub: Stub, object_type: ObjectType) -> str:
    """The newest object that a create would accept: demo reports may hold "" where a reporter left a string out."""
    ids = stub.store.all_ids(object_type)
    stored = stub.store.get(object_type, ids)
    for object_id in reversed(ids):
        try:
            object_type.validate({k: v for k, v in stored[object_id].items() if k != "id"})
        except ValidationError:
            continue
        return object_id
    raise AssertionError("no demo object passes a create's validation")


def _arguments(stub: Stub, object_type: ObjectType, action: str) -> tuple[str, dict[str, Any]]:
    if action in ("get", "query"):
        return object_type.method(action), {}
    existing = _existing(stub, object_type)
    stored = stub.store.get(object_type, [existing])[existing]
    payload = {k: v for k, v in stored.items() if k != "id" and not (isinstance(v, dict) and "secret" in v)}
    if object_type.name == "Directory":
        payload = {"@type": "Oidc", "description": "new", "issuerUrl": "https://idp.example.com"}
    arguments = {
        "create": {"create": {"new": payload}},
        "update": {"update": {existing: {"subject" if object_type.name != "Directory" else "description": "x"}}},
        "destroy": {"destroy": [existing]},
    }[action]
    return object_type.method("set"), arguments


@pytest.mark.parametrize("object_type", TYPES, ids=lambda t: t.name)
@pytest.mark.parametrize("action", ["get", "query", "create", "update", "destroy"])
@pytest.mark.parametrize("token", [ADMIN, READONLY], ids=["admin", "readonly"])
async def test_permission_matrix(spec_stub: Stub, object_type: ObjectType, action: str, token: str):
    method, arguments = _arguments(spec_stub, object_type, action)
    state = spec_stub.store.state(object_type)
    name, result = await spec_stub.call(method, arguments, token)
    allowed = token == ADMIN or action in ("get", "query")
    if allowed:
        assert name == method, result
        if action in ("create", "update", "destroy"):
            done = {"create": "created", "update": "updated", "destroy": "destroyed"}[action]
            assert result[done], result
    else:
        assert (name, result["type"]) == ("error", "forbidden")
        assert action in result["description"] and object_type.permission(action) in result["description"]
        assert spec_stub.store.state(object_type) == state


async def test_one_missing_permission_fails_the_whole_set(spec_stub: Stub):
    """A token that may update but not create: a set with both changes nothing and names create."""
    registry = TokenRegistry()
    directory = OBJECT_TYPES["Directory"]
    registry.add("updater", Principal("updater", read_only_permissions() | {directory.permission("update")}))
    spec_stub.http._transport.app.tokens = registry  # type: ignore[attr-defined]
    existing = _existing(spec_stub, directory)
    state = spec_stub.store.state(directory)
    name, result = await spec_stub.call(
        directory.method("set"),
        {"create": {"n": {"@type": "Oidc", "description": "d", "issuerUrl": "https://i.example"}},
         "update": {existing: {"description": "changed"}}},
        "updater",
    )
    assert (name, result["type"]) == ("error", "forbidden") and "create" in result["description"]
    assert spec_stub.store.state(directory) == state
    name, result = await spec_stub.call(directory.method("set"), {"update": {existing: {"description": "ok"}}},
                                        "updater")
    assert result["updated"] == {existing: None}


def test_tokens_are_kept_only_as_hashes():
    registry = TokenRegistry()
    registry.add("plain-token-value", Principal("admin", all_permissions()))
    assert "plain-token-value" not in repr(registry.__dict__)
    assert registry.authenticate("Bearer plain-token-value") is not None
    assert registry.authenticate("bearer plain-token-value") is not None
    assert registry.authenticate("Bearer plain-token-valuE") is None
    assert registry.authenticate(None) is None
