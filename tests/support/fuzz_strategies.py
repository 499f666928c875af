"""Hypothesis strategies for the stub's input, read from the models (``fields_of``), not restated.

- ``json_values``: any JSON, with keys and strings the stub knows mixed in so random data hits real paths.
- ``object_of(model)``: valid-ish wire objects of a model (required fields always, optional ones
  sometimes, values by field kind and bounds); ``mutated_object`` then breaks a few of them.
- ``patch_for(model)``: update patches with top-level and JSON-pointer keys the models declare,
  plus bad ones.
- ``filter_for(type)`` / ``sort_for(type)``: filter trees and comparators from the type's declared
  conditions (with their key suffixes) and sorts.

Every strategy is built once (module constants, ``functools.cache``), never inside a draw: a new
strategy is validated, checked for emptiness and labelled on its first draw, and doing that in
every example was a large share of the fuzz tests' CPU. Picks from a list known only while drawing
take an index (``_pick``), the one choice ``sampled_from`` over that list would have made.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from functools import cache
from typing import Any, TypeVar

from hypothesis import strategies as st

from jmapclient.encoding import MASKED_SECRET
from jmapclient.models import WireModel
from jmapclient.models.introspect import TYPE_KEY, FieldSpec, field_by_wire, fields_of
from jmapclient.models.objects import OBJECT_TYPES, ObjectType

SECRET_PREFIX = "fz-secret-"
"""Every generated secret starts so; a leak check finds them without false hits."""

IDS = ["d1", "d2", "d3", "r1", "r2", "r3", "d99", "r99", "#new", "#a", "", "d1/x"]
STATES = ["0", "1", "2", "3", "7", "", "x"]
WORDS = [
    "ids", "properties", "filter", "sort", "position", "anchor", "anchorOffset", "limit", "calculateTotal",
    "create", "update", "destroy", "ifInState", "accountId", "operator", "conditions", "AND", "OR", "NOT",
    "@type", "Ldap", "Sql", "Oidc", "Value", "None", "PostgreSql", "MySql", "Sqlite", "description", "a",
    "resultOf", "name", "path", "/ids", "/list/*/id", "*", "~1", "~0", MASKED_SECRET, "property", "isAscending",
    *IDS,
]
BIG_INTS = [2**31, 2**53 + 1, 2**63 - 1, 2**63, 2**64, -(2**63) - 1, 10**30]

T = TypeVar("T")


@cache
def _index(size: int) -> st.SearchStrategy[int]:
    return st.integers(0, size - 1)


def _pick(draw: st.DrawFn, options: Sequence[T]) -> T:
    """``draw(st.sampled_from(options))`` (the same single choice) without a new strategy per draw."""
    if len(options) == 1:  # sampled_from of one value is just(value): no choice to draw
        return options[0]
    return options[draw(_index(len(options)))]


scalars = (
    st.none()
    | st.booleans()
    | st.integers(-1000, 1000)
    | st.sampled_from(BIG_INTS)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8)
    | st.sampled_from(WORDS)
)
key_words = st.sampled_from(WORDS)
key_text = st.text(max_size=6)
keys = key_words | key_text
json_values = st.recursive(
    scalars, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(keys, inner, max_size=4), max_leaves=10
)

# --- values by field kind ---------------------------------------------------------------------------

short_text = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=1, max_size=10)
domains = st.sampled_from(["example.com", "mail.example.org", "xn--bcher-kva.example", "a.b.c.d.e", "localhost"])
datetimes = st.datetimes(datetime(1970, 1, 1), datetime(2200, 1, 1)).map(lambda d: d.strftime("%Y-%m-%dT%H:%M:%SZ"))
secrets_text = st.text("0123456789abcdef", min_size=6, max_size=12).map(lambda s: SECRET_PREFIX + s)

KIND_VALUES: dict[str, st.SearchStrategy[Any]] = {
    "string": short_text,
    "uri": st.sampled_from(["ldap://ldap.example.com", "ldaps://ldap.example.com:636",
                            "https://sso.example.com/realms/staff", "not a url", "http://[::1]:8080/x"]),
    "duration": st.integers(0, 10**9),
    "bool": st.booleans(),
    "float": st.floats(0, 10, allow_nan=False),
    "email": st.builds(lambda user, domain: f"{user}@{domain}", st.sampled_from(["dmarc", "a.b", "x"]), domains),
    "datetime": datetimes,
    "ip": st.ip_addresses().map(str),
    "domain": domains,
    "id": st.none() | st.sampled_from(IDS),
    "secret": secrets_text,
}


def _scalar(spec_kind: str, spec: FieldSpec | None) -> st.SearchStrategy[Any]:
    if (spec is not None and spec.kind == "enum") or spec_kind == "enum":
        return st.sampled_from(spec.choices) if spec and spec.choices else short_text
    if spec_kind in ("uint", "int"):
        low = spec.minimum if spec and spec.minimum is not None else 0
        high = spec.maximum if spec and spec.maximum is not None else 10**6
        return st.integers(low, high)
    return KIND_VALUES.get(spec_kind, short_text)


def value_for(spec: FieldSpec, depth: int = 0) -> st.SearchStrategy[Any]:
    """A value of the field's declared kind (valid most of the time; nested models recurse)."""
    kind = spec.kind
    if kind == "variant":
        value: st.SearchStrategy[Any] = st.one_of(
            [object_of(model, depth + 1).map(lambda o, name=name: {TYPE_KEY: name, **o})
             for name, model in spec.variants.items()]
        )
    elif kind == "object" and spec.item_model is not None:
        value = object_of(spec.item_model, depth + 1)
    elif kind in ("list", "set"):
        if spec.item_model is not None:
            item: st.SearchStrategy[Any] = object_of(spec.item_model, depth + 1)
        else:
            item = _scalar(spec.item_kind or "string", None if spec.item_kind != "enum" else spec)
        if kind == "set":
            value = st.dictionaries(item, st.just(True), max_size=3)
        else:
            # Lists travel as index maps (wire-notes.md).
            value = st.lists(item, max_size=2 if depth < 2 else 0).map(
                lambda items: {str(i): v for i, v in enumerate(items)})
    else:
        value = _scalar(kind, spec)
    return value | st.none() if spec.nullable else value


@cache
def field_values(model: type[WireModel], depth: int) -> dict[str, st.SearchStrategy[Any]]:
    """``value_for`` of each field of ``model`` by wire name (strategies are built once: building is slow)."""
    return {spec.wire: value_for(spec, depth) for spec in fields_of(model)}


@cache
def object_of(model: type[WireModel], depth: int = 0) -> st.SearchStrategy[dict[str, Any]]:
    """A wire object of ``model`` without ``@type``: every required field, some optional ones."""
    specs = [s for s in fields_of(model) if not s.server_set]
    values = field_values(model, depth)
    required = {s.wire: values[s.wire] for s in specs if s.required}
    optional = {s.wire: values[s.wire] for s in specs if not s.required} if depth < 3 else {}
    return st.fixed_dictionaries(required, optional=optional)


@cache
def whole_object(object_type: ObjectType) -> st.SearchStrategy[dict[str, Any]]:
    """A valid-ish object of any variant of ``object_type``."""
    if not object_type.variants:
        return object_of(object_type.annotation)
    return st.one_of([object_of(model).map(lambda o, name=name: {TYPE_KEY: name, **o})
                      for name, model in object_type.variants.items()])


MUTATIONS = st.sampled_from(["drop", "replace", "unknown", "bound", "variant", "mask", "nested"])


@cache
def _overstepped_bounds(model: type[WireModel]) -> tuple[tuple[str, st.SearchStrategy[int]], ...]:
    """Each bounded field's wire name with values just outside its bounds (and huge ones)."""
    return tuple(
        (spec.wire, st.sampled_from([(spec.minimum or 0) - 1, (spec.maximum or 2**40) + 1, *BIG_INTS, -1]))
        for spec in fields_of(model) if spec.minimum is not None or spec.maximum is not None
    )


@cache
def _variant_tags(object_type: ObjectType) -> st.SearchStrategy[Any]:
    return st.sampled_from([*object_type.variants, "Bogus", 5, None])


@cache  # one strategy per type: mutated_object(t) is drawn in every example of some tests
@st.composite
def mutated_object(draw: st.DrawFn, object_type: ObjectType) -> dict[str, Any]:
    """A valid-ish object with 0–3 mutations: a key dropped, a value replaced by random JSON,
    an unknown key added, a bound overstepped, the variant tag changed, or a secret masked."""
    obj = dict(draw(whole_object(object_type)))
    for _ in range(draw(st.integers(0, 3))):
        how = draw(MUTATIONS)
        present = sorted(obj)
        if how == "drop" and present:
            obj.pop(_pick(draw, present))
        elif how == "replace" and present:
            obj[_pick(draw, present)] = draw(json_values)
        elif how == "unknown":
            obj[draw(keys)] = draw(json_values)
        elif how == "bound":
            bounded = _overstepped_bounds(_model_of(object_type, obj))
            if bounded:
                wire, values = _pick(draw, bounded)
                obj[wire] = draw(values)
        elif how == "variant":
            obj[TYPE_KEY] = draw(_variant_tags(object_type))
        elif how == "mask":
            obj["bindSecret"] = {TYPE_KEY: "Value", "secret": MASKED_SECRET}
        elif how == "nested" and present:
            key = _pick(draw, present)
            if isinstance(obj[key], dict) and obj[key]:
                inner = dict(obj[key])
                value = draw(json_values)
                # The choices of `sampled_from(sorted(inner)) | keys`, a one_of of three branches.
                branch = draw(_index(3))
                new_key = _pick(draw, sorted(inner)) if branch == 0 else draw(key_words if branch == 1 else key_text)
                inner[new_key] = value
                obj[key] = inner
    return obj


def _model_of(object_type: ObjectType, obj: dict[str, Any]) -> type[WireModel]:
    if not object_type.variants:
        return object_type.annotation
    tag = obj.get(TYPE_KEY)
    return object_type.variants.get(tag, next(iter(object_type.variants.values()))) if isinstance(tag, str) else \
        next(iter(object_type.variants.values()))


# --- patches ---------------------------------------------------------------------------------------


SET_MEMBERS = short_text | st.sampled_from(["mail", "~1", "a/b"])
SET_MEMBER_VALUES = st.sampled_from([True, None, False, 1]) | json_values
LIST_INDEXES = st.sampled_from(["0", "1", "2", "5", "-1", "01", "x", ""])
BAD_PATCH_KEYS = keys | st.sampled_from(["", "/", "id", TYPE_KEY, "a/b/c", "description/x"])


@cache
def _list_items(model: type[WireModel], depth: int, wire: str) -> st.SearchStrategy[Any]:
    """A whole item of the list field ``wire`` of ``model``, null or random JSON."""
    spec = field_by_wire(model, wire)
    item = object_of(spec.item_model, depth + 1) if spec.item_model else field_values(model, depth)[wire]
    return item | st.none() | json_values


@cache
def _values_or_junk(model: type[WireModel], depth: int) -> dict[str, st.SearchStrategy[Any]]:
    return {wire: values | json_values for wire, values in field_values(model, depth).items()}


@cache  # one strategy per model and depth: it recurses into nested models on every patch drawn
@st.composite
def _path_and_value(draw: st.DrawFn, model: type[WireModel], depth: int = 0) -> tuple[str, Any]:
    specs = fields_of(model)
    if not specs:  # e.g. SecretNone: nothing to address below it
        return draw(keys), draw(json_values)
    spec = _pick(draw, specs)
    deeper = depth < 3 and draw(st.booleans())
    if deeper and spec.kind == "set":
        member = draw(SET_MEMBERS)
        return f"{spec.wire}/{member}", draw(SET_MEMBER_VALUES)
    if deeper and spec.kind == "list":
        index = draw(LIST_INDEXES)
        if spec.item_model is not None and draw(st.booleans()):
            tail, value = draw(_path_and_value(spec.item_model, depth + 1))
            return f"{spec.wire}/{index}/{tail}", value
        return f"{spec.wire}/{index}", draw(_list_items(model, depth, spec.wire))
    if deeper and spec.kind == "object" and spec.item_model is not None:
        tail, value = draw(_path_and_value(spec.item_model, depth + 1))
        return f"{spec.wire}/{tail}", value
    if deeper and spec.kind == "variant":
        variant = _pick(draw, sorted(spec.variants))
        if draw(st.integers(0, 5)) == 0:
            return f"{spec.wire}/{TYPE_KEY}", variant
        tail, value = draw(_path_and_value(spec.variants[variant], depth + 1))
        return f"{spec.wire}/{tail}", value
    return spec.wire, draw(_values_or_junk(model, depth)[spec.wire])


@cache  # one strategy per model: the patch tests draw patch_for(model) in every example
@st.composite
def patch_for(draw: st.DrawFn, model: type[WireModel]) -> dict[str, Any]:
    """A patch of 1–4 entries: declared paths with valid-ish or random values, and some bad keys."""
    patch: dict[str, Any] = {}
    for _ in range(draw(st.integers(1, 4))):
        if draw(st.integers(0, 4)) == 0:
            patch[draw(BAD_PATCH_KEYS)] = draw(json_values)
        else:
            path, value = draw(_path_and_value(model))
            patch[path] = value
    return patch


# --- filters and sorts ---------------------------------------------------------------------------------


@cache
def _condition(object_type: ObjectType) -> st.SearchStrategy[dict[str, Any]]:
    pairs = []
    for condition in object_type.filters:
        value = {"int": st.integers(-5, 5000) | st.sampled_from(BIG_INTS), "date": datetimes,
                 "text": short_text | domains, "id": KIND_VALUES["id"]}[condition.kind]
        for operator in condition.operators:
            pairs.append(st.tuples(st.just(condition.key(operator)), value | json_values))
    pairs.append(st.tuples(keys, json_values))  # undeclared conditions
    return st.lists(st.one_of(pairs), max_size=3).map(dict)


@cache
def filter_for(object_type: ObjectType) -> st.SearchStrategy[Any]:
    def operators(inner: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
        node = st.fixed_dictionaries({"operator": st.sampled_from(["AND", "OR", "NOT", "XOR", 1]),
                                      "conditions": st.lists(inner, max_size=3)})
        return node | node.map(lambda n: {**n, "extra": 1})

    tree = st.recursive(_condition(object_type), operators, max_leaves=6)
    return tree | st.none() | json_values


@cache
def sort_for(object_type: ObjectType) -> st.SearchStrategy[Any]:
    comparator = st.fixed_dictionaries(
        {"property": st.sampled_from([*object_type.sorts, "description", "unknown"]) | json_values},
        optional={"isAscending": st.booleans() | json_values, "collation": st.sampled_from(["i;ascii-casemap"]),
                  "extra": json_values},
    )
    return st.lists(comparator, max_size=3) | st.none() | json_values


# --- whole method calls -----------------------------------------------------------------------------------

integers_or_junk = st.integers(-10, 10) | st.sampled_from(BIG_INTS) | json_values


@cache
def query_arguments(object_type: ObjectType) -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries({}, optional={
        "filter": filter_for(object_type), "sort": sort_for(object_type), "position": integers_or_junk,
        "anchor": st.sampled_from(IDS) | json_values, "anchorOffset": integers_or_junk,
        "limit": integers_or_junk, "calculateTotal": st.booleans() | json_values,
        "accountId": st.sampled_from(["a", "b"]) | json_values,
    })


@cache
def get_arguments(object_type: ObjectType) -> st.SearchStrategy[dict[str, Any]]:
    properties = [s.wire for m in (list(object_type.variants.values()) or [object_type.annotation])
                  for s in fields_of(m)]
    return st.fixed_dictionaries({}, optional={
        "ids": st.none() | st.lists(st.sampled_from(IDS), max_size=5) | json_values,
        "properties": st.none() | st.lists(st.sampled_from([*properties, "bogus", TYPE_KEY]), max_size=5)
        | json_values,
        "accountId": st.sampled_from(["a", "b"]) | json_values,
    })


@cache
def _patch_any_variant(object_type: ObjectType) -> st.SearchStrategy[dict[str, Any]]:
    models = list(object_type.variants.values()) or [object_type.annotation]
    return st.one_of([patch_for(model) for model in models])


@cache
def set_arguments(object_type: ObjectType) -> st.SearchStrategy[dict[str, Any]]:
    creation_ids = st.sampled_from(["new", "a", "b", "#x", ""])
    return st.fixed_dictionaries({}, optional={
        "create": st.dictionaries(creation_ids, mutated_object(object_type) | json_values, max_size=2)
        | json_values,
        "update": st.dictionaries(st.sampled_from(IDS), _patch_any_variant(object_type) | json_values, max_size=2)
        | json_values,
        "destroy": st.lists(st.sampled_from(IDS), max_size=2) | json_values,
        "ifInState": st.sampled_from(STATES) | json_values,
        "accountId": st.sampled_from(["a", "b"]) | json_values,
    })


ARGUMENTS_BY_VERB = {"get": get_arguments, "query": query_arguments, "set": set_arguments}
TYPES = list(OBJECT_TYPES.values())
OBJECT_TYPES_DRAWN = st.sampled_from(TYPES)
VERBS = st.sampled_from(sorted(ARGUMENTS_BY_VERB))
JUNK_METHODS = st.sampled_from(["Core/echo", "x:Bogus/get", "Directory/get", "x:directory/get"])
JUNK_ARGUMENTS = st.dictionaries(keys, json_values, max_size=3)
REFERENCE_TARGETS = st.sampled_from(["ids", "destroy", "properties", "filter"])
REFERENCE_PATHS = st.sampled_from(["/ids", "/list/*/id", "/created/new/id", "/notFound", "/x", "", "bad"])


@cache  # one strategy per position in a batch: the calls before it are not its arguments, only their count
@st.composite
def method_call(draw: st.DrawFn, index: int) -> tuple[list[Any], tuple[str, int, str] | None]:
    """Call ``c{index}``: a declared method (or a junk name); sometimes with a result reference to one of
    the ``index`` calls before it, returned as (argument, that call's index, path) for ``method_calls``
    to fill in."""
    call_id = f"c{index}"
    if draw(st.integers(0, 9)) == 0:
        return [draw(JUNK_METHODS), draw(JUNK_ARGUMENTS), call_id], None
    object_type = draw(OBJECT_TYPES_DRAWN)
    verb = draw(VERBS)
    call = [object_type.method(verb), draw(ARGUMENTS_BY_VERB[verb](object_type)), call_id]
    if index and draw(st.booleans()):
        source = _pick(draw, range(index))
        return call, (f"#{draw(REFERENCE_TARGETS)}", source, draw(REFERENCE_PATHS))
    return call, None


@cache
@st.composite
def method_calls(draw: st.DrawFn, max_calls: int = 4) -> list[list[Any]]:
    calls: list[list[Any]] = []
    for index in range(draw(st.integers(1, max_calls))):
        call, reference = draw(method_call(index))
        if reference is not None:
            argument, source, path = reference
            call[1][argument] = {"resultOf": calls[source][2], "name": calls[source][0], "path": path}
        calls.append(call)
    return calls
