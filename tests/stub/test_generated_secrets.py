"""The stub's generated tokens and passwords can be given to a command line as they are printed."""

from __future__ import annotations

import secrets

import pytest

from server_stub.auth import new_password, new_token


@pytest.mark.parametrize("make", [new_token, new_password])
def test_a_generated_secret_never_begins_with_a_dash(make, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    draws = iter(["-leading-dash-draw", "Aplain-draw"])
    monkeypatch.setattr(secrets, "token_urlsafe", lambda _n: next(draws))
    assert make() == "Aplain-draw"
