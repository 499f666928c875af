from typing import Any

import pytest

from jmapclient.errors import LocalValidationError
from jmapclient.models.objects import DIRECTORY
from jmapclient.patch import compute_patch, list_moves


def _ldap(**changes: Any) -> dict[str, Any]:
    base = DIRECTORY.validate(
        {"@type": "Ldap", "description": "Corp", "baseDn": "dc=corp", "bindSecret": {"@type": "Value", "secret": "x"}}
    ).to_wire()
    base["id"] = "d1"
    base["bindSecret"] = {"@type": "Value", "secret": "****"}  # as a get returns it
    base.update(changes)
    return base


def test_unchanged_object_gives_an_empty_patch() -> None:
    assert compute_patch(_ldap(), _ldap()) == {}


def test_changed_scalar_replaces_the_top_level_property() -> None:
    assert compute_patch(_ldap(), _ldap(timeout=5000, description="New")) == {"timeout": 5000, "description": "New"}


def test_cleared_optional_field_is_sent_as_null() -> None:
    assert compute_patch(_ldap(), _ldap(filterMemberOf=None)) == {"filterMemberOf": None}


def test_set_members_are_added_and_removed_by_path() -> None:
    after = _ldap(attrEmail={"mail": True, "mail/alt": True}, attrClass={})
    assert compute_patch(_ldap(), after) == {"attrEmail/mail~1alt": True, "attrClass/objectClass": None}


def test_untouched_masked_secret_is_not_sent_and_a_new_one_is() -> None:
    assert compute_patch(_ldap(), _ldap(description="d")) == {"description": "d"}
    after = _ldap(bindSecret={"@type": "Value", "secret": "n3w"})
    assert compute_patch(_ldap(), after) == {"bindSecret/secret": "n3w"}


def test_variant_change_sends_the_whole_value() -> None:
    after = _ldap(bindSecret={"@type": "EnvironmentVariable", "variableName": "LDAP_PW"})
    assert compute_patch(_ldap(), after) == {"bindSecret": {"@type": "EnvironmentVariable", "variableName": "LDAP_PW"}}


def test_whole_value_holding_a_masked_secret_is_refused() -> None:
    before = {"store": {"@type": "PostgreSql", "host": "a", "authSecret": {"@type": "Value", "secret": "****"}}}
    after = {"store": {"@type": "MySql", "host": "a", "authSecret": {"@type": "Value", "secret": "****"}}}
    with pytest.raises(LocalValidationError) as caught:
        compute_patch(before, after)
    assert list(caught.value.fields) == ["store/authSecret/secret"]


def test_list_items_are_patched_by_position_and_removed_last_first() -> None:
    replica = {"host": "r0", "port": 5432, "authSecret": {"@type": "Value", "secret": "****"}}
    before = {"store": {"@type": "PostgreSql", "readReplicas": {"0": replica, "1": {**replica, "host": "r1"},
                                                                 "2": {**replica, "host": "r2"}}}}
    after = {"store": {"@type": "PostgreSql", "readReplicas": {"0": {**replica, "port": 6432}}}}
    patch = compute_patch(before, after)
    assert patch == {"store/readReplicas/0/port": 6432, "store/readReplicas/2": None, "store/readReplicas/1": None}
    assert list(patch)[1:] == ["store/readReplicas/2", "store/readReplicas/1"]
    grown = {"store": {"@type": "PostgreSql", "readReplicas": {"0": replica, "1": {"host": "new",
                                                                                   "authSecret": {"@type": "None"}}}}}
    assert compute_patch({"store": {"@type": "PostgreSql", "readReplicas": {"0": replica}}}, grown) == {
        "store/readReplicas/1": {"host": "new", "authSecret": {"@type": "None"}}
    }


def test_server_set_id_is_never_patched() -> None:
    assert compute_patch(_ldap(), {**_ldap(), "id": "other"}) == {}


def test_removing_a_middle_item_refuses_to_move_a_stored_secret_onto_another_entry() -> None:
    def replica(host: str, secret: str = "****") -> dict[str, Any]:
        return {"host": host, "authSecret": {"@type": "Value", "secret": secret}}

    before = {"store": {"@type": "PostgreSql", "readReplicas": {"0": replica("a"), "1": replica("b"),
                                                                 "2": replica("c")}}}
    middle_removed = {"store": {"@type": "PostgreSql", "readReplicas": {"0": replica("a"), "1": replica("c")}}}
    with pytest.raises(LocalValidationError) as caught:
        compute_patch(before, middle_removed)
    assert list(caught.value.fields) == ["store/readReplicas/1/authSecret/secret"]
    assert "type it again" in caught.value.fields["store/readReplicas/1/authSecret/secret"]

    retyped = {"store": {"@type": "PostgreSql", "readReplicas": {"0": replica("a"), "1": replica("c", "pw-c")}}}
    assert compute_patch(before, retyped) == {
        "store/readReplicas/1/host": "c",
        "store/readReplicas/1/authSecret/secret": "pw-c",
        "store/readReplicas/2": None,
    }
    last_removed = {"store": {"@type": "PostgreSql", "readReplicas": {"0": replica("a"), "1": replica("b")}}}
    assert compute_patch(before, last_removed) == {"store/readReplicas/2": None}


def _replica(host: str, port: int = 5432) -> dict[str, Any]:
    return {"host": host, "port": port, "authUsername": f"user-{host}",
            "authSecret": {"@type": "Value", "secret": "****"}}


@pytest.mark.parametrize(("after", "moves"), [
    pytest.param(["a", "b", "c"], {}, id="unchanged"),
    pytest.param(["b", "a", "c"], {0: 1, 1: 0}, id="two swapped"),
    pytest.param(["new", "a", "b", "c"], {1: 0, 2: 1, 3: 2}, id="one put in above"),
    pytest.param(["a", "c"], {1: 2}, id="the middle one removed"),
    pytest.param(["a", "b", "c", "new"], {}, id="one added at the end"),
    pytest.param(["a2", "b", "c"], {}, id="one renamed in place"),
])
def test_list_moves_follow_each_entry_by_its_content(after: list[str], moves: dict[int, int]) -> None:
    old = {str(at): _replica(host) for at, host in enumerate(["a", "b", "c"])}
    new = {str(at): _replica(host) for at, host in enumerate(after)}
    assert list_moves(old, new) == moves


@pytest.mark.parametrize("order", [["b", "a"], ["new", "a", "b"]], ids=["swapped", "one put in above"])
def test_moving_entries_that_hold_hidden_secrets_is_refused_at_every_position_they_touch(order: list[str]) -> None:
    # The server keeps a hidden secret by position: swapped, two replicas swapped passwords (tester78).
    before = {"readReplicas": {"0": _replica("a"), "1": _replica("b")}}
    after = {"readReplicas": {str(at): _replica(host) for at, host in enumerate(order)}}
    with pytest.raises(LocalValidationError) as caught:
        compute_patch(before, after)
    assert set(caught.value.fields) == {f"readReplicas/{at}/authSecret/secret" for at in range(len(order))}
    said = " ".join(caught.value.fields.values())
    assert "moved here from position" in said and "the server keeps a hidden secret by position" in said


@pytest.mark.parametrize("member", ["x\\y", "*"])
def test_a_set_member_the_real_server_misreads_in_a_path_sends_the_whole_set(member: str) -> None:
    # The real server's pointer parser takes a backslash as an escape and a lone * as every member:
    # "attrEmail/x\\y" stored "xy", and its removal removed nothing, both answered "updated".
    held = _ldap(attrEmail={"mail": True, member: True})
    assert compute_patch(held, _ldap(attrEmail={"mail": True})) == {"attrEmail": {"mail": True}}
    assert compute_patch(_ldap(), _ldap(attrEmail={"mail": True, member: True})) == {
        "attrEmail": {"mail": True, member: True}}
    assert compute_patch(held, _ldap(attrEmail={"mail": True, member: True, "alt": True})) == {
        "attrEmail/alt": True}, "an ordinary member beside it still goes by its path"
