"""FieldSpec.default is the wire form, also for sets and lists (they were plain lists before)."""

from jmapclient.models import LdapDirectory, PostgreSqlStore
from jmapclient.models.introspect import field_by_wire


def test_set_and_list_defaults_are_in_wire_form():
    assert field_by_wire(LdapDirectory, "attrClass").default == {"objectClass": True}
    assert field_by_wire(PostgreSqlStore, "readReplicas").default == {}
    assert field_by_wire(LdapDirectory, "timeout").default == 30000
