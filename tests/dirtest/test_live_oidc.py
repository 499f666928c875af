"""The live OpenID Connect test against a provider's discovery and keys served over HTTPS by the test,
with access tokens signed by its real key."""

from __future__ import annotations

from typing import Any

from jmapclient.dirtest import oidc_probe, steps
from jmapclient.dirtest.inputs import LiveInput
from jmapclient.dirtest.live import run_live
from jmapclient.dirtest.steps import Outcome, Report
from tests.support.directory_seeds import ALICE, CLIENT_ID, OidcProvider
from tests.support.tls import PrivateCa


def _run(wire: dict[str, Any], ca: PrivateCa, token: str | None, **inputs: Any) -> Report:
    return run_live(wire, LiveInput(password=token, ca_file=str(ca.ca_file), timeout=5, **inputs))


def test_a_correct_provider_and_token_pass_every_step(oidc_provider: OidcProvider, directory_ca: PrivateCa) -> None:
    token = oidc_provider.token()
    told: list[str] = []
    report = _run(oidc_provider.settings(), directory_ca, token, on_step=lambda step: told.append(step.name))
    assert {s.name: s.outcome for s in report.steps} == {name: Outcome.PASSED for name in oidc_probe.PLAN}
    assert told == list(oidc_probe.PLAN)  # each as it ended, in the plan's order: the console's running line
    assert f"logs in as {ALICE}" in report.step(oidc_probe.LOGIN_NAME).reason
    assert all(token not in " ".join((s.reason, *s.details)) for s in report.steps)


def test_the_default_audience_is_named_with_what_the_provider_puts_in_aud(
    oidc_provider: OidcProvider, directory_ca: PrivateCa
) -> None:
    report = _run(oidc_provider.settings(requireAudience="stalwart"), directory_ca,
                  oidc_provider.token(aud=["account"]))
    audience = report.step(oidc_probe.AUDIENCE)
    assert audience.outcome is Outcome.FAILED
    assert "'stalwart' (its default)" in audience.reason and "account" in audience.reason
    assert repr(CLIENT_ID) in audience.fix


def test_a_scope_the_provider_does_not_offer_fails_discovery(
    oidc_provider: OidcProvider, directory_ca: PrivateCa
) -> None:
    wire = oidc_provider.settings(requireScopes={"openid": True, "offline_access": True})
    discovery = _run(wire, directory_ca, oidc_provider.token()).step(steps.DISCOVERY)
    assert discovery.outcome is Outcome.FAILED
    assert "does not offer the required scope(s) offline_access" in discovery.reason


def test_a_scope_the_token_was_not_granted_is_named(oidc_provider: OidcProvider, directory_ca: PrivateCa) -> None:
    scopes = _run(oidc_provider.settings(), directory_ca, oidc_provider.token(scope="openid")).step(oidc_probe.SCOPES)
    assert scopes.outcome is Outcome.FAILED and "lacks the required scope(s) email" in scopes.reason


def test_a_username_claim_with_no_address_is_rejected_by_rule_o1(
    oidc_provider: OidcProvider, directory_ca: PrivateCa
) -> None:
    token = oidc_provider.token(preferred_username="alice", email=None)
    login = _run(oidc_provider.settings(), directory_ca, token).step(oidc_probe.LOGIN_NAME)
    assert login.outcome is Outcome.FAILED
    assert "rule O1" in login.reason and "no email claim" in login.reason
    assert "Username domain" in login.fix
    fixed = _run(oidc_provider.settings(usernameDomain="example.org"), directory_ca, token)
    assert f"logs in as {ALICE}" in fixed.step(oidc_probe.LOGIN_NAME).reason


def test_a_token_signed_by_another_key_fails(oidc_provider: OidcProvider, directory_ca: PrivateCa) -> None:
    from joserfc.jwk import ECKey

    stranger = ECKey.generate_key("P-256", parameters={"kid": "test-key-1"}, private=True)
    report = _run(oidc_provider.settings(), directory_ca, oidc_provider.token(key=stranger))
    assert report.step(steps.TOKEN).outcome is Outcome.FAILED
    assert "does not verify" in report.step(steps.TOKEN).reason


def test_an_expired_token_fails(oidc_provider: OidcProvider, directory_ca: PrivateCa) -> None:
    report = _run(oidc_provider.settings(), directory_ca, oidc_provider.token(exp=1_000_000_000))
    assert report.step(steps.TOKEN).outcome is Outcome.FAILED and "expired" in report.step(steps.TOKEN).reason


def test_a_wrong_issuer_url_fails_discovery(oidc_provider: OidcProvider, directory_ca: PrivateCa) -> None:
    wire = oidc_provider.settings(issuerUrl=f"{oidc_provider.issuer}/realms/none")
    report = _run(wire, directory_ca, oidc_provider.token())
    assert report.step(steps.DISCOVERY).outcome is Outcome.FAILED
    assert report.step(steps.KEYS).outcome is Outcome.SKIPPED


def test_without_a_token_discovery_and_keys_still_run(oidc_provider: OidcProvider, directory_ca: PrivateCa) -> None:
    report = _run(oidc_provider.settings(), directory_ca, None)
    assert [s.outcome for s in report.steps[:2]] == [Outcome.PASSED, Outcome.PASSED]
    assert report.step(steps.TOKEN).outcome is Outcome.SKIPPED


def test_a_provider_this_machine_does_not_trust_fails_discovery(oidc_provider: OidcProvider) -> None:
    report = run_live(oidc_provider.settings(), LiveInput(password=oidc_provider.token(), timeout=5))
    assert report.step(steps.DISCOVERY).outcome is Outcome.FAILED
    discovery = report.step(steps.DISCOVERY)
    assert discovery.reason.endswith(": the server's certificate is signed by a CA this machine does not trust "
                                     "(unable to get local issuer certificate)")
    assert "--directory-ca-file" in discovery.fix
