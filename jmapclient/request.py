"""Building a multi-call JMAP request with result references, and reading its answer."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from jmapclient.errors import MethodError, ProtocolError

READ_METHODS = frozenset({"get", "changes", "query", "queryChanges"})
"""The standard methods' names (after the type's ``/``) that change nothing on the server."""


@dataclass(frozen=True)
class Call:
    """One method call inside a request; ``ref`` points later calls at its result."""

    method: str
    arguments: dict[str, Any]
    call_id: str

    def ref(self, path: str, name: str | None = None) -> dict[str, str]:
        """A ResultReference (RFC 8620 §3.7), e.g. ``query.ref("/ids")``."""
        return {"resultOf": self.call_id, "name": name or self.method, "path": path}

    def to_wire(self) -> list[Any]:
        return [self.method, self.arguments, self.call_id]


@dataclass
class Batch:
    """Method calls sent together as ONE HTTP request."""

    calls: list[Call] = field(default_factory=list)

    def add(self, method: str, arguments: Mapping[str, Any]) -> Call:
        call = Call(method, dict(arguments), f"c{len(self.calls)}")
        self.calls.append(call)
        return call

    def __len__(self) -> int:
        return len(self.calls)

    @property
    def reads_only(self) -> bool:
        """Every call only reads (RFC 8620's get, changes, query, queryChanges, and Core/echo): sent
        twice, the batch changes nothing, so a request whose connection dropped may go again."""
        return bool(self.calls) and all(
            call.method == "Core/echo" or call.method.rpartition("/")[2] in READ_METHODS for call in self.calls
        )


@dataclass
class Responses:
    """The method responses of one request, looked up by the call that asked."""

    by_call_id: dict[str, list[tuple[str, dict[str, Any]]]]
    session_state: str = ""

    @classmethod
    def from_wire(cls, body: Any) -> Responses:
        if not isinstance(body, Mapping) or not isinstance(body.get("methodResponses"), list):
            raise ProtocolError("the server's answer has no methodResponses")
        grouped: dict[str, list[tuple[str, dict[str, Any]]]] = {}
        for item in body["methodResponses"]:
            if not (isinstance(item, list) and len(item) == 3 and isinstance(item[1], Mapping)):
                raise ProtocolError("the server's answer holds a malformed method response")
            name, arguments, call_id = item
            if not (isinstance(name, str) and isinstance(call_id, str)):
                raise ProtocolError("the server's answer holds a method response without a name or call id")
            grouped.setdefault(call_id, []).append((name, dict(arguments)))
        state = body.get("sessionState")
        return cls(grouped, state if isinstance(state, str) else "")

    def __getitem__(self, call: Call) -> dict[str, Any]:
        """The arguments of ``call``'s response, or its :class:`MethodError`, raised."""
        answers = self.by_call_id.get(call.call_id)
        if not answers:
            raise ProtocolError(f"the server did not answer {call.method}")
        for name, arguments in answers:
            if name == "error":
                raise _method_error(call.method, arguments)
        return answers[0][1]


_METHOD_ERROR_OWN = frozenset({"method", "error_type", "type", "description"})
"""Keys an error response may not pass on as extras: they would clash with MethodError's own."""


def _method_error(method: str, arguments: Mapping[str, Any]) -> MethodError:
    """An ``error`` response as a MethodError, whatever types and extra keys the server put in it."""
    error_type = arguments.get("type")
    description = arguments.get("description")
    extra = {str(k): v for k, v in arguments.items() if str(k) not in _METHOD_ERROR_OWN}
    return MethodError(
        method,
        error_type if isinstance(error_type, str) and error_type else "serverFail",
        description if isinstance(description, str) else None,
        **extra,
    )
