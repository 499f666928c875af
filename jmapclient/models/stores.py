"""SqlAuthStore: the storage backend of an SQL directory, and its read replicas."""

# Annotations are evaluated as the classes are declared (no `from __future__ import annotations`):
# postponed, pydantic would compile each field's annotation string when it builds the class, a
# few ms of a command's start for the classes that command loads.

from typing import Annotated, ClassVar, Literal

from pydantic import Field, ValidationError, model_validator
from pydantic_core import InitErrorDetails, PydanticCustomError

from jmapclient.encoding import bound_message
from jmapclient.models._base import SERVICE_NAME, WireModel, spec_field
from jmapclient.models._types import Boolean, Duration, IndexList, Text, UnsignedInt, WireEnum
from jmapclient.models.secrets import SecretKeyOptional

MAX_POOL = 8192


class PostgreSqlRecyclingMethod(WireEnum):
    FAST = "fast", "Fast"
    VERIFIED = "verified", "Verified"
    CLEAN = "clean", "Clean"


class PostgreSqlSettings(WireModel):
    """One PostgreSQL server: the primary's address fields, or a read replica."""

    host: Text = spec_field("Host name")
    port: UnsignedInt = spec_field("Port", 5432, ge=1, le=65535)
    database: Text = spec_field("Database name", SERVICE_NAME)
    auth_username: Text | None = spec_field("User name", SERVICE_NAME)
    auth_secret: SecretKeyOptional = spec_field("Password")
    options: Text | None = spec_field("Additional connection options", None)


class MySqlSettings(WireModel):
    """One MySQL server: the primary's address fields, or a read replica."""

    host: Text = spec_field("Host name")
    port: UnsignedInt = spec_field("Port", 3306, ge=1, le=65535)
    database: Text = spec_field("Database name", SERVICE_NAME)
    auth_username: Text | None = spec_field("User name", SERVICE_NAME)
    auth_secret: SecretKeyOptional = spec_field("Password")


class SqlConnectionOptions(WireModel):
    """Connection options the PostgreSQL and MySQL stores share (not their replicas)."""

    timeout: Duration | None = spec_field("Connection timeout", 15000)
    use_tls: Boolean = spec_field("Use TLS", False)
    allow_invalid_certs: Boolean = spec_field("Allow invalid TLS certificates", False)


class DefaultStore(WireModel):
    """Use the server's own data store (SQL data stores only)."""

    KIND_LABEL: ClassVar[str] = "The server's own data store"

    type: Literal["Default"] = spec_field("Backend", "Default", wire="@type")


class PostgreSqlStore(SqlConnectionOptions, PostgreSqlSettings):
    """A PostgreSQL database."""

    KIND_LABEL: ClassVar[str] = "PostgreSQL"

    type: Literal["PostgreSql"] = spec_field("Backend", "PostgreSql", wire="@type")
    pool_max_connections: UnsignedInt | None = spec_field("Maximum connections", 10, ge=1, le=MAX_POOL)
    pool_recycling_method: PostgreSqlRecyclingMethod = spec_field(
        "Connection recycling method", PostgreSqlRecyclingMethod.FAST
    )
    read_replicas: IndexList[PostgreSqlSettings] = spec_field(
        "Read replicas", default_factory=list, enterprise=True
    )


class MySqlStore(SqlConnectionOptions, MySqlSettings):
    """A MySQL or MariaDB database."""

    KIND_LABEL: ClassVar[str] = "MySQL"

    type: Literal["MySql"] = spec_field("Backend", "MySql", wire="@type")
    max_allowed_packet: UnsignedInt | None = spec_field(
        "Maximum packet size in bytes", None, ge=1024, le=1073741824
    )
    pool_max_connections: UnsignedInt | None = spec_field("Maximum connections", 10, ge=1, le=MAX_POOL)
    pool_min_connections: UnsignedInt | None = spec_field("Minimum connections", 5, ge=1, le=MAX_POOL)
    read_replicas: IndexList[MySqlSettings] = spec_field(
        "Read replicas", default_factory=list, enterprise=True
    )

    @model_validator(mode="after")
    def _minimum_within_maximum(self) -> "MySqlStore":
        """A pool cannot keep more idle connections than it may open; the error sits on the minimum."""
        low, high = self.pool_min_connections, self.pool_max_connections
        if low is not None and high is not None and low > high:
            field = type(self).model_fields["pool_min_connections"]
            problem = PydanticCustomError(
                "min_above_max", "{message}", {"message": f"{bound_message(maximum=high)}, the maximum connections"}
            )
            raise ValidationError.from_exception_data(
                type(self).__name__,
                [InitErrorDetails(type=problem, loc=(field.alias or "pool_min_connections",), input=low)],
            )
        return self


class SqliteStore(WireModel):
    """An SQLite database file."""

    KIND_LABEL: ClassVar[str] = "SQLite"

    type: Literal["Sqlite"] = spec_field("Backend", "Sqlite", wire="@type")
    path: Text = spec_field("Path to the data directory")
    pool_workers: UnsignedInt | None = spec_field(
        "Worker threads", None, ge=1, le=64, note="Defaults to the number of cores"
    )
    pool_max_connections: UnsignedInt = spec_field("Maximum connections", 10, ge=1, le=MAX_POOL)


SqlAuthStore = Annotated[
    DefaultStore | PostgreSqlStore | MySqlStore | SqliteStore,
    Field(discriminator="type"),
]
