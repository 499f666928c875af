"""Property-based fuzzing of the stub (issue 8.1): whatever a client sends, the answer is a JMAP
result or an RFC 8620 error, never HTTP 500 or a non-JSON body, and a rejected call or object
changes no stored data (see ``oracle.py``). Both profiles; both object types; every variant.

Deterministic (``derandomize``) and bounded: ``EXAMPLES`` cases per test, well over 10,000 in all.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from functools import cache
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jmapclient.models.objects import DIRECTORY, DMARC_EXTERNAL_REPORT, OBJECT_TYPES
from jmapclient.session import CORE_CAPABILITY, SPEC_CAPABILITY, STALWART_CAPABILITY
from server_stub.session import SESSION_PATH
from tests.support import fuzz_strategies as s
from tests.support.fuzz_oracle import check_request
from tests.support.fuzz_stub import ADMIN, READONLY, FuzzStub

EXAMPLES = {
    "bodies": 800,
    "requests": 900,
    "get": 500,
    "filters": 900,
    "objects": 900,
    "patches": 900,
    "batches": 600,
}
"""Cases per test; per profile where a test runs in both. The sum is printed by ``test_case_count``."""

FUZZ = settings(
    deadline=None,
    derandomize=True,
    database=None,
    # No strategy here filters (no example is rejected as invalid), so filter_too_much stays on: a filter
    # that throws most draws away costs CPU for cases never sent. Large cases do run into hypothesis's
    # size caps (overruns), which data_too_large would report.
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
TOKENS = st.sampled_from([ADMIN, ADMIN, ADMIN, READONLY, None, "wrong-token"])
PROFILES = ["spec", "stalwart"]
RUN: dict[str, int] = {}
PLANNED: dict[str, int] = {}
"""The cases the running fuzz test asked for: set by ``_examples``, checked when its stub closes."""
SENT_SHARE = 10 / 11
"""The share of its planned cases a test must send (10,000 of the 11,000 ``EXAMPLES`` plan in all)."""


def _examples(name: str) -> settings:
    PLANNED["cases"] = EXAMPLES[name]
    return settings(FUZZ, max_examples=EXAMPLES[name])


@pytest.fixture(params=PROFILES)
def fuzz_stub(request: pytest.FixtureRequest, caplog: pytest.LogCaptureFixture) -> Iterator[FuzzStub]:
    with FuzzStub(request.param) as stub, caplog.at_level(logging.WARNING, logger="server_stub"):
        yield stub
        RUN[request.node.name] = stub.requests
        # Parallel workers each run some of these tests, so test_case_count seldom sees them
        # all: each test checks here that its cases really reached the stub.
        planned = PLANNED.pop("cases", 0)  # 0: the test failed before it planned any
        assert stub.requests >= planned * SENT_SHARE, f"{stub.requests} requests sent for {planned} cases"
        # serverFail and HTTP 500 are logged by the stub: none may have happened, even unseen.
        assert not [r for r in caplog.records if r.levelno >= logging.ERROR], caplog.text
        for secret in (*stub.demo.secrets, s.SECRET_PREFIX):
            assert secret not in caplog.text


def _send(stub: FuzzStub, calls: list[list[Any]], token: str | None = ADMIN, using: list[str] | None = None) -> None:
    body = {"using": stub.using if using is None else using, "methodCalls": calls}
    answer = stub.post_api(json.dumps(body).encode(), token)
    check_request(stub, answer, calls)


# --- whole requests -----------------------------------------------------------------------------------------------

near_requests = st.fixed_dictionaries(
    {},
    optional={
        "using": st.lists(st.sampled_from([CORE_CAPABILITY, SPEC_CAPABILITY, STALWART_CAPABILITY, "urn:x"]),
                          max_size=3) | s.json_values,
        "methodCalls": st.lists(st.tuples(st.sampled_from(["Core/echo", "x:Directory/get"]) | s.json_values,
                                          st.dictionaries(s.keys, s.json_values, max_size=2) | s.json_values,
                                          st.text(max_size=3) | s.json_values).map(list), max_size=3)
        | s.json_values,
        "createdIds": st.dictionaries(s.keys, s.json_values, max_size=2) | s.json_values,
    },
)
bodies = (
    st.binary(max_size=120)
    | s.json_values.map(lambda v: json.dumps(v).encode())
    | near_requests.map(lambda v: json.dumps(v).encode())
    | st.sampled_from([b"", b"{", b"NaN", b'{"using": [], "methodCalls": [], "x": NaN}', b"\xff\xfe{}",
                       b"[" * 5000 + b"]" * 5000, b'{"a":' * 3000 + b"1" + b"}" * 3000])
)


def test_random_bodies(fuzz_stub: FuzzStub):
    @_examples("bodies")
    @given(body=bodies, token=TOKENS, session=st.integers(0, 9))
    def run(body: bytes, token: str | None, session: int) -> None:
        if session == 0:  # the session resource takes GET only and must answer JSON as well
            answer = fuzz_stub.request("POST", SESSION_PATH, body, token)
            assert answer.status in (401, 405) and json.loads(answer.body)
            return
        check_request(fuzz_stub, fuzz_stub.post_api(body, token), None)

    run()


def test_random_requests(fuzz_stub: FuzzStub):
    """Declared methods with generated arguments, under random ``using`` lists and tokens."""
    using = st.lists(st.sampled_from([CORE_CAPABILITY, SPEC_CAPABILITY, STALWART_CAPABILITY, "urn:x"]),
                     min_size=1, max_size=3, unique=True)

    @_examples("requests")
    @given(calls=s.method_calls(max_calls=2), token=TOKENS, using=st.none() | using)
    def run(calls: list[list[Any]], token: str | None, using: list[str] | None) -> None:
        _send(fuzz_stub, calls, token, using)

    run()


# --- method arguments ----------------------------------------------------------------------------------------------


def test_get_arguments(fuzz_stub: FuzzStub):
    @_examples("get")
    @given(object_type=st.sampled_from(s.TYPES), arguments=st.data(), token=st.sampled_from([ADMIN, READONLY]))
    def run(object_type: Any, arguments: st.DataObject, token: str) -> None:
        drawn = arguments.draw(s.get_arguments(object_type))
        _send(fuzz_stub, [[object_type.method("get"), drawn, "g"]], token)

    run()


def test_filters_and_sorts(fuzz_stub: FuzzStub):
    @_examples("filters")
    @given(object_type=st.sampled_from(s.TYPES), data=st.data())
    def run(object_type: Any, data: st.DataObject) -> None:
        arguments = data.draw(s.query_arguments(object_type))
        _send(fuzz_stub, [[object_type.method("query"), arguments, "q"]])

    run()


# --- objects and patches ----------------------------------------------------------------------------------------------

VARIANTS = [(DIRECTORY, name) for name in DIRECTORY.variants] + [(DMARC_EXTERNAL_REPORT, None)]
CREATED_TYPES = st.sampled_from([DIRECTORY, DMARC_EXTERNAL_REPORT])


@cache  # built once per type, not in every example (building a strategy costs more than drawing it)
def _creates(object_type: Any) -> st.SearchStrategy[dict[str, Any]]:
    return st.dictionaries(st.sampled_from(["a", "b"]), s.mutated_object(object_type) | s.json_values,
                           min_size=1, max_size=2)


def test_whole_objects_every_variant(fuzz_stub: FuzzStub):
    """Creates of valid-ish and mutated objects of every variant (and random JSON in their place)."""
    @_examples("objects")
    @given(data=st.data(), token=st.sampled_from([ADMIN, ADMIN, ADMIN, READONLY]))
    def run(data: st.DataObject, token: str) -> None:
        object_type = data.draw(CREATED_TYPES)
        created = data.draw(_creates(object_type))
        _send(fuzz_stub, [[object_type.method("set"), {"create": created}, "s"]], token)

    run()


@pytest.mark.parametrize("object_type", list(OBJECT_TYPES.values()), ids=lambda t: t.name)
def test_valid_objects_are_accepted(object_type: Any):
    """The generator's unmutated objects are mostly valid: the fuzz reaches the store, not just validation."""
    outcomes: list[bool] = []
    with FuzzStub("spec") as stub:
        @settings(FUZZ, max_examples=60)
        @given(obj=s.whole_object(object_type))
        def run(obj: dict[str, Any]) -> None:
            answer = stub.calls([[object_type.method("set"), {"create": {"n": obj}}, "s"]])
            check_request(stub, answer, [[object_type.method("set"), {"create": {"n": obj}}, "s"]])
            outcomes.append(bool(answer.json()["methodResponses"][0][1]["created"]))

        run()
    assert sum(outcomes) >= len(outcomes) // 2, f"only {sum(outcomes)} of {len(outcomes)} generated objects valid"


def test_patches_every_variant(fuzz_stub: FuzzStub):
    """Updates of the stored objects of each variant with declared paths, random values and bad keys."""
    stored = {
        object_type: fuzz_stub.store.get(object_type, fuzz_stub.store.all_ids(object_type))
        for object_type in OBJECT_TYPES.values()
    }
    targets = [(t, object_id, wire) for t, objects in stored.items() for object_id, wire in objects.items()]

    @_examples("patches")
    @given(target=st.sampled_from(targets), data=st.data(), if_in_state=st.none() | st.sampled_from(s.STATES))
    def run(target: tuple[Any, str, dict[str, Any]], data: st.DataObject, if_in_state: str | None) -> None:
        object_type, object_id, wire = target
        model = object_type.model_for(wire.get("@type")) if object_type.variants else object_type.annotation
        patch = data.draw(s.patch_for(model))
        arguments: dict[str, Any] = {"update": {object_id: patch}}
        if if_in_state is not None:
            arguments["ifInState"] = if_in_state
        _send(fuzz_stub, [[object_type.method("set"), arguments, "u"]])

    run()


def test_batches_with_references(fuzz_stub: FuzzStub):
    """Up to four calls in one request, later ones referring to earlier results."""
    @_examples("batches")
    @given(calls=s.method_calls(max_calls=4))
    def run(calls: list[list[Any]]) -> None:
        _send(fuzz_stub, calls)

    run()


def test_case_count():
    """The fuzz tests above generate at least 10,000 cases in a full run (counted by requests sent)."""
    per_profile = sum(v for k, v in EXAMPLES.items() if k != "bodies") + EXAMPLES["bodies"]
    assert per_profile * len(PROFILES) >= 10_000
    if len(RUN) == 7 * len(PROFILES):  # the whole module ran: the requests really were sent
        assert sum(RUN.values()) >= 10_000, RUN
