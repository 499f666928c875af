"""A directory as JSON: copied to the clipboard (``y`` its id, ``Y`` the object), shown raw
(``J``), and edited in ``$EDITOR`` (``E``), validated and saved as the minimal patch.

The JSON is the object as the server gave it, secrets masked (``****``): the clipboard escape
(OSC 52) reaches the terminal over SSH, and the edited file never holds a secret the server kept.
A masked secret left as it is stays unchanged (the patch never carries ``****``); one the person
types in replaces it. The editor's file is 0600, removed once saved; a file that could not be
saved is kept, so an edit is never lost, and its path is said.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jmapclient.errors import LocalValidationError
from jmapclient.file_safety import NestedTooDeep, json_bounded
from jmapclient.masking import mask_secrets, model_of
from jmapclient.models.introspect import TYPE_KEY
from jmapclient.models.objects import DIRECTORY, ObjectType
from jmapclient.patch import compute_patch
from jmapclient.validation import validate_object

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


def write_for_editing(wire: Mapping[str, Any]) -> Path:
    """The object's JSON in a new 0600 file (mkstemp makes it owner-only)."""
    descriptor, name = tempfile.mkstemp(prefix="mailadmin-directory-", suffix=".json")
    with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
        handle.write(object_json({k: v for k, v in wire.items() if k not in SERVER_SET}) + "\n")
    return Path(name)


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
    try:
        normalised = validate_object(DIRECTORY, edited).to_wire()
        patch = compute_patch(before, edited)
    except LocalValidationError as error:
        return kept("; ".join(f"{field}: {reason}" for field, reason in error.fields.items()))
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
