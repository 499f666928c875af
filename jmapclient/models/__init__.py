"""Pydantic models of every object, nested type and enumeration of interface.md.

Each field is declared once, in these modules, with its wire name, default, bounds,
label and flags. :mod:`jmapclient.models.introspect` reads those declarations for the
forms, the CLI, the stub and ``describe``.
"""

from jmapclient.models._base import SERVICE_NAME, WireModel
from jmapclient.models.directory import Directory, LdapDirectory, OidcDirectory, SqlDirectory
from jmapclient.models.dmarc import (
    DkimAuthResult,
    DmarcActionDisposition,
    DmarcAlignment,
    DmarcDiscovery,
    DmarcDisposition,
    DmarcDkimResult,
    DmarcExtension,
    DmarcExternalReport,
    DmarcPolicyOverride,
    DmarcPolicyOverrideReason,
    DmarcReport,
    DmarcReportRecord,
    DmarcResult,
    DmarcSpfResult,
    FailureReportingOption,
    SpfAuthResult,
    SpfDomainScope,
)
from jmapclient.models.objects import OBJECT_TYPES, FilterCondition, ObjectType, object_type
from jmapclient.models.secrets import (
    SecretEnvironmentVariable,
    SecretFile,
    SecretKeyOptional,
    SecretNone,
    SecretValue,
)
from jmapclient.models.stores import (
    DefaultStore,
    MySqlSettings,
    MySqlStore,
    PostgreSqlRecyclingMethod,
    PostgreSqlSettings,
    PostgreSqlStore,
    SqlAuthStore,
    SqliteStore,
)

__all__ = [
    "OBJECT_TYPES",
    "SERVICE_NAME",
    "DefaultStore",
    "Directory",
    "DkimAuthResult",
    "DmarcActionDisposition",
    "DmarcAlignment",
    "DmarcDiscovery",
    "DmarcDisposition",
    "DmarcDkimResult",
    "DmarcExtension",
    "DmarcExternalReport",
    "DmarcPolicyOverride",
    "DmarcPolicyOverrideReason",
    "DmarcReport",
    "DmarcReportRecord",
    "DmarcResult",
    "DmarcSpfResult",
    "FailureReportingOption",
    "FilterCondition",
    "LdapDirectory",
    "MySqlSettings",
    "MySqlStore",
    "ObjectType",
    "OidcDirectory",
    "PostgreSqlRecyclingMethod",
    "PostgreSqlSettings",
    "PostgreSqlStore",
    "SecretEnvironmentVariable",
    "SecretFile",
    "SecretKeyOptional",
    "SecretNone",
    "SecretValue",
    "SpfAuthResult",
    "SpfDomainScope",
    "SqlAuthStore",
    "SqlDirectory",
    "SqliteStore",
    "WireModel",
    "object_type",
]
