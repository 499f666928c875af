"""The cycle collector rests while a set call's creates are checked and stored, and runs again after (issue #33)."""

from __future__ import annotations

import gc
from typing import Any

import pytest

from jmapclient.models.objects import DMARC_EXTERNAL_REPORT
from server_stub.methods import set as set_method
from tests.support.stub import running_stub


async def test_the_collector_rests_during_the_creates_and_runs_after(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[bool] = []
    real = set_method._create_all

    def watched(*args: Any) -> Any:
        seen.append(gc.isenabled())
        return real(*args)

    monkeypatch.setattr(set_method, "_create_all", watched)
    assert gc.isenabled()
    async with running_stub("spec", reports=0) as stub:
        name, result = await stub.call(DMARC_EXTERNAL_REPORT.method("set"), {"create": {"bad": {}}})
    assert name == DMARC_EXTERNAL_REPORT.method("set") and "bad" in result["notCreated"]
    assert seen == [False]
    assert gc.isenabled()


async def test_a_process_that_turned_the_collector_off_keeps_it_off() -> None:
    gc.disable()
    try:
        async with running_stub("spec", reports=0) as stub:
            await stub.call(DMARC_EXTERNAL_REPORT.method("set"), {"create": {"bad": {}}})
        assert not gc.isenabled()
    finally:
        gc.enable()


async def test_the_collector_rests_while_a_request_is_decoded_and_answered(monkeypatch: pytest.MonkeyPatch) -> None:
    """Decoding a large create and encoding its answer build the most objects of a request: no collector pass
    moves them on meanwhile (they are freed by their reference counts when it is done)."""
    from server_stub import app as app_module
    from server_stub import protocol

    seen: list[tuple[str, bool]] = []
    parse, encode = protocol.parse_request, app_module.encode_answer

    def parsing(*args: Any) -> Any:
        seen.append(("decode", gc.isenabled()))
        return parse(*args)

    def encoding(*args: Any) -> Any:
        seen.append(("encode", gc.isenabled()))
        return encode(*args)

    monkeypatch.setattr(app_module, "parse_request", parsing)
    monkeypatch.setattr(app_module, "encode_answer", encoding)
    async with running_stub("spec", reports=0) as stub:
        name, _ = await stub.call(DMARC_EXTERNAL_REPORT.method("query"), {})
        refused = await stub.post(b"{not json")
    assert name == DMARC_EXTERNAL_REPORT.method("query") and refused.status_code == 400
    assert refused.json()["type"].endswith("notJSON")
    assert seen == [("decode", False), ("encode", False), ("decode", False)]
    assert gc.isenabled()
