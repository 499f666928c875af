"""The JMAP request envelope (RFC 8620 §3): parse, check, resolve references, dispatch.

Request-level failures are :class:`RequestProblem` (problem details, §3.6.1); each
method call then succeeds or answers a method error (§3.6.2). An unexpected exception
inside a method becomes ``serverFail`` for that call only, never an HTTP 500.
"""

from __future__ import annotations

import json
import logging
import re
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from jmapclient.encoding import unescape_pointer
from jmapclient.models.objects import OBJECT_TYPES, ObjectType
from jmapclient.session import CORE_CAPABILITY
from server_stub.limits import MAX_SIZE_RESPONSE, json_size
from server_stub.methods.context import BOOTSTRAP_WORDS, CallContext, MethodFailure
from server_stub.methods.get import get
from server_stub.methods.query import query
from server_stub.methods.set import set_
from server_stub.profiles import ServerProfile
from server_stub.raw_json import plain

log = logging.getLogger("server_stub")

PROBLEM_PREFIX = "urn:ietf:params:jmap:error:"
MAX_SIZE_REQUEST = 10_000_000
MAX_CALLS_IN_REQUEST = 16

Handler = Callable[[CallContext, dict[str, Any]], dict[str, Any]]


@dataclass
class RequestProblem(Exception):
    """RFC 8620 §3.6.1 problem details; ``limit`` names the limit for ``limit`` problems."""

    type: str
    detail: str
    status: int = 400
    limit: str | None = None

    def to_wire(self) -> dict[str, Any]:
        wire: dict[str, Any] = {"type": PROBLEM_PREFIX + self.type, "status": self.status, "detail": self.detail}
        if self.limit:
            wire["limit"] = self.limit
        return wire


@dataclass(frozen=True)
class Method:
    capability: str
    handler: Handler


def _echo(context: CallContext, arguments: dict[str, Any]) -> dict[str, Any]:
    return arguments


def _bind(handler: Callable[[CallContext, ObjectType, dict[str, Any]], dict[str, Any]], t: ObjectType) -> Handler:
    return lambda context, arguments: handler(context, t, arguments)


def method_table(profile: ServerProfile) -> dict[str, Method]:
    table = {"Core/echo": Method(CORE_CAPABILITY, _echo)}
    for object_type in OBJECT_TYPES.values():
        for verb, handler in (("get", get), ("set", set_), ("query", query)):
            table[object_type.method(verb)] = Method(profile.capability, _bind(handler, object_type))
    return table


# --- parsing --------------------------------------------------------------------------------


def _unparsable(profile: ServerProfile) -> str:
    """The error type for a body that is not JSON: the real server says notRequest."""
    return "notRequest" if profile.real_request_errors else "notJSON"


def parse_request(body: bytes, profile: ServerProfile) -> dict[str, Any]:
    """The request object, or :class:`RequestProblem` (notJSON, notRequest, unknownCapability, limit)."""
    if len(body) > MAX_SIZE_REQUEST:
        raise RequestProblem("limit", f"the request is larger than {MAX_SIZE_REQUEST} bytes", limit="maxSizeRequest")
    pairs_hook = _refuse_duplicate_names if profile.strict_request_json else None
    try:
        request = json.loads(body.decode("utf-8"), parse_constant=_reject_constant, object_pairs_hook=pairs_hook)
    except _DuplicateName as duplicate:
        raise RequestProblem("notJSON", f"the member name {duplicate.name!r} appears twice in one object "
                                        "(I-JSON, RFC 7493)") from None
    except (UnicodeDecodeError, ValueError, RecursionError):
        # The real server answers a body that does not parse with notRequest (wire-notes.md).
        raise RequestProblem(_unparsable(profile), "the request body is not valid UTF-8 JSON") from None
    if _SURROGATE_ESCAPE.search(body) and _holds_lone_surrogate(request):
        # json takes "\ud800" alone; the answer echoing it could not be encoded (HTTP 500). The
        # real server's parser refuses it as it refuses any body that does not parse.
        raise RequestProblem(_unparsable(profile), "the request holds a lone surrogate escape (\\uD800-\\uDFFF), "
                                                   "which I-JSON (RFC 7493) forbids")
    if not isinstance(request, dict):
        raise RequestProblem("notRequest", "the request is not a JSON object")
    using, calls = request.get("using"), request.get("methodCalls")
    if not isinstance(using, list) or not all(isinstance(u, str) for u in using):
        raise RequestProblem("notRequest", "`using` must be a list of capability identifiers")
    if not isinstance(calls, list) or not all(_is_call(c) for c in calls):
        raise RequestProblem("notRequest", "`methodCalls` must be a list of [name, arguments, callId]")
    created = request.get("createdIds")
    if created is not None and not (
        isinstance(created, dict) and all(isinstance(v, str) for v in created.values())
    ):
        raise RequestProblem("notRequest", "`createdIds` must map creation ids to ids")
    unknown = [u for u in using if u not in profile.known_capabilities]
    if unknown:
        kind = "notRequest" if profile.real_request_errors else "unknownCapability"  # the real server's
        raise RequestProblem(kind, f"unknown capability: {', '.join(unknown)}")
    if len(calls) > MAX_CALLS_IN_REQUEST:
        raise RequestProblem(
            "limit", f"more than {MAX_CALLS_IN_REQUEST} method calls in one request", limit="maxCallsInRequest"
        )
    return request


_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")
"""A \\u escape of a surrogate: only then can the parsed request hold a lone one."""


def _holds_lone_surrogate(value: Any) -> bool:
    try:
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


class _DuplicateName(ValueError):
    def __init__(self, name: str) -> None:
        self.name = name
        super().__init__(name)


def _refuse_duplicate_names(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    # Built in one C call, the names compared by count: a step per member in Python was a fifth of
    # reading a report's create (a report holds about 50 objects). The first name met twice is then
    # found by the loop, for the refusal only.
    result = dict(pairs)
    if len(result) != len(pairs):
        seen: set[str] = set()
        for name, _ in pairs:
            if name in seen:
                raise _DuplicateName(name)
            seen.add(name)
    return result


def _reject_constant(name: str) -> Any:
    # Python reads NaN and Infinity, but they are not JSON (RFC 8259).
    raise ValueError(f"{name} is not JSON")


def _is_call(call: Any) -> bool:
    return (
        isinstance(call, list)
        and len(call) == 3
        and isinstance(call[0], str)
        and isinstance(call[1], dict)
        and isinstance(call[2], str)
    )


# --- result references (RFC 8620 §3.7) ------------------------------------------------------


class _BadReference(Exception):
    pass


def evaluate_pointer(value: Any, pointer: str) -> Any:
    """A JSON pointer with the JMAP ``*`` extension: map over an array, flattening arrays."""
    if pointer == "":
        return value
    if not pointer.startswith("/"):
        raise _BadReference(f"{pointer!r} is not a JSON pointer")
    return _walk(value, [unescape_pointer(t) for t in pointer[1:].split("/")])


def _walk(value: Any, tokens: list[str]) -> Any:
    value = plain(value)  # a get's list, kept encoded until a reference reads into it
    if not tokens:
        return value
    token, rest = tokens[0], tokens[1:]
    if isinstance(value, list):
        if token == "*":
            out: list[Any] = []
            for item in value:
                found = _walk(item, rest)
                out.extend(found if isinstance(found, list) else [found])
            return out
        if token.isdigit() and int(token) < len(value):
            return _walk(value[int(token)], rest)
        raise _BadReference(f"no item {token!r}")
    if isinstance(value, dict) and token in value:
        return _walk(value[token], rest)
    raise _BadReference(f"no property {token!r}")


def resolve_references(
    arguments: dict[str, Any], responses: list[list[Any]], budget: int = MAX_SIZE_RESPONSE
) -> dict[str, Any]:
    """The arguments with each ``#name`` reference replaced by the value it points at.

    Each resolved value is counted against ``budget`` as it is made, so a request of
    many references to one large result stops at the limit instead of expanding.
    """
    resolved: dict[str, Any] = {}
    spent = 0
    for key, value in arguments.items():
        if not key.startswith("#"):
            resolved[key] = value
            continue
        name = key[1:]
        if name in arguments:
            raise MethodFailure("invalidArguments", f"both {name} and #{name} are given")
        if not (
            isinstance(value, dict)
            and all(isinstance(value.get(k), str) for k in ("resultOf", "name", "path"))
        ):
            raise MethodFailure("invalidResultReference", f"#{name} is not a ResultReference")
        source = next(
            (r for r in responses if r[2] == value["resultOf"] and r[0] == value["name"]),
            None,
        )
        if source is None:
            raise MethodFailure(
                "invalidResultReference", f"no earlier {value['name']} response with call id {value['resultOf']!r}"
            )
        try:
            resolved[name] = evaluate_pointer(source[1], value["path"])
        except _BadReference as error:
            raise MethodFailure("invalidResultReference", f"#{name}: {error}") from None
        spent += json_size(resolved[name], budget - spent)
        if spent > budget:
            raise _too_large()
    return resolved


def _too_large() -> MethodFailure:
    return MethodFailure(
        "requestTooLarge", f"the response would be larger than the server's limit of {MAX_SIZE_RESPONSE:,} bytes"
    )


# --- running a request ------------------------------------------------------------------------


@dataclass
class Dispatcher:
    profile: ServerProfile
    bootstrap: bool = False
    """A server still being set up refuses every method on the objects (wire-notes.md)."""
    methods: dict[str, Method] = field(init=False)

    def __post_init__(self) -> None:
        self.methods = method_table(self.profile)

    def run(self, request: dict[str, Any], context: CallContext, session_state: str) -> dict[str, Any]:
        using = set(request["using"])
        given_created = request.get("createdIds")
        context.created_ids.update(given_created or {})
        responses: list[list[Any]] = []
        remaining = MAX_SIZE_RESPONSE
        for name, arguments, call_id in request["methodCalls"]:
            response = self._call(name, arguments, call_id, using, responses, context, remaining)
            size = json_size(response, remaining)
            if size > remaining:
                # The call's effects stand; only its answer is replaced, so the reply stays bounded.
                response = ["error", _too_large().to_wire(), call_id]
                size = json_size(response, MAX_SIZE_RESPONSE)
            remaining = max(remaining - size, 0)
            responses.append(response)
        answer: dict[str, Any] = {"methodResponses": responses, "sessionState": session_state}
        if given_created is not None or context.created_ids:
            answer["createdIds"] = dict(context.created_ids)
        return answer

    def _in_use(self, name: str, method: Method, using: set[str]) -> bool:
        # The real server runs its x: methods whatever `using` lists beyond core (wire-notes.md).
        if self.profile.x_methods_need_only_core and name.startswith("x:"):
            return CORE_CAPABILITY in using
        return method.capability in using

    def _call(
        self,
        name: str,
        arguments: dict[str, Any],
        call_id: str,
        using: set[str],
        responses: list[list[Any]],
        context: CallContext,
        budget: int = MAX_SIZE_RESPONSE,
    ) -> list[Any]:
        method = self.methods.get(name)
        try:
            if method is None or not self._in_use(name, method, using):
                raise MethodFailure("unknownMethod", f"{name} is not a method of the capabilities in use")
            if self.bootstrap and method.capability != CORE_CAPABILITY:
                raise MethodFailure("forbidden", BOOTSTRAP_WORDS)
            result = method.handler(context, resolve_references(arguments, responses, budget))
            return [name, result, call_id]
        except MethodFailure as failure:
            return ["error", failure.to_wire(), call_id]
        except Exception as error:  # never an HTTP 500 for one method's bug
            # Log the place, not the message: a message may quote data, and data may hold a secret.
            stack = reversed(traceback.extract_tb(error.__traceback__))
            frames = " < ".join(f"{frame.filename}:{frame.lineno} {frame.name}" for frame in stack)
            log.error("%s failed with %s at %s", name, type(error).__name__, frames)
            return ["error", {"type": "serverFail", "description": f"{type(error).__name__} in {name}"}, call_id]
