"""What a method sees of the request it runs in, and how it fails."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from jmapclient.models.objects import Action, ObjectType
from server_stub.auth import Principal
from server_stub.profiles import ServerProfile
from server_stub.store import Store

ACCOUNT_ID = "a"
"""The stub has one account; its id (the real server's first account id looks like this too)."""

MAX_OBJECTS_IN_GET = 500
MAX_OBJECTS_IN_SET = 500
QUERY_LIMIT_CAP = 5000


class MethodFailure(Exception):
    """RFC 8620 §3.6.2: the method answers ``["error", {type, ...}, callId]``."""

    def __init__(self, error_type: str, description: str | None = None, **extra: Any) -> None:
        self.type = error_type
        self.description = description
        self.extra = extra
        super().__init__(description or error_type)

    def to_wire(self) -> dict[str, Any]:
        wire: dict[str, Any] = {"type": self.type}
        if self.description:
            wire["description"] = self.description
        wire.update(self.extra)
        return wire


ACTION_WORDS: dict[Action, str] = {
    "get": "read",
    "query": "query",
    "create": "create",
    "update": "update",
    "destroy": "destroy",
}


@dataclass
class CallContext:
    store: Store
    profile: ServerProfile
    principal: Principal
    created_ids: dict[str, str] = field(default_factory=dict)
    """Creation id → server id, for ``#creationId`` references across the request (RFC 8620 §5.3)."""

    def require(self, object_type: ObjectType, action: Action) -> None:
        permission = object_type.permission(action)
        if not self.principal.may(permission):
            if self.profile.real_get_and_set:
                raise MethodFailure("forbidden", f"You are not authorized to {action} {object_type.name} objects")
            raise MethodFailure(
                "forbidden",
                f"not allowed to {ACTION_WORDS[action]} {object_type.name} objects "
                f"(the token lacks {permission})",
            )


BOOTSTRAP_WORDS = "The server is in bootstrap mode; finish the setup in the web interface first."
"""The real server's refusal of every method while it is being set up (wire-notes.md)."""


def check_account(context: CallContext, arguments: dict[str, Any]) -> str:
    """``accountId`` is optional (wire-notes.md); when given it must be the one account."""
    account = arguments.get("accountId")
    if account is None:
        return ACCOUNT_ID
    if not isinstance(account, str):
        raise MethodFailure("invalidArguments", "accountId is a string")
    if account != ACCOUNT_ID:
        if context.profile.foreign_account_error == "forbidden":
            raise MethodFailure("forbidden", f"You are not an owner of account {account}")
        raise MethodFailure("accountNotFound", f"there is no account {account!r}")
    return account


def check_arguments(arguments: dict[str, Any], allowed: set[str]) -> None:
    unknown = sorted(set(arguments) - allowed)
    if unknown:
        raise MethodFailure("invalidArguments", f"unknown arguments: {', '.join(unknown)}", arguments=unknown)
