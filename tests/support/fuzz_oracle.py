"""What every stub answer must satisfy, whatever was sent (the fuzzing properties).

- HTTP: 200 with a JMAP response, or an RFC 8620 problem (4xx) — never 5xx, always JSON.
- Each method response: the method's own name or ``error`` with an RFC 8620 error type, never ``serverFail``.
- Set results: only RFC 8620 SetError types (and the real server's ``validationFailed``).
- Stored data changes exactly by what the answer reports as done: a rejected call or object
  changes nothing, and each type's state moves by one per object change.
- No answer carries a stored plaintext secret.
"""

from __future__ import annotations

import json
from collections import Counter
from functools import lru_cache
from typing import Any

from jmapclient.models.objects import OBJECT_TYPES
from server_stub.schema import SCHEMAS
from server_stub.store import decode_data
from tests.support.fuzz_stub import Answer, FuzzStub, Snapshot

PROBLEM_PREFIX = "urn:ietf:params:jmap:error:"
REQUEST_PROBLEMS = {"notJSON", "notRequest", "unknownCapability", "limit"}
METHOD_ERRORS = {
    "unknownMethod", "invalidArguments", "invalidResultReference", "forbidden", "accountNotFound",
    "accountNotSupportedByMethod", "accountReadOnly", "requestTooLarge", "stateMismatch", "unsupportedSort",
    "unsupportedFilter", "anchorNotFound", "cannotCalculateChanges", "tooManyChanges",
}
SET_ERRORS = {
    "forbidden", "overQuota", "tooLarge", "rateLimit", "notFound", "invalidPatch", "willDestroy",
    "invalidProperties", "singleton", "alreadyExists", "validationFailed", "objectIsLinked", "invalidForeignKey",
}
SET_KEYS = {"accountId", "oldState", "newState", "created", "updated", "destroyed", "notCreated", "notUpdated",
            "notDestroyed"}
TYPE_OF_METHOD = {t.method(verb): t for t in OBJECT_TYPES.values() for verb in ("get", "set", "query")}


class Violation(AssertionError):
    pass


def _require(condition: bool, message: str) -> None:
    if not condition:
        raise Violation(message)


def stored_secrets(rows: Snapshot) -> set[str]:
    """Plaintexts of every ``{"@type": "Value", "secret": ...}`` in the stored objects."""
    found: set[str] = set()
    for schema in SCHEMAS.values():
        for _seq, data in rows.get(f"{schema.table}_data", []):
            found |= _secrets_in(data)
    return found


@lru_cache(maxsize=4096)  # the fuzz checks the same stored rows after every example: inflate each once
def _secrets_in(data: bytes | str) -> frozenset[str]:
    found: set[str] = set()

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            if node.get("@type") == "Value" and isinstance(node.get("secret"), str):
                found.add(node["secret"])
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(decode_data(data))
    return frozenset(found)


def _states(rows: Snapshot) -> dict[str, int]:
    return {name: int(value) for name, value in rows["state"]}


def _counts(rows: Snapshot) -> dict[str, int]:
    return {name: len(rows[schema.table]) for name, schema in SCHEMAS.items()}


def _data_by_id(rows: Snapshot, type_name: str) -> dict[str, str]:
    table = SCHEMAS[type_name].table
    ids = {seq: object_id for seq, object_id, *_ in rows[table]}
    return {ids[seq]: data for seq, data in rows[f"{table}_data"]}


def check_problem(answer: Answer) -> dict[str, Any]:
    problem = answer.json()
    _require(isinstance(problem, dict), f"a {answer.status} answer is not a problem object")
    _require(problem.get("status") == answer.status, f"problem status {problem.get('status')} != {answer.status}")
    if answer.status == 401:
        _require(answer.headers.get("www-authenticate", "").startswith("Bearer"), "401 without WWW-Authenticate")
    elif answer.status == 400:
        kind = str(problem.get("type", "")).removeprefix(PROBLEM_PREFIX)
        _require(kind in REQUEST_PROBLEMS, f"400 with problem type {problem.get('type')!r}")
        if kind == "limit":
            _require(isinstance(problem.get("limit"), str), "a limit problem names no limit")
    return problem


def _check_set(result: dict[str, Any]) -> None:
    if "oldState" in result:  # interface.md: every key, null when empty
        _require(set(result) >= SET_KEYS, f"set response lacks {sorted(SET_KEYS - set(result))}")
    else:  # the real server: no states, empty maps left out (wire-notes.md)
        _require(set(result) <= SET_KEYS and all(result.values()), f"set response keys {sorted(result)}")
    for key in ("notCreated", "notUpdated", "notDestroyed"):
        for error in (result.get(key) or {}).values():
            _require(error.get("type") in SET_ERRORS, f"SetError type {error.get('type')!r}")


def check_method_responses(calls: list[Any], body: Any) -> list[list[Any]]:
    _require(isinstance(body, dict) and isinstance(body.get("methodResponses"), list), "no methodResponses")
    responses = body["methodResponses"]
    _require(len(responses) == len(calls), f"{len(calls)} calls got {len(responses)} responses")
    for (name, _arguments, call_id), response in zip(calls, responses, strict=True):
        answered, result, answered_id = response
        _require(answered_id == call_id, f"call id {call_id!r} answered as {answered_id!r}")
        _require(answered in (name, "error"), f"{name} answered as {answered}")
        if answered == "error":
            _require(result.get("type") in METHOD_ERRORS, f"{name}: method error {result.get('type')!r}")
        elif name.endswith("/set"):
            _check_set(result)
    return responses


def _expected_changes(calls: list[Any], responses: list[list[Any]]) -> tuple[Counter[str], Counter[str], set]:
    """Per type: object changes done (state bumps) and the net count change; ids a failure must leave alone."""
    changes: Counter[str] = Counter()
    net: Counter[str] = Counter()
    refused: set[tuple[str, str]] = set()
    touched: set[tuple[str, str]] = set()
    for (name, _args, _id), (answered, result, _) in zip(calls, responses, strict=True):
        if answered == "error" or not name.endswith("/set"):
            continue
        type_name = TYPE_OF_METHOD[name].name
        created, updated, destroyed = (result.get(k) or {} for k in ("created", "updated", "destroyed"))
        changes[type_name] += len(created) + len(updated) + len(destroyed)
        net[type_name] += len(created) - len(destroyed)
        touched |= {(type_name, i) for i in [*updated, *destroyed]}
        # An object this request created may be refused an update by a later part of it ("#new"): it did
        # not exist before, so that it exists after is the create's doing, not the refusal's.
        touched |= {(type_name, str(made.get("id"))) for made in created.values() if isinstance(made, dict)}
        refused |= {(type_name, i) for i in [*(result.get("notUpdated") or {}), *(result.get("notDestroyed") or {})]}
    return changes, net, refused - touched


def check_request(stub: FuzzStub, answer: Answer, calls: list[Any] | None) -> None:
    """Check one answer against the stub's data, then put the baseline back if anything changed.

    ``calls`` are the method calls sent, or None when the body was not a valid request.
    """
    _require(answer.status < 500, f"HTTP {answer.status}: {answer.body[:300]!r}")
    try:
        body = json.loads(answer.body)
    except ValueError:
        raise Violation(f"HTTP {answer.status} answer is not JSON: {answer.body[:200]!r}") from None
    after = stub.rows()
    try:
        secrets = set(stub.demo.secrets) | stored_secrets(after)
        for secret in secrets:
            _require(secret.encode() not in answer.body, "a stored secret is in the answer")
        if answer.status != 200 or calls is None:
            if answer.status != 200:
                check_problem(answer)
            else:  # a body the test thought invalid was accepted: still a JMAP response
                _require(isinstance(body, dict) and "methodResponses" in body, "200 without methodResponses")
                return
            _require(after == stub.baseline, f"a rejected request (HTTP {answer.status}) changed stored data")
            return
        responses = check_method_responses(calls, body)
        changes, net, refused = _expected_changes(calls, responses)
        before_states, after_states = _states(stub.baseline), _states(after)
        before_counts, after_counts = _counts(stub.baseline), _counts(after)
        for type_name in SCHEMAS:
            bumped = after_states.get(type_name, 0) - before_states.get(type_name, 0)
            _require(bumped == changes[type_name], f"{type_name} state moved {bumped}, not {changes[type_name]}")
            grown = after_counts[type_name] - before_counts[type_name]
            _require(grown == net[type_name], f"{type_name} count moved {grown}, answer says {net[type_name]}")
        if not changes:
            _require(after == stub.baseline, "an answer reporting no change left stored data changed")
        for type_name, object_id in refused:
            before = _data_by_id(stub.baseline, type_name).get(object_id)
            _require(before == _data_by_id(after, type_name).get(object_id), f"refused {object_id} changed")
    finally:
        if after is not stub.baseline:  # rows() returns the baseline itself whenever the rows are its
            stub.restore()
