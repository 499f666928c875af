"""Rules L1 and O1 as pure functions: one test per branch."""

from jmapclient.models import LdapDirectory
from jmapclient.rules import explain_ldap_login, is_email_address, oidc_login_name


def o1(claims, domain=None, claim="preferred_username"):
    return oidc_login_name(claims, claim_username=claim, username_domain=domain)


def test_o1_value_with_at_is_used_as_is():
    outcome = o1({"preferred_username": "ann@example.org", "email": "other@example.org"}, domain="corp.example")
    assert outcome.login == "ann@example.org"
    assert "as is" in outcome.reason


def test_o1_bare_value_gets_the_username_domain():
    outcome = o1({"preferred_username": "ann", "email": "other@example.org"}, domain="corp.example")
    assert outcome.login == "ann@corp.example"
    assert "@corp.example is appended" in outcome.reason


def test_o1_bare_value_without_domain_falls_back_to_email_claim():
    outcome = o1({"preferred_username": "ann", "email": "ann.smith@example.org"})
    assert outcome.login == "ann.smith@example.org"
    assert "email claim is used" in outcome.reason


def test_o1_missing_username_claim_falls_back_to_email_claim():
    outcome = o1({"email": "bob@example.org"}, claim="upn")
    assert outcome.login == "bob@example.org"
    assert "upn claim is missing" in outcome.reason


def test_o1_rejects_without_any_email():
    outcome = o1({"preferred_username": "ann"})
    assert outcome.login is None
    assert outcome.reason.startswith("rejected") and "no email claim" in outcome.reason


def test_o1_rejects_an_invalid_address():
    outcome = o1({"preferred_username": "ann@"})
    assert outcome.login is None
    assert "not a valid e-mail address" in outcome.reason
    assert o1({"preferred_username": "ann"}, domain="bad domain").login is None


def test_o1_rejects_a_login_name_with_more_than_one_at() -> None:
    # The panel accepted "a@b@c" while it rejected "jane@" and "@": no valid address holds two @.
    for claims in ({"preferred_username": "a@b@c"}, {"preferred_username": "ann", "email": "a@b@c.example"}):
        outcome = o1(claims)
        assert outcome.login is None, claims
        assert "not a valid e-mail address (it holds more than one @)" in outcome.reason, outcome.reason


def test_email_check_matches_the_models():
    assert is_email_address("a@b.example")
    assert not is_email_address("a b@c")


def _ldap(**changes):
    wire = LdapDirectory(description="x", base_dn="dc=example", bind_secret={"@type": "None"}).to_wire()
    wire.update(changes)
    return wire


def test_l1_bind_authentication_finds_then_binds_as_account():
    explanation = explain_ldap_login(_ldap())
    assert explanation.mode == "bind authentication"
    assert "Binds as the account found" in explanation.steps[1]
    assert "(&(objectClass=inetOrgPerson)(mail=?))" in explanation.steps[0]
    assert explanation.warnings == ()


def test_l1_service_user_without_secret_warns():
    explanation = explain_ldap_login(_ldap(bindAuthentication=False, bindDn="cn=svc"))
    assert explanation.mode.startswith("service user")
    assert "userPassword" in explanation.steps[2]
    assert any("needs a bind secret" in w for w in explanation.warnings)


def test_l1_service_user_with_empty_password_attribute_warns():
    wire = _ldap(bindAuthentication=False, bindDn="cn=svc", attrSecret={},
                 bindSecret={"@type": "Value", "secret": "s3cret"})
    warnings = explain_ldap_login(wire).warnings
    assert len(warnings) == 1 and "hash attribute" in warnings[0]


def test_l1_complete_service_user_setup_has_no_warning():
    wire = _ldap(bindAuthentication=False, bindDn="cn=svc", bindSecret={"@type": "File", "filePath": "/s"})
    assert explain_ldap_login(wire).warnings == ()
