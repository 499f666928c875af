"""A directory as JSON: copied to the clipboard (``y`` its id, ``Y`` the object), shown raw
(``J``), and edited in ``$EDITOR`` (``E``), validated and saved as the minimal patch.

The JSON is the object as the server gave it, secrets masked (``****``): the clipboard escape
(OSC 52) reaches the terminal over SSH, and the edited file never holds a secret the server kept.
A masked secret left as it is stays unchanged (the patch never carries ``****``); one the person
types in replaces it. The editor's file is 0600 in a folder of ours (kept_edit.py), removed once saved;
a file that could not be saved is kept, so an edit is never lost, and the next ``E`` offers it again.

Durations are written there as the form writes them (``30s``, ``1h30m``) and read as the form reads them
(``encoding.parse_duration``; a number is the wire's milliseconds): the file showed ``"timeout": 30000``,
and ``"45s"``, which the form, ``describe`` and ``update --field`` all take, was refused in pydantic's words
(the tester's). A refusal names the field by its path and by the form's label.
"""

from __future__ import annotations

import copy
import json
import os
import shlex
import subprocess
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jmapclient.encoding import format_duration, parse_duration
from jmapclient.errors import LocalValidationError
from jmapclient.file_safety import NestedTooDeep, json_bounded
from jmapclient.masking import mask_secrets, model_of
from jmapclient.models.introspect import TYPE_KEY
from jmapclient.models.objects import DIRECTORY, ObjectType
from jmapclient.patch import compute_patch
from jmapclient.validation import given_fields, validate_object
from tui.directories.changed_elsewhere import INSIDE
from tui.directories.kept_edit import KeptEdit

SERVER_SET = ("id",)


def shown(wire: Mapping[str, Any], object_type: ObjectType = DIRECTORY) -> dict[str, Any]:
    """The object as it may leave the console: every declared secret masked, whatever the server sent."""
    masked: dict[str, Any] = mask_secrets(model_of(object_type, wire), dict(wire))
    return masked


def object_json(wire: Mapping[str, Any], object_type: ObjectType = DIRECTORY) -> str:
    """The object as JSON, secrets masked: what ``Y`` copies and ``J`` shows (also a DMARC report's)."""
    return json.dumps(shown(wire, object_type), indent=2, ensure_ascii=False)


@dataclass(frozen=True)
class EditResult:
    patch: dict[str, Any]
    """The minimal patch; empty when nothing changed."""
    problem: str = ""
    """Why the edit cannot be saved; the edited file is then kept at ``kept``."""
    kept: Path | None = None


def editor_command() -> list[str]:
    """``$VISUAL``, else ``$EDITOR``, else vi; a value with arguments (``code --wait``) is split as a shell would."""
    chosen = os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
    return shlex.split(chosen)


def for_editing(wire: Mapping[str, Any]) -> dict[str, Any]:
    """The object as the editor's file holds it: secrets masked, no server-set field, durations as text."""
    edited = copy.deepcopy(shown({k: v for k, v in wire.items() if k not in SERVER_SET}))
    for found in list(given_fields(model_of(DIRECTORY, edited), edited)):
        if found.spec.kind == "duration" and isinstance(found.value, int) and not isinstance(found.value, bool):
            found.holder[found.spec.wire] = format_duration(found.value)  # type: ignore[index]
    return edited


def write_for_editing(kept: KeptEdit, wire: Mapping[str, Any]) -> None:
    """A new edit of ``wire`` in ``kept`` (0600, in a 0700 folder), with the copy it starts from."""
    kept.start(json.dumps(for_editing(wire), indent=2, ensure_ascii=False) + "\n", shown(wire))


def durations_read(edited: dict[str, Any]) -> dict[str, str]:
    """Each duration of ``edited`` read as the form reads it, in place (text to milliseconds); the refusals, by path."""
    refused: dict[str, str] = {}
    for found in list(given_fields(model_of(DIRECTORY, edited), edited)):
        if found.spec.kind != "duration" or found.value is None:
            continue  # null: validation says whether the field may be empty
        try:
            found.holder[found.spec.wire] = parse_duration(found.value)  # type: ignore[index]
        except ValueError as error:
            refused[found.path] = str(error)
    return refused


def named(edited: Mapping[str, Any], problems: Mapping[str, str]) -> str:
    """The refusals, each field named by its path in the file and by the form's label (``store/timeout (Storage
    backend › Connection timeout)``)."""
    labels: dict[str, str] = {}
    for found in given_fields(model_of(DIRECTORY, edited), edited):
        parts = found.path.split("/")
        outer = next((labels[p] for p in ("/".join(parts[:n]) for n in range(len(parts) - 1, 0, -1)) if p in labels),
                     None)
        labels[found.path] = f"{outer}{INSIDE}{found.spec.label}" if outer else found.spec.label
    return "; ".join(f"{path} ({labels[path]}): {reason}" if path in labels else f"{path}: {reason}"
                     for path, reason in problems.items())


def run_editor(path: Path, suspend: Callable[[], Any]) -> int:
    """Run the editor on ``path`` with the console suspended (the editor has the terminal)."""
    with suspend():
        return subprocess.run([*editor_command(), str(path)], check=False).returncode


def read_edit(path: Path, wire: Mapping[str, Any], editor_code: int) -> EditResult:
    """The patch from ``wire`` to what the file now holds, checked as a save from the form is."""
    def kept(problem: str) -> EditResult:
        return EditResult({}, problem, path)

    if editor_code != 0:
        return kept(f"the editor ended with code {editor_code}; nothing was saved")
    try:
        edited = json_bounded(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as error:
        return kept(f"cannot read the edited file: {error}")
    except json.JSONDecodeError as error:
        return kept(f"not JSON: line {error.lineno}, column {error.colno}: {error.msg}")
    except NestedTooDeep as error:
        return kept(f"not a directory: {error}")
    if not isinstance(edited, dict):
        return kept("the file must hold one JSON object")
    before = shown({k: v for k, v in wire.items() if k not in SERVER_SET})
    edited = {k: v for k, v in edited.items() if k not in SERVER_SET}
    if edited.get(TYPE_KEY) != before.get(TYPE_KEY):
        return kept(f"the kind cannot change ({before.get(TYPE_KEY)} → {edited.get(TYPE_KEY)}); create a new directory")
    if refused := durations_read(edited):
        return kept(named(edited, refused))
    try:
        normalised = validate_object(DIRECTORY, edited).to_wire()
        patch = compute_patch(before, edited)
    except LocalValidationError as error:
        return kept(named(edited, error.fields))
    if refilled := removed_but_refilled(before, edited, normalised):
        return kept("; ".join(f"{field}: removed, but it always holds a value (its default is {json.dumps(value)}); "
                              "put it back with the value you want" for field, value in refilled.items()))
    return EditResult(patch)  # the file stays until the patch is sent: a save held back keeps the edit there


def removed_but_refilled(before: Mapping[str, Any], edited: Mapping[str, Any],
                         normalised: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """The fields the edit removed that the models fill back in (with the value they take), by path.

    A removed key is patched as ``null``, which clears a field that may be empty; one that always holds a
    value (``poolMaxConnections``) the server refused as "is required", and the edit was lost (the
    tester's). The models' validation filled the default in, so the edit looked valid. A removed set
    member or list item is no field: the normalised object does not bring it back.
    """
    found: dict[str, Any] = {}
    for key, old in before.items():
        path = f"{prefix}{key}"
        new, filled = edited.get(key), normalised.get(key)
        if key not in edited:
            if key in normalised and filled is not None:
                found[path] = filled
        elif (isinstance(old, Mapping) and isinstance(new, Mapping) and isinstance(filled, Mapping)
              and old.get(TYPE_KEY) == new.get(TYPE_KEY)):
            found |= removed_but_refilled(old, new, filled, f"{path}/")
    return found
