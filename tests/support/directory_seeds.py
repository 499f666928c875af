"""What the directory test's real servers hold: users, groups, aliases and hashes that reproduce
each failure people post, and the directory settings (wire form) that point at them.

alice is set up right ({SSHA} hash, an alias, in the group staff); bob's password is a bare hex
MD5, a format the mail server does not know (it compares it as plain text).
"""

from __future__ import annotations

import base64
import hashlib
import json
import ssl
import threading
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from tests.support.directory_servers import LDAP_SUFFIX, free_port

ALICE, ALICE_PASSWORD, ALICE_ALIAS = "alice@example.org", "alice-pass", "ali@example.org"
BOB = "bob@example.org"
BOB_HASH = hashlib.md5(b"password").hexdigest()  # the unknown format, on purpose
SERVICE_DN, SERVICE_SECRET = f"cn=service,{LDAP_SUFFIX}", "service-secret"
READER_DN, READER_SECRET = f"cn=reader,{LDAP_SUFFIX}", "reader-secret"
DB_USER, DB_SECRET, DB_NAME = "stalwart", "db-secret", "stalwart"


def ssha(password: str, salt: bytes = b"\x01\x02\x03\x04") -> str:
    return "{SSHA}" + base64.b64encode(hashlib.sha1(password.encode() + salt).digest() + salt).decode()


# --- LDAP -----------------------------------------------------------------------------------

# The service account reads hashes; the reader may search but sees none (service-user mode fails).
LDAP_ACCESS = f"""
access to attrs=userPassword
    by dn.exact="{SERVICE_DN}" read
    by anonymous auth
    by * none
access to * by * read
"""

LDAP_SEED = f"""dn: {LDAP_SUFFIX}
objectClass: dcObject
objectClass: organization
o: Example
dc: example

dn: ou=people,{LDAP_SUFFIX}
objectClass: organizationalUnit
ou: people

dn: ou=groups,{LDAP_SUFFIX}
objectClass: organizationalUnit
ou: groups

dn: {SERVICE_DN}
objectClass: organizationalRole
objectClass: simpleSecurityObject
cn: service
userPassword: {SERVICE_SECRET}

dn: {READER_DN}
objectClass: organizationalRole
objectClass: simpleSecurityObject
cn: reader
userPassword: {READER_SECRET}

dn: uid=alice,ou=people,{LDAP_SUFFIX}
objectClass: inetOrgPerson
objectClass: mailAliases
uid: alice
cn: Alice Adams
sn: Adams
description: Alice Adams
mail: {ALICE}
mailAlias: {ALICE_ALIAS}
userPassword: {ssha(ALICE_PASSWORD)}

dn: uid=bob,ou=people,{LDAP_SUFFIX}
objectClass: inetOrgPerson
uid: bob
cn: Bob Brown
sn: Brown
mail: {BOB}
userPassword: {BOB_HASH}

dn: cn=staff,ou=groups,{LDAP_SUFFIX}
objectClass: groupOfNames
cn: staff
member: uid=alice,ou=people,{LDAP_SUFFIX}
"""


def ldap_settings(url: str, **changes: Any) -> dict[str, Any]:
    """A correct LDAP directory for the seeded slapd (STARTTLS, the service account), then ``changes``."""
    wire: dict[str, Any] = {
        "@type": "Ldap", "description": "Test slapd", "url": url, "baseDn": LDAP_SUFFIX, "timeout": 10000,
        "useTls": True, "allowInvalidCerts": False, "bindDn": SERVICE_DN,
        "bindSecret": {"@type": "Value", "secret": SERVICE_SECRET}, "bindAuthentication": True,
        "filterLogin": "(&(objectClass=inetOrgPerson)(mail=?))",
        "filterMailbox": "(|(&(objectClass=inetOrgPerson)(|(mail=?)(mailAlias=?)))"
                         "(&(objectClass=groupOfNames)(|(mail=?)(mailAlias=?))))",
        "filterMemberOf": "(&(objectClass=groupOfNames)(member=?))",
        "attrClass": {"objectClass": True}, "attrDescription": {"description": True}, "attrEmail": {"mail": True},
        "attrEmailAlias": {"mailAlias": True}, "attrMemberOf": {"memberOf": True},
        "attrSecret": {"userPassword": True}, "attrSecretChanged": {"pwdChangeTime": True},
        "groupClass": "groupOfNames",
    }
    wire.update(changes)
    return wire


# --- SQL ------------------------------------------------------------------------------------

SQL_SCHEMA = (
    "CREATE TABLE accounts (name VARCHAR(128) PRIMARY KEY, secret VARCHAR(256), description VARCHAR(256), "
    "type VARCHAR(32), active BOOLEAN)",
    "CREATE TABLE group_members (name VARCHAR(128), member_of VARCHAR(128))",
    "CREATE TABLE emails (name VARCHAR(128), address VARCHAR(128))",
)
SQL_ROWS: tuple[tuple[str, tuple[Any, ...]], ...] = (
    ("INSERT INTO accounts VALUES (?, ?, ?, ?, ?)", (ALICE, ssha(ALICE_PASSWORD), "Alice Adams", "individual", True)),
    ("INSERT INTO accounts VALUES (?, ?, ?, ?, ?)", (BOB, BOB_HASH, "Bob Brown", "individual", True)),
    ("INSERT INTO group_members VALUES (?, ?)", (ALICE, "staff@example.org")),
    ("INSERT INTO emails VALUES (?, ?)", (ALICE, ALICE_ALIAS)),
)


def seed_sql(cursor: Any, placeholder: str) -> None:
    """The schema and rows, through any DB-API cursor (``placeholder``: its parameter mark)."""
    for statement in SQL_SCHEMA:
        cursor.execute(statement)
    for statement, values in SQL_ROWS:
        cursor.execute(statement.replace("?", placeholder), values)


def sql_settings(store: dict[str, Any], **changes: Any) -> dict[str, Any]:
    """A correct SQL directory (the server's default queries and columns) on ``store``, then ``changes``."""
    wire: dict[str, Any] = {
        "@type": "Sql", "description": "Test SQL", "store": store,
        "columnEmail": "name", "columnSecret": "secret", "columnClass": "type", "columnDescription": "description",
        "queryLogin": "SELECT name, secret, description, type FROM accounts WHERE name = $1",
        "queryRecipient": "SELECT name, secret, description, type FROM accounts WHERE name = $1 AND active = true",
        "queryMemberOf": "SELECT member_of FROM group_members WHERE name = $1",
        "queryEmailAliases": "SELECT address FROM emails WHERE name = $1",
    }
    wire.update(changes)
    return wire


# --- OpenID Connect -------------------------------------------------------------------------

CLIENT_ID = "mailadmin-client"


class OidcProvider:
    """Discovery and keys over HTTPS (a test CA's certificate), and tokens signed with its real key."""

    def __init__(self, cert_file: Path, key_file: Path) -> None:
        from joserfc.jwk import ECKey

        self.key = ECKey.generate_key("P-256", parameters={"kid": "test-key-1"}, private=True)
        self.port = free_port()
        self.issuer = f"https://127.0.0.1:{self.port}"
        document = {
            "issuer": self.issuer, "jwks_uri": f"{self.issuer}/jwks",
            "authorization_endpoint": f"{self.issuer}/authorize", "token_endpoint": f"{self.issuer}/token",
            "scopes_supported": ["openid", "email", "profile"],
            "claims_supported": ["sub", "iss", "aud", "email", "preferred_username", "name"],
        }
        pages = {"/.well-known/openid-configuration": document, "/jwks": {"keys": [self.key.as_dict(private=False)]}}

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # http.server's name
                page = pages.get(self.path)
                body = json.dumps(page).encode() if page is not None else b"{}"
                self.send_response(200 if page is not None else 404)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(cert_file, key_file)
        self.server.socket = context.wrap_socket(self.server.socket, server_side=True)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def token(self, key: Any = None, **claims: Any) -> str:
        """An access token with the provider's usual claims, ``claims`` changed or added (None drops one)."""
        import time

        from joserfc import jwt

        now = int(time.time())
        body: dict[str, Any] = {
            "iss": self.issuer, "sub": "alice", "aud": CLIENT_ID, "azp": CLIENT_ID, "iat": now, "exp": now + 600,
            "scope": "openid email profile", "preferred_username": ALICE, "email": ALICE,
        }
        body.update(claims)
        body = {k: v for k, v in body.items() if v is not None}
        signer = key or self.key
        return jwt.encode({"alg": "ES256", "kid": str(signer.kid)}, body, signer)

    def settings(self, **changes: Any) -> dict[str, Any]:
        wire: dict[str, Any] = {
            "@type": "Oidc", "description": "Test provider", "issuerUrl": self.issuer,
            "requireAudience": CLIENT_ID, "requireScopes": {"openid": True, "email": True},
            "claimUsername": "preferred_username", "usernameDomain": None, "claimName": "name", "claimGroups": None,
        }
        wire.update(changes)
        return wire

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


# --- Every posted failure, once, for the command line's and the console's tests ---------------


@dataclass(frozen=True)
class Servers:
    """The running servers a misconfiguration is set up on."""

    slapd_url: str
    slapd_tls_url: str
    postgres: dict[str, Any]
    mariadb: dict[str, Any]
    sqlite: dict[str, Any]
    oidc: OidcProvider


@dataclass(frozen=True)
class Misconfiguration:
    """A failure people post, as settings on the real servers, and what the test must say about it."""

    name: str
    settings: Callable[[Servers], dict[str, Any]]
    step: str
    reason: str
    """Words the failed step's reason holds."""
    fix: str
    """Words its fix holds."""
    login: str | None = ALICE
    password: Callable[[Servers], str | None] = lambda _servers: ALICE_PASSWORD


BY_UID_OR_MAIL = "(&(objectClass=inetOrgPerson)(|(uid=?)(mail=?)))"

MISCONFIGURATIONS = (
    Misconfiguration("ldap-bind-auth-without-secret-attribute", lambda s: ldap_settings(s.slapd_url, attrSecret={}),
                     "attributes read", "Account does not contain secrets", "Password-changed attributes"),
    Misconfiguration("ldap-login-by-uid-makes-two-accounts",
                     lambda s: ldap_settings(s.slapd_url, filterLogin=BY_UID_OR_MAIL),
                     "login search", "makes two accounts", "(mail=?)", login="alice"),
    Misconfiguration("ldap-no-memberof", lambda s: ldap_settings(s.slapd_url, filterMemberOf=None),
                     "groups", "no memberOf", "(&(objectClass=groupOfNames)(member=?))"),
    Misconfiguration("ldap-starttls-with-ldaps", lambda s: ldap_settings(s.slapd_tls_url, useTls=True),
                     "TLS", "already TLS", "turn Use TLS off"),
    Misconfiguration("ldap-service-mode-without-hash",
                     lambda s: ldap_settings(s.slapd_url, bindAuthentication=False, bindDn=READER_DN,
                                             bindSecret={"@type": "Value", "secret": READER_SECRET}),
                     "attributes read", "returns no hash", "read access"),
    Misconfiguration("ldap-service-mode-unknown-hash", lambda s: ldap_settings(s.slapd_url, bindAuthentication=False),
                     "attributes read", "unknown: compared as plain text, logins will fail", "{SSHA}", login=BOB),
    Misconfiguration("postgres-syntax-error",
                     lambda s: sql_settings(s.postgres, queryLogin="SELECT name, secret FROM accounts WHERE WHERE "
                                                                   "name = $1"),
                     "login search", "syntax error", "correct the SQL"),
    Misconfiguration("mariadb-no-placeholder",
                     lambda s: sql_settings(s.mariadb, queryEmailAliases=f"SELECT address FROM emails WHERE "
                                                                         f"name = '{ALICE}'"),
                     "aliases", "no $1", "WHERE name = $1"),
    Misconfiguration("sqlite-columns-do-not-match",
                     lambda s: sql_settings(s.sqlite, queryLogin="SELECT name, secret AS password, description, type "
                                                                 "FROM accounts WHERE name = $1"),
                     "attributes read", "no column secret", "AS secret"),
    Misconfiguration("postgres-unknown-hash", lambda s: sql_settings(s.postgres), "attributes read",
                     "unknown: compared as plain text, logins will fail", "{SSHA}", login=BOB),
    Misconfiguration("oidc-default-audience", lambda s: s.oidc.settings(requireAudience="stalwart"), "audience",
                     "'stalwart' (its default)", repr(CLIENT_ID), login=None,
                     password=lambda s: s.oidc.token(aud=["account"])),
    Misconfiguration("oidc-scope-not-granted",
                     lambda s: s.oidc.settings(requireScopes={"openid": True, "offline_access": True}), "discovery",
                     "does not offer the required scope(s) offline_access", "Required scopes", login=None,
                     password=lambda s: s.oidc.token()),
    Misconfiguration("oidc-username-claim-without-address", lambda s: s.oidc.settings(), "login name",
                     "rule O1", "Username domain", login=None,
                     password=lambda s: s.oidc.token(preferred_username="alice", email=None)),
)
