"""The snapshot file: NDJSON in the format of the server's own command-line client.

Its first line clears the type, each next line creates objects keyed ``<type>-<id>``::

    {"@type":"destroy","object":"Directory"}
    {"@type":"create","object":"Directory","value":{"directory-b":{"@type":"Ldap",...}}}

The server's client runs the first line literally (every directory destroyed, then created
again: new ids, broken links); ``apply`` reads it only as "the file holds the whole type".
The key keeps the id the object had where it was read: ``apply`` matches by it first.

A ``Value`` secret is never in a server's answer (it reads ``****``), so a snapshot leaves the
secret out and marks the place: ``{"@type": "Value"}`` with no ``secret`` (:data:`LEFT_OUT`).
Secrets that name where the server finds them (``EnvironmentVariable``, ``File``) are no
secrets themselves: they are written, and applied, as they are.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from jmapclient.encoding import is_masked
from jmapclient.file_safety import NestedTooDeep, json_bounded
from jmapclient.masking import model_of, replace_secrets
from jmapclient.models.introspect import TYPE_KEY
from jmapclient.models.objects import DIRECTORY, ObjectType, object_type

SNAPSHOT_TYPES = (DIRECTORY,)
"""The types a snapshot holds: settings. DMARC reports are data, imported and exported as such."""
SECRET_KEY = "secret"
LEFT_OUT_MARK = '{"@type":"Value"} with no secret'
"""How the file marks a secret it leaves out, in words for a person."""
MAX_SNAPSHOT_FILE = 32 << 20
"""Bytes a snapshot file may hold. Directories are configuration: a large server's hundred, a few KB each, is
well under 1 MB, so 32 MiB is room for tens of thousands. Bounded because the file is read whole and parsed
(about three times its size in memory): ``apply /dev/zero`` filled memory to a MemoryError (the tester's)."""


class SnapshotFileError(ValueError):
    """A line of the file cannot be read; the message names the line."""


@dataclass(frozen=True)
class FileObject:
    """One object of the file: its key (``directory-b``), its type and its wire value."""

    key: str
    type: ObjectType
    value: dict[str, Any]
    line: int

    @property
    def kept_id(self) -> str | None:
        """The id the key keeps (``directory-b`` → ``b``), None when the key holds none."""
        prefix = f"{key_prefix(self.type)}-"
        return self.key[len(prefix) :] or None if self.key.startswith(prefix) else None

    @property
    def variant(self) -> str:
        return str(self.value.get(TYPE_KEY) or "")

    @property
    def description(self) -> str:
        return str(self.value.get("description") or "")


@dataclass(frozen=True)
class SnapshotFile:
    objects: list[FileObject]
    clears: frozenset[str]
    """Types the file's ``destroy`` lines name: the file holds every object of them."""


def key_prefix(type_: ObjectType) -> str:
    return type_.name.removeprefix("x:").lower()


def object_key(type_: ObjectType, object_id: str) -> str:
    return f"{key_prefix(type_)}-{object_id}"


def is_left_out(value: Any) -> bool:
    """A ``Value`` secret whose secret is not here: left out by a snapshot, or the server's mask."""
    if not isinstance(value, Mapping) or value.get(TYPE_KEY) != "Value":
        return False
    return value.get(SECRET_KEY) is None or is_masked(value.get(SECRET_KEY))


def leave_out_secrets(type_: ObjectType, wire: Mapping[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """``wire`` with every ``Value`` secret left out and marked, and the paths of those left out."""
    paths: list[str] = []

    def visit(path: str, value: Any) -> Any:
        paths.append(path)
        return _OMIT

    replaced: dict[str, Any] = replace_secrets(model_of(type_, wire), wire, visit)
    return _without_omitted(replaced), paths


class _Omitted:
    pass


_OMIT = _Omitted()


def _without_omitted(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {key: _without_omitted(item) for key, item in value.items() if item is not _OMIT}
    return value


def snapshot_lines(type_: ObjectType, objects: Iterable[Mapping[str, Any]]) -> Iterator[str]:
    """The file's lines: the ``destroy`` line, then one ``create`` line per object, as given."""
    yield _dump({"@type": "destroy", "object": _plain_name(type_)})
    for wire in objects:
        value = {key: item for key, item in wire.items() if key != "id"}
        line = {"@type": "create", "object": _plain_name(type_), "value": {object_key(type_, str(wire["id"])): value}}
        yield _dump(line)


def _plain_name(type_: ObjectType) -> str:
    """The type as the server's client names it: without ``x:``."""
    return type_.name.removeprefix("x:")


def _dump(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def read_snapshot(text: str) -> SnapshotFile:
    """The file's objects, in file order; SnapshotFileError names the first line it cannot read."""
    objects: list[FileObject] = []
    clears: set[str] = set()
    keys: set[tuple[str, str]] = set()
    lines = text.removeprefix("\ufeff").splitlines()  # a byte-order mark, as some editors write one
    if not any(raw.strip() for raw in lines):
        raise SnapshotFileError("the file is empty: a snapshot holds at least its header line "
                                "(did the command that wrote it fail?)")
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        try:
            # Bounded: json.loads reads 500 levels, and the plan's copy of them raised RecursionError.
            line = json_bounded(raw, object_pairs_hook=_once_each)
        except json.JSONDecodeError as error:
            raise SnapshotFileError(f"line {number}: not JSON ({error.msg})") from None
        except NestedTooDeep as error:
            raise SnapshotFileError(f"line {number}: {error}") from None
        except _TwiceGiven as twice:
            raise SnapshotFileError(f"line {number}: the name {twice} is given twice in one object") from None
        if not isinstance(line, dict):
            raise SnapshotFileError(f"line {number}: not a JSON object")
        kind = line.get("@type")
        _only_known_names(line, kind, number)
        type_ = _type_of(line.get("object"), number)
        if kind == "destroy":
            clears.add(type_.name)
            continue
        if kind != "create":
            raise SnapshotFileError(f"line {number}: @type {kind!r} is neither create nor destroy")
        value = line.get("value")
        if not isinstance(value, dict) or not value:
            raise SnapshotFileError(f"line {number}: value must map keys to objects")
        for key, item in value.items():
            if not isinstance(item, dict) or not isinstance(item.get(TYPE_KEY), str):
                raise SnapshotFileError(f"line {number}: {key}: an object with its @type is expected")
            if (type_.name, key) in keys:
                raise SnapshotFileError(f"line {number}: the key {key} is in the file twice")
            keys.add((type_.name, key))
            objects.append(FileObject(str(key), type_, dict(item), number))
    return SnapshotFile(objects, frozenset(clears))


LINE_NAMES = {"destroy": ("@type", "object"), "create": ("@type", "object", "value")}
"""The names each kind of line has, the server's client's and the snapshot's alike."""
NAMES_SHOWN = 3
"""Unknown names a refusal quotes; the rest are counted."""


def _only_known_names(line: Mapping[str, Any], kind: Any, number: int) -> None:
    """SnapshotFileError naming the line and the names a line of its kind has not: they were dropped unseen, and a
    ``"vaule"`` for ``"value"`` (or a ``"prune"`` meant as ``--prune``) changed nothing without a word (tester101).
    A line of no known kind is left to its own refusal."""
    known = LINE_NAMES.get(kind) if isinstance(kind, str) else None
    if known is None:
        return
    unknown = [name for name in line if name not in known]
    if not unknown:
        return
    quoted = ", ".join(json.dumps(name, ensure_ascii=False)[:80] for name in unknown[:NAMES_SHOWN])
    more = f" and {len(unknown) - NAMES_SHOWN:,} more" if len(unknown) > NAMES_SHOWN else ""
    allowed = ", ".join(f'"{name}"' for name in known)
    raise SnapshotFileError(f"line {number}: {quoted}{more}: no name of a {kind} line, which has {allowed} only")


class _TwiceGiven(ValueError):
    pass


def _once_each(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object whose names are each given once: JSON takes the last of two silently, and a file that
    says a field twice says two things."""
    value = dict(pairs)
    if len(value) != len(pairs):
        seen: set[str] = set()
        for name, _ in pairs:
            if name in seen:
                raise _TwiceGiven(json.dumps(name, ensure_ascii=False)[:80])
            seen.add(name)
    return value


def _type_of(name: Any, number: int) -> ObjectType:
    try:
        found = object_type(str(name))
    except ValueError as error:
        raise SnapshotFileError(f"line {number}: {error}") from None
    if found not in SNAPSHOT_TYPES:
        # Said as the file's fault, with its line: the command line was fine, and exit 2 ("usage") said otherwise.
        # A destroy line of it is refused too: the server's own client runs it, every DMARC report destroyed.
        raise SnapshotFileError(f"line {number}: a snapshot holds {', '.join(t.name for t in SNAPSHOT_TYPES)} only,"
                                f" not {found.name} (DMARC reports are data: import-dmarc and export-dmarc)")
    return found
