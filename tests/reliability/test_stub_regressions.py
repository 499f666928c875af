"""Server bugs the fuzzing found, each pinned by the smallest request that showed it."""

from __future__ import annotations

import pytest

from jmapclient.models.objects import DIRECTORY, DMARC_EXTERNAL_REPORT
from tests.support.fuzz_oracle import check_request
from tests.support.fuzz_stub import FuzzStub

TOO_BIG = 2**63  # one past SQLite's largest integer; RFC 8620 Ints stop at 2^53 - 1


@pytest.mark.parametrize(
    ("method", "arguments"),
    [
        (DIRECTORY.method("query"), {"position": TOO_BIG}),
        (DIRECTORY.method("query"), {"anchor": "d1", "anchorOffset": TOO_BIG}),
        (DMARC_EXTERNAL_REPORT.method("query"), {"limit": 10**30}),
        (DMARC_EXTERNAL_REPORT.method("query"), {"filter": {"totalFailedSessionsIsGreaterThan": TOO_BIG}}),
        (DMARC_EXTERNAL_REPORT.method("query"), {"filter": {"totalSuccessfulSessions": -(2**64)}}),
    ],
)
def test_huge_integers_are_invalid_arguments_not_server_failures(method: str, arguments: dict):
    """Integers past 2^53 used to reach SQLite, overflow, and come back as serverFail."""
    with FuzzStub() as stub:
        calls = [[method, arguments, "q"]]
        answer = stub.calls(calls)
        check_request(stub, answer, calls)
        name, result, _ = answer.json()["methodResponses"][0]
        assert (name, result["type"]) == ("error", "invalidArguments")
        assert "2^53" in result["description"]


def test_largest_json_integer_still_works():
    with FuzzStub() as stub:
        answer = stub.calls([[DIRECTORY.method("query"), {"position": 2**53 - 1, "calculateTotal": True}, "q"]])
        name, result, _ = answer.json()["methodResponses"][0]
        assert name == DIRECTORY.method("query")
        assert result["ids"] == [] and result["total"] == 3


@pytest.mark.parametrize("members", [[[]], [{"a": True}], ["ok", ["nested"]]])
def test_unhashable_set_members_are_invalid_properties_not_server_failures(members: list):
    """A JSON array of arrays or objects as a Set used to raise TypeError in the model and answer serverFail."""
    with FuzzStub() as stub:
        for arguments in ({"update": {"d3": {"requireScopes": members}}},
                          {"create": {"n": {"@type": "Oidc", "description": "x", "issuerUrl": "https://sso.example.com",
                                            "requireScopes": members}}}):
            calls = [[DIRECTORY.method("set"), arguments, "s"]]
            answer = stub.calls(calls)
            check_request(stub, answer, calls)
            name, result, _ = answer.json()["methodResponses"][0]
            refused = result["notUpdated"] or result["notCreated"]
            assert name == DIRECTORY.method("set")
            assert [e["type"] for e in refused.values()] == ["invalidProperties"]
            assert "requireScopes" in next(iter(refused.values()))["properties"]
