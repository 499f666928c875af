"""Directory: an external account directory (LDAP, SQL database or OpenID Connect).

Web UI: Settings › Authentication › Directories. The ``group`` of each field is the
panel the web UI shows it in; forms derive their layout from it.
"""

# Annotations are evaluated as the classes are declared (no `from __future__ import annotations`):
# postponed, pydantic would compile each field's annotation string when it builds the class, a
# few ms of a command's start for the classes that command loads.

from typing import Annotated, ClassVar, Literal

from pydantic import Field

from jmapclient.models._base import WireModel, spec_field
from jmapclient.models._types import Boolean, Duration, Id, IssuerUrl, LdapUrl, Text, UnsignedInt, WireSet
from jmapclient.models.secrets import SecretKeyOptional
from jmapclient.models.stores import MAX_POOL, SqlAuthStore

TENANT_NOTE = "The tenant this directory belongs to"


class LdapDirectory(WireModel):
    """An LDAP server (rule L1 decides how a login is checked)."""

    KIND_LABEL: ClassVar[str] = "LDAP"
    """How people name this kind of directory."""

    type: Literal["Ldap"] = spec_field("Variant", "Ldap", wire="@type")
    id: Id | None = spec_field("Id", None, server_set=True)
    description: Text = spec_field("Description", group="Connection", note="Short description of the directory")
    url: LdapUrl = spec_field("Server URL", "ldap://localhost:389", group="Connection")
    base_dn: Text = spec_field("Base DN", group="Connection", note="Base DN where searches begin")
    timeout: Duration = spec_field("Connection timeout", 30000, group="Connection")
    use_tls: Boolean = spec_field("Use TLS", False, group="Connection")
    allow_invalid_certs: Boolean = spec_field("Allow invalid TLS certificates", False, group="Connection")
    member_tenant_id: Id | None = spec_field("Tenant", None, group="Connection", enterprise=True, note=TENANT_NOTE)
    bind_dn: Text | None = spec_field("Bind DN", None, group="Bind", note="DN the server binds as to connect")
    bind_secret: SecretKeyOptional = spec_field(
        "Bind secret", group="Bind", note="Password or secret of the bind DN account"
    )
    bind_authentication: Boolean = spec_field(
        "Use bind authentication",
        True,
        group="Bind",
        note="On: find the account, then bind as it with the login password. "
        "Off: bind with the bind DN and compare the password-hash attribute (rule L1)",
    )
    filter_login: Text = spec_field(
        "Login filter",
        "(&(objectClass=inetOrgPerson)(mail=?))",
        group="Filters",
        note="Finds an account by login e-mail address",
    )
    filter_mailbox: Text = spec_field(
        "Recipient filter",
        "(|(&(objectClass=inetOrgPerson)(|(mail=?)(mailAlias=?)))"
        "(&(objectClass=groupOfNames)(|(mail=?)(mailAlias=?))))",
        group="Filters",
        note="Finds users or groups matching a recipient address or alias",
    )
    filter_member_of: Text | None = spec_field(
        "Group membership filter",
        "(&(objectClass=groupOfNames)(member=?))",
        group="Filters",
        note="? is replaced with the account DN. Used when membership is not in the account entry",
    )
    attr_class: WireSet[Text] = spec_field(
        "Account type attributes",
        default_factory=lambda: ["objectClass"],
        group="Attributes",
        note="Account type defaults to individual when missing",
    )
    attr_description: WireSet[Text] = spec_field(
        "Description attributes", default_factory=lambda: ["description"], group="Attributes"
    )
    attr_email: WireSet[Text] = spec_field(
        "Primary e-mail attributes", default_factory=lambda: ["mail"], group="Attributes"
    )
    attr_email_alias: WireSet[Text] = spec_field(
        "E-mail alias attributes", default_factory=lambda: ["mailAlias"], group="Attributes"
    )
    attr_member_of: WireSet[Text] = spec_field(
        "Member-of attributes",
        default_factory=lambda: ["memberOf"],
        group="Attributes",
        note="Used when the membership filter is not configured, or the entry also carries membership",
    )
    attr_secret: WireSet[Text] = spec_field(
        "Password-hash attributes",
        default_factory=lambda: ["userPassword"],
        group="Attributes",
        note="Required when binding as a service user. With bind authentication, "
        "use the secret-changed attribute instead",
    )
    attr_secret_changed: WireSet[Text] = spec_field(
        "Password-changed attributes",
        default_factory=lambda: ["pwdChangeTime"],
        group="Attributes",
        note="With bind authentication, decides when OAuth tokens are invalidated",
    )
    group_class: Text = spec_field("Group object class", "groupOfNames", group="Attributes")
    pool_max_connections: UnsignedInt = spec_field(
        "Maximum connections", 10, ge=0, le=MAX_POOL, group="Pool"
    )
    pool_timeout_create: Duration = spec_field(
        "Wait for a new connection", 30000, group="Pool", note="Wait for a new connection to be created"
    )
    pool_timeout_recycle: Duration = spec_field(
        "Wait for recycling", 30000, group="Pool", note="Wait for a connection to be recycled"
    )
    pool_timeout_wait: Duration = spec_field(
        "Wait for a free connection", 30000, group="Pool", note="Wait for a connection to become available"
    )


class SqlDirectory(WireModel):
    """Accounts and groups in an SQL database."""

    KIND_LABEL: ClassVar[str] = "SQL"
    """How people name this kind of directory."""

    type: Literal["Sql"] = spec_field("Variant", "Sql", wire="@type")
    id: Id | None = spec_field("Id", None, server_set=True)
    description: Text = spec_field("Description", group="Store", note="Short description of the directory")
    store: SqlAuthStore = spec_field("Storage backend", group="Store", note="Where accounts and groups are kept")
    member_tenant_id: Id | None = spec_field("Tenant", None, group="Store", enterprise=True, note=TENANT_NOTE)
    column_email: Text = spec_field(
        "E-mail column", "name", group="Columns", note="Each account's address; the alias query can add more"
    )
    column_secret: Text = spec_field("Password column", "secret", group="Columns")
    column_class: Text | None = spec_field("Account type column", "type", group="Columns")
    column_description: Text | None = spec_field(
        "Full name column", "description", group="Columns", note="Column for full name or description"
    )
    query_login: Text = spec_field(
        "Login query",
        "SELECT name, secret, description, type FROM accounts WHERE name = $1",
        group="Queries",
        note="Account by login e-mail address",
    )
    query_recipient: Text = spec_field(
        "Recipient query",
        "SELECT name, secret, description, type FROM accounts WHERE name = $1 AND active = true",
        group="Queries",
        note="Account by recipient address or alias",
    )
    query_member_of: Text | None = spec_field(
        "Groups query",
        "SELECT member_of FROM group_members WHERE name = $1",
        group="Queries",
        note="Groups of an account",
    )
    query_email_aliases: Text | None = spec_field(
        "Aliases query",
        "SELECT address FROM emails WHERE name = $1",
        group="Queries",
        note="E-mail aliases of an account",
    )


class OidcDirectory(WireModel):
    """An OpenID Connect identity provider (rule O1 derives the login name)."""

    KIND_LABEL: ClassVar[str] = "OpenID Connect"
    """How people name this kind of directory."""

    type: Literal["Oidc"] = spec_field("Variant", "Oidc", wire="@type")
    id: Id | None = spec_field("Id", None, server_set=True)
    description: Text = spec_field("Description", group="Provider", note="Short description of the directory")
    issuer_url: IssuerUrl = spec_field(
        "Issuer URL",
        group="Provider",
        note="Base URL of the identity provider; its endpoints are discovered from it",
    )
    # The real server's default (wire-notes.md): without it an OIDC directory would accept
    # tokens issued for any audience.
    require_audience: Text | None = spec_field(
        "Required audience", "stalwart", group="Provider", note="Tokens whose aud claim lacks it are rejected"
    )
    require_scopes: WireSet[Text] = spec_field(
        "Required scopes",
        default_factory=lambda: ["email", "openid"],
        group="Provider",
        note="Tokens lacking any listed scope are rejected",
    )
    member_tenant_id: Id | None = spec_field("Tenant", None, group="Provider", enterprise=True, note=TENANT_NOTE)
    claim_username: Text = spec_field(
        "Username claim", "preferred_username", group="Claims", note="Claim holding the login name (rule O1)"
    )
    username_domain: Text | None = spec_field(
        "Username domain", None, group="Claims", note="Appended to a bare username (rule O1)"
    )
    claim_name: Text | None = spec_field(
        "Display-name claim", "name", group="Claims", note="When unset, the display name is not populated"
    )
    claim_groups: Text | None = spec_field(
        "Groups claim",
        None,
        group="Claims",
        note="When unset, groups are not populated. Some providers give groups only at the user info endpoint",
    )


Directory = Annotated[LdapDirectory | SqlDirectory | OidcDirectory, Field(discriminator="type")]
