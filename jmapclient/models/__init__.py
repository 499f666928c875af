"""Pydantic models of every object, nested type and enumeration of interface.md.

Each field is declared once, in these modules, with its wire name, default, bounds,
label and flags. :mod:`jmapclient.models.introspect` reads those declarations for the
forms, the CLI, the stub and ``describe``.

Names load on first use (PEP 562): importing one model module, or :mod:`jmapclient.models.objects`,
builds only the classes it declares, so that ``mailadmin query Directory`` does not build the DMARC
models (and the reverse).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from jmapclient._lazy import lazy_exports

_EXPORTS = {
    "DefaultStore": "jmapclient.models.stores",
    "Directory": "jmapclient.models.directory",
    "DkimAuthResult": "jmapclient.models.dmarc",
    "DmarcActionDisposition": "jmapclient.models.dmarc",
    "DmarcAlignment": "jmapclient.models.dmarc",
    "DmarcDiscovery": "jmapclient.models.dmarc",
    "DmarcDisposition": "jmapclient.models.dmarc",
    "DmarcDkimResult": "jmapclient.models.dmarc",
    "DmarcExtension": "jmapclient.models.dmarc",
    "DmarcExternalReport": "jmapclient.models.dmarc",
    "DmarcPolicyOverride": "jmapclient.models.dmarc",
    "DmarcPolicyOverrideReason": "jmapclient.models.dmarc",
    "DmarcReport": "jmapclient.models.dmarc",
    "DmarcReportRecord": "jmapclient.models.dmarc",
    "DmarcResult": "jmapclient.models.dmarc",
    "DmarcSpfResult": "jmapclient.models.dmarc",
    "FailureReportingOption": "jmapclient.models.dmarc",
    "FilterCondition": "jmapclient.models.objects",
    "LdapDirectory": "jmapclient.models.directory",
    "MySqlSettings": "jmapclient.models.stores",
    "MySqlStore": "jmapclient.models.stores",
    "OBJECT_TYPES": "jmapclient.models.objects",
    "ObjectType": "jmapclient.models.objects",
    "OidcDirectory": "jmapclient.models.directory",
    "PostgreSqlRecyclingMethod": "jmapclient.models.stores",
    "PostgreSqlSettings": "jmapclient.models.stores",
    "PostgreSqlStore": "jmapclient.models.stores",
    "SERVICE_NAME": "jmapclient.models._base",
    "SecretEnvironmentVariable": "jmapclient.models.secrets",
    "SecretFile": "jmapclient.models.secrets",
    "SecretKeyOptional": "jmapclient.models.secrets",
    "SecretNone": "jmapclient.models.secrets",
    "SecretValue": "jmapclient.models.secrets",
    "SpfAuthResult": "jmapclient.models.dmarc",
    "SpfDomainScope": "jmapclient.models.dmarc",
    "SqlAuthStore": "jmapclient.models.stores",
    "SqlDirectory": "jmapclient.models.directory",
    "SqliteStore": "jmapclient.models.stores",
    "WireModel": "jmapclient.models._base",
    "object_type": "jmapclient.models.objects",
}

__all__ = sorted(_EXPORTS)

__getattr__, __dir__ = lazy_exports(__name__, globals(), _EXPORTS)

if TYPE_CHECKING:
    from jmapclient.models._base import (
        SERVICE_NAME as SERVICE_NAME,
    )
    from jmapclient.models._base import (
        WireModel as WireModel,
    )
    from jmapclient.models.directory import (
        Directory as Directory,
    )
    from jmapclient.models.directory import (
        LdapDirectory as LdapDirectory,
    )
    from jmapclient.models.directory import (
        OidcDirectory as OidcDirectory,
    )
    from jmapclient.models.directory import (
        SqlDirectory as SqlDirectory,
    )
    from jmapclient.models.dmarc import (
        DkimAuthResult as DkimAuthResult,
    )
    from jmapclient.models.dmarc import (
        DmarcActionDisposition as DmarcActionDisposition,
    )
    from jmapclient.models.dmarc import (
        DmarcAlignment as DmarcAlignment,
    )
    from jmapclient.models.dmarc import (
        DmarcDiscovery as DmarcDiscovery,
    )
    from jmapclient.models.dmarc import (
        DmarcDisposition as DmarcDisposition,
    )
    from jmapclient.models.dmarc import (
        DmarcDkimResult as DmarcDkimResult,
    )
    from jmapclient.models.dmarc import (
        DmarcExtension as DmarcExtension,
    )
    from jmapclient.models.dmarc import (
        DmarcExternalReport as DmarcExternalReport,
    )
    from jmapclient.models.dmarc import (
        DmarcPolicyOverride as DmarcPolicyOverride,
    )
    from jmapclient.models.dmarc import (
        DmarcPolicyOverrideReason as DmarcPolicyOverrideReason,
    )
    from jmapclient.models.dmarc import (
        DmarcReport as DmarcReport,
    )
    from jmapclient.models.dmarc import (
        DmarcReportRecord as DmarcReportRecord,
    )
    from jmapclient.models.dmarc import (
        DmarcResult as DmarcResult,
    )
    from jmapclient.models.dmarc import (
        DmarcSpfResult as DmarcSpfResult,
    )
    from jmapclient.models.dmarc import (
        FailureReportingOption as FailureReportingOption,
    )
    from jmapclient.models.dmarc import (
        SpfAuthResult as SpfAuthResult,
    )
    from jmapclient.models.dmarc import (
        SpfDomainScope as SpfDomainScope,
    )
    from jmapclient.models.objects import (
        OBJECT_TYPES as OBJECT_TYPES,
    )
    from jmapclient.models.objects import (
        FilterCondition as FilterCondition,
    )
    from jmapclient.models.objects import (
        ObjectType as ObjectType,
    )
    from jmapclient.models.objects import (
        object_type as object_type,
    )
    from jmapclient.models.secrets import (
        SecretEnvironmentVariable as SecretEnvironmentVariable,
    )
    from jmapclient.models.secrets import (
        SecretFile as SecretFile,
    )
    from jmapclient.models.secrets import (
        SecretKeyOptional as SecretKeyOptional,
    )
    from jmapclient.models.secrets import (
        SecretNone as SecretNone,
    )
    from jmapclient.models.secrets import (
        SecretValue as SecretValue,
    )
    from jmapclient.models.stores import (
        DefaultStore as DefaultStore,
    )
    from jmapclient.models.stores import (
        MySqlSettings as MySqlSettings,
    )
    from jmapclient.models.stores import (
        MySqlStore as MySqlStore,
    )
    from jmapclient.models.stores import (
        PostgreSqlRecyclingMethod as PostgreSqlRecyclingMethod,
    )
    from jmapclient.models.stores import (
        PostgreSqlSettings as PostgreSqlSettings,
    )
    from jmapclient.models.stores import (
        PostgreSqlStore as PostgreSqlStore,
    )
    from jmapclient.models.stores import (
        SqlAuthStore as SqlAuthStore,
    )
    from jmapclient.models.stores import (
        SqliteStore as SqliteStore,
    )
