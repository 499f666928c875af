"""What the totals count, said by ``describe``; ``--sort receivedAt`` on a server that cannot."""

from __future__ import annotations

import json

import httpx
import pytest

from mailadmin.main import main
from tests.support.env_login import token_in_env
from tests.support.fake_jmap import session_body


def test_describe_names_the_totals_for_the_records_they_count(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["describe", "DmarcExternalReport"]) == 0
    text = capsys.readouterr().out
    assert "Records not marked pass" in text and "Records marked pass" in text
    assert "one per record, not messages" in text
    assert "Failed messages" not in text and "Passing messages" not in text
    assert "receivedAt falls back to id (arrival order)" in text
    assert "domain falls back to text" in text and "report/policyDomain" in text
    assert main(["describe", "DmarcExternalReport", "--json"]) == 0
    filters = {f["name"]: f for f in json.loads(capsys.readouterr().out)["filters"]}
    assert filters["totalFailedSessions"]["label"] == "Records not marked pass"
    assert filters["domain"]["narrowTo"] == "report/policyDomain"


def test_query_help_names_the_totals(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["query", "--help"]) == 0
    assert "records not marked pass" in capsys.readouterr().out.replace("\n", " ").replace("  ", " ")


IDS = ["r1", "r2", "r10", "r3"]


@pytest.mark.parametrize(("asked", "expected"), [
    ("receivedAt:desc", ["r10", "r3", "r2", "r1"]),  # newest first: ids grow with arrival
    ("receivedAt", ["r1", "r2", "r3", "r10"]),
])
def test_sort_by_received_falls_back_to_id_in_the_same_direction_with_one_note(
    asked: str, expected: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    sorts: list[dict] = []

    def handler(request: httpx.Request) -> httpx.Response:
        if request.method == "GET":
            if request.url.path == "/.well-known/jmap":
                return httpx.Response(307, headers={"Location": "/jmap/session"})
            return httpx.Response(200, json=session_body("urn:stalwart:jmap", in_account_only=True, api_url="/jmap/"))
        (name, args, call_id), *_ = json.loads(request.content)["methodCalls"]
        sort = args.get("sort", [{}])[0]
        sorts.append(sort)
        if sort.get("property") == "receivedAt":
            return httpx.Response(200, json={"methodResponses": [["error", {"type": "unsupportedSort"}, call_id]]})
        ordered = sorted(IDS, key=lambda i: int(i[1:]), reverse=not sort.get("isAscending", False))
        return httpx.Response(200, json={"methodResponses": [[name, {"ids": ordered, "position": 0,
                                                                      "total": len(ordered)}, call_id]]})

    with token_in_env("API_k"):
        code = main(["query", "DmarcExternalReport", "--sort", asked, "--ids-only", "--url=http://127.0.0.1:1"],
                    transport=httpx.MockTransport(handler))
    captured = capsys.readouterr()
    assert code == 0
    assert captured.out.split() == expected
    assert captured.err.splitlines() == ["note: this server cannot sort by receivedAt; sorted by id (arrival order)"]
    assert [s.get("property") for s in sorts] == ["receivedAt", "id"]
    assert sorts[-1]["isAscending"] == sorts[0]["isAscending"] == (asked == "receivedAt")
