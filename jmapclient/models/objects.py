"""The two JMAP object types: method names, permissions, variants, filters and sorts.

This is the one table the CLI, the stub and the console read to know what an object
type offers. Fields live on the models; this holds what belongs to the type itself.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from importlib import import_module
from typing import TYPE_CHECKING, Any, Literal

from pydantic import TypeAdapter

from jmapclient.models._types import READING

if TYPE_CHECKING:
    from jmapclient.models._base import WireModel

ConditionKind = Literal["id", "text", "int", "date"]
Action = Literal["get", "query", "create", "update", "destroy"]

COMPARISON_SUFFIXES = {
    ">": "IsGreaterThan",
    ">=": "IsGreaterThanOrEqual",
    "<": "IsLessThan",
    "<=": "IsLessThanOrEqual",
}
"""wire-notes.md: comparison operators ride in the filter key; the bare key is equality."""


@dataclass(frozen=True)
class FilterCondition:
    name: str
    kind: ConditionKind
    label: str
    note: str = ""
    fallback: str | None = None
    """Condition to use instead when a server answers ``unsupportedFilter`` to this one."""
    short: str = ""
    """A few words where room is short (a filter field's placeholder); the label when empty."""
    narrow_to: str | None = None
    """Wire path (``report/policyDomain``) that must equal the value, case-insensitively, when the
    fallback matches more than this condition does: the client keeps only those objects."""

    @property
    def operators(self) -> tuple[str, ...]:
        if self.kind in ("int", "date"):
            return ("=", *COMPARISON_SUFFIXES)
        return ("=",)

    def key(self, operator: str = "=") -> str:
        """The filter key for an operator, e.g. ``totalFailedSessionsIsGreaterThan``."""
        if operator == "=":
            return self.name
        if operator not in self.operators:
            raise ValueError(f"{self.name} takes only {', '.join(self.operators)}")
        return self.name + COMPARISON_SUFFIXES[operator]


@dataclass(frozen=True)
class SortFallback:
    """A sort some servers refuse (``unsupportedSort``), and the nearest order they do offer."""

    name: str
    fallback: str
    meaning: str
    """What the fallback order amounts to, in words, e.g. "arrival order"."""

    @property
    def note(self) -> str:
        return f"this server cannot sort by {self.name}; sorted by {self.fallback} ({self.meaning})"


@dataclass(frozen=True, eq=False)
class ObjectType:
    # eq=False: compared and hashed by identity (there is one instance per type), so an
    # ObjectType can key a cache; its dict field would otherwise make it unhashable.

    name: str
    label: str
    section: str
    module: str
    """The module that declares this type's models; imported on first use of :attr:`annotation`
    or :attr:`variants`, so that a command about one type does not build the classes of the others."""
    model_name: str
    """The annotation's name in :attr:`module`: a class, or a union of the variants' classes."""
    variant_names: dict[str, str] = field(default_factory=dict)
    """``@type`` value → class name in :attr:`module`, for a type with variants."""
    filters: tuple[FilterCondition, ...] = ()
    sorts: tuple[str, ...] = ("id",)
    sort_fallbacks: tuple[SortFallback, ...] = ()
    sorts_that_leave_out: dict[str, str] = field(default_factory=dict)
    """Sorts after which the real server lists only some objects: property → which ones, in words."""

    @cached_property
    def annotation(self) -> Any:
        return getattr(import_module(self.module), self.model_name)

    @cached_property
    def variants(self) -> dict[str, type[WireModel]]:
        models = import_module(self.module)
        return {name: getattr(models, class_name) for name, class_name in self.variant_names.items()}

    @property
    def method_prefix(self) -> str:
        return f"x:{self.name}"

    def method(self, verb: str) -> str:
        return f"{self.method_prefix}/{verb}"

    def permission(self, action: Action) -> str:
        return f"sys{self.name}{action.capitalize()}"

    @cached_property
    def adapter(self) -> TypeAdapter[Any]:
        # Each variant's class is built anyway (reading gives instances of it); built first, the
        # union reuses them instead of generating every variant's schema a second time.
        for model in self.variants.values():
            model.model_rebuild()
        return TypeAdapter(self.annotation)

    def validate(self, wire: Any) -> WireModel:
        """An object this client writes, held to interface.md's rules."""
        model: WireModel = self.adapter.validate_python(wire)
        return model

    def read(self, wire: Any) -> WireModel:
        """An object read from a server: strings taken from outside may be ``""`` or missing."""
        model: WireModel = self.adapter.validate_python(wire, context={READING: True})
        return model

    def model_for(self, variant: str | None = None) -> type[WireModel]:
        if self.variant_names:
            if variant is None:
                raise ValueError(f"{self.name} needs a variant: {', '.join(self.variant_names)}")
            for name, model in self.variants.items():
                if name.lower() == variant.lower():
                    return model
            raise ValueError(f"{self.name} has no variant {variant!r}; use {', '.join(self.variants)}")
        if variant is not None:
            raise ValueError(f"{self.name} has no variants")
        plain: type[WireModel] = self.annotation
        return plain

    def condition(self, name: str) -> FilterCondition:
        for condition in self.filters:
            if condition.name == name:
                return condition
        known = ", ".join(c.name for c in self.filters)
        raise ValueError(f"{self.name} has no filter {name!r}; use {known}")

    def sort_fallback(self, name: str) -> SortFallback | None:
        return next((f for f in self.sort_fallbacks if f.name == name), None)

    @property
    def all_permissions(self) -> tuple[str, ...]:
        return tuple(self.permission(a) for a in ("get", "query", "create", "update", "destroy"))


TENANT_FIELD = "memberTenantId"
"""The field by which an object belongs to a tenant: an ``Id<Tenant>`` (interface.md), named alike in every type."""
REFERRING_FIELDS = {"Tenant": TENANT_FIELD}
"""The field that refers to an object of each type, by the type's name: interface.md's only reference. The real
server's ``invalidForeignKey`` names the object referred to, not the field (jmapclient.errors finds it here)."""
TENANT_CONDITION = FilterCondition(TENANT_FIELD, "id", "Tenant")

DIRECTORY = ObjectType(
    name="Directory",
    label="Directories",
    section="Settings › Authentication › Directories",
    module="jmapclient.models.directory",
    model_name="Directory",
    variant_names={"Ldap": "LdapDirectory", "Sql": "SqlDirectory", "Oidc": "OidcDirectory"},
    filters=(TENANT_CONDITION,),
    sorts=("id", "memberTenantId"),
    # By tenant, the real server returns only the directories that have one (wire-notes.md).
    sorts_that_leave_out={"memberTenantId": "only the directories that have a tenant"},
)

DMARC_EXTERNAL_REPORT = ObjectType(
    name="DmarcExternalReport",
    label="DMARC reports",
    section="Management › Reports › Inbox › DMARC",
    module="jmapclient.models.dmarc",
    model_name="DmarcExternalReport",
    filters=(
        # The real server has no `domain` condition; its word search `text` finds a superset
        # (every report holding the words anywhere), which the client narrows to the domain.
        FilterCondition(
            "domain", "text", "Policy domain", "Exact policy domain, any letter case",
            fallback="text", narrow_to="report/policyDomain",
        ),
        FilterCondition(
            "text", "text", "Words", "Policy, reporter, envelope, header, DKIM/SPF domains and sender"
        ),
        # wire-notes.md: per record, min(count, 1) is added to one of the two totals, keyed on the
        # record's evaluatedDisposition; messages and DKIM/SPF results are not counted.
        FilterCondition(
            "totalFailedSessions", "int", "Records not marked pass",
            "Records whose evaluated disposition is not pass (one per record, not messages)",
            short="recs not pass",
        ),
        FilterCondition(
            "totalSuccessfulSessions", "int", "Records marked pass",
            "Records whose evaluated disposition is pass (one per record, not messages)",
            short="recs pass",
        ),
        FilterCondition("expiresAt", "date", "Expires"),
        TENANT_CONDITION,
    ),
    sorts=("receivedAt", "expiresAt", "id"),
    # The real server sorts only by id or expiresAt (wire-notes.md); its ids grow with
    # arrival, so id order is the nearest thing to "received".
    sort_fallbacks=(SortFallback("receivedAt", "id", "arrival order"),),
)

OBJECT_TYPES: dict[str, ObjectType] = {t.name: t for t in (DIRECTORY, DMARC_EXTERNAL_REPORT)}


def object_type(name: str) -> ObjectType:
    """Look an object type up case-insensitively, with or without the ``x:`` prefix."""
    bare = name.removeprefix("x:").removeprefix("X:").lower()
    for object_type_ in OBJECT_TYPES.values():
        if object_type_.name.lower() == bare:
            return object_type_
    raise ValueError(f"unknown object {name!r}; use {', '.join(OBJECT_TYPES)}")
