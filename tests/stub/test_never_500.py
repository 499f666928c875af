"""Whatever JSON a client sends as method arguments, the answer is a JMAP answer, never a 500."""

from __future__ import annotations

import asyncio
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jmapclient.models.objects import OBJECT_TYPES
from tests.support.stub import make_stub

METHODS = [t.method(v) for t in OBJECT_TYPES.values() for v in ("get", "set", "query")]
KEYS = ["ids", "properties", "filter", "sort", "position", "anchor", "anchorOffset", "limit", "calculateTotal",
        "create", "update", "destroy", "ifInState", "accountId", "operator", "conditions", "d1", "r1", "@type",
        "description", "bindSecret", "attrEmail/mail", "store/readReplicas/0", "report/records/0/count", "text",
        "totalFailedSessionsIsLessThan", "expiresAt", "#ids"]
json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-2**63, 2**63) | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8) | st.sampled_from(KEYS),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.sampled_from(KEYS) | st.text(max_size=5), inner,
                                                                 max_size=4),
    max_leaves=12,
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(method=st.sampled_from(METHODS), arguments=st.dictionaries(st.sampled_from(KEYS), json_values, max_size=4))
def test_random_arguments_never_break_the_server(method: str, arguments: dict[str, Any]):
    async def run() -> None:
        stub, _ = await make_stub("spec", reports=3)
        async with stub.http:
            response = await stub.post({"using": stub.using, "methodCalls": [[method, arguments, "c"]]})
            assert response.status_code == 200
            name, result, _ = response.json()["methodResponses"][0]
            assert name in (method, "error")
            if name == "error":
                assert result["type"] != "serverFail", result
        stub.store.close()

    asyncio.run(run())
