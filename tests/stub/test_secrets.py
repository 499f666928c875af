"""No response body ever carries a stored secret, whatever a client asks."""

from __future__ import annotations

from jmapclient.encoding import MASKED_SECRET
from jmapclient.models.objects import DIRECTORY
from tests.support.stub import READONLY, Stub

NEW_SECRETS = ("created-secret-8d7f", "replica-secret-55aa", "patched-secret-0c1e", "failed-secret-9b9b")


async def test_no_response_carries_a_stored_secret(stub: Stub):
    sql_create = {
        "@type": "Sql",
        "description": "With secrets",
        "store": {
            "@type": "MySql",
            "host": "db.example.com",
            "authSecret": {"@type": "Value", "secret": NEW_SECRETS[0]},
            "readReplicas": {
                "0": {"host": "r.example.com", "authSecret": {"@type": "Value", "secret": NEW_SECRETS[1]}}
            },
        },
    }
    _, created = await stub.call(DIRECTORY.method("set"), {"create": {"s": sql_create}})
    new_id = created["created"]["s"]["id"]
    if not stub.profile.real_get_and_set:  # the real server echoes only the id
        assert created["created"]["s"]["store"]["authSecret"]["secret"] == MASKED_SECRET  # the echo is masked
    ldap = next(i for i, w in stub.store.get(DIRECTORY, stub.store.all_ids(DIRECTORY)).items() if w["@type"] == "Ldap")
    await stub.call(DIRECTORY.method("set"), {"update": {ldap: {"bindSecret/secret": NEW_SECRETS[2]}}})
    # A failing update whose merged object holds the stored secrets must not echo them either.
    await stub.call(DIRECTORY.method("set"), {"update": {ldap: {"poolMaxConnections": -5, "bindSecret/x": 1}}})
    await stub.call(DIRECTORY.method("set"), {"update": {new_id: {"store/port": "x"}}})
    await stub.call(DIRECTORY.method("set"), {"create": {"bad": {**sql_create, "description": ""}}})
    await stub.call(DIRECTORY.method("set"), {"create": {"bad": {"@type": "Ldap", "bindSecret": {
        "@type": "Value", "secret": NEW_SECRETS[3]}, "baseDn": 5}}})
    for token in (None, READONLY):
        kwargs = {} if token is None else {"token": token}
        await stub.call(DIRECTORY.method("get"), {"ids": None}, **kwargs)
        await stub.call(DIRECTORY.method("get"), {"ids": [ldap, new_id], "properties": ["bindSecret", "store"]},
                        **kwargs)
    await stub.calls([
        ["x:Directory/query", {}, "q"],
        ["x:Directory/get", {"#ids": {"resultOf": "q", "name": "x:Directory/query", "path": "/ids"}}, "g"],
        ["Core/echo", {"#x": {"resultOf": "g", "name": "x:Directory/get", "path": "/list/*/bindSecret"}}, "e"],
    ])
    stored = stub.store.get(DIRECTORY, [ldap, new_id])
    assert stored[ldap]["bindSecret"]["secret"] == NEW_SECRETS[2]
    assert stored[new_id]["store"]["readReplicas"]["0"]["authSecret"]["secret"] == NEW_SECRETS[1]
    plaintexts = [*stub.demo.secrets, *NEW_SECRETS[:3]]
    assert len(stub.responses) >= 10
    for body in stub.responses:
        for secret in plaintexts:
            assert secret.encode() not in body
