"""SecretKeyOptional: where a password or secret comes from."""

# Annotations are evaluated as the classes are declared (no `from __future__ import annotations`):
# postponed, pydantic would compile each field's annotation string when it builds the class, a
# few ms of a command's start for the classes that command loads.

from typing import Annotated, ClassVar, Literal

from pydantic import Field

from jmapclient.models._base import WireModel, spec_field
from jmapclient.models._types import SecretText, Text


class SecretNone(WireModel):
    """No secret."""

    KIND_LABEL: ClassVar[str] = "None"

    type: Literal["None"] = spec_field("Kind", "None", wire="@type")


class SecretValue(WireModel):
    """Secret given directly."""

    KIND_LABEL: ClassVar[str] = "Value"

    type: Literal["Value"] = spec_field("Kind", "Value", wire="@type")
    secret: SecretText = spec_field("Secret value", secret=True, note="The password or secret")


class SecretEnvironmentVariable(WireModel):
    """Secret read from an environment variable."""

    KIND_LABEL: ClassVar[str] = "Environment variable"

    type: Literal["EnvironmentVariable"] = spec_field("Kind", "EnvironmentVariable", wire="@type")
    variable_name: Text = spec_field("Environment variable", note="Name of the variable")


class SecretFile(WireModel):
    """Secret read from a file."""

    KIND_LABEL: ClassVar[str] = "File"

    type: Literal["File"] = spec_field("Kind", "File", wire="@type")
    file_path: Text = spec_field("File path", note="Path of the file holding the secret")


SecretKeyOptional = Annotated[
    SecretNone | SecretValue | SecretEnvironmentVariable | SecretFile,
    Field(discriminator="type"),
]
