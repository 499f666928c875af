"""How a save held back by changes made elsewhere names them: each field, and what the server holds now.

The real server keeps no state to refuse a stale update with (wire-notes.md), so the form compares
the directory as it opened with the directory as the server holds it before it sends a patch.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from jmapclient.display import safe_text
from jmapclient.encoding import at_pointer, format_duration, iter_masked_paths, unescape_pointer
from jmapclient.models import WireModel
from jmapclient.models.introspect import TYPE_KEY, FieldSpec, fields_of
from jmapclient.patch import is_index_map

CHANGED_ELSEWHERE = ("Not saved: {fields} changed on the server since this form opened. ctrl+s asks whether to "
                     "put your values over them; esc goes back to see the server's.")

OVERWRITE_QUESTION = "{fields} changed on the server since this form opened. Put your values over them?"
"""Asked in a question of its own: a second ctrl+s pressed at once (one burst, or a quarter second later) put the
form's values over a colleague's before the warning could be read (the tester's); keys typed before a question
appears are no answer to it (``tui.keyboard.AsksFirst``)."""

CHANGED_WHILE_EDITING = "Not saved: {fields} changed on the server while the editor was open. {{kept}}"
"""The same for a save from ``$EDITOR`` (``{kept}`` stays for the caller to fill: where the edit is kept)."""

NOW_MAX = 40
"""Characters of a server's value the warning quotes: enough to tell a colleague's value by."""
INSIDE = " › "
"""Between a nested object's label and one of its fields' (``Storage backend › Port``)."""


def changed_fields(before: dict[str, Any], now: dict[str, Any], paths: Iterable[str],
                   overwriting: dict[str, Any]) -> set[str]:
    """The fields holding a value a save writes (its patch's ``paths``) that the server changed since the form
    opened (``before``), but for those still holding the value the form may put its own over (``overwriting``):
    changed once more meanwhile, a field is warned of again (a third admin's value was overwritten unseen, the
    tester's). A path's own value is compared: the form's port held back by a host changed elsewhere named
    the host, which the save would not have touched (the tester's)."""
    changed: set[str] = set()
    for path in paths:
        key = path.split("/")[0]
        elsewhere = at_pointer(now, path, _ABSENT) != at_pointer(before, path, _ABSENT)
        if elsewhere and (key not in overwriting or now.get(key) != overwriting[key]):
            changed.add(key)
    return changed


_ABSENT = object()
"""What a path holds where the object has no value there (not null: absent)."""

LIST_WITH_HIDDEN_SECRET = ("Not saved: {label} changed on the server since this form opened, and the form's own hold "
                           "a stored secret the server shows as **** (it cannot be sent again). esc goes back to see "
                           "the server's; make your change there.")


class HiddenSecretInList(ValueError):
    """A list the save must send whole holds a secret only the server knows (:func:`lists_sent_whole`)."""

    def __init__(self, path: str) -> None:
        super().__init__(path)
        self.path = path


def lists_sent_whole(patch: dict[str, Any], before: dict[str, Any], now: dict[str, Any],
                     after: dict[str, Any]) -> dict[str, Any]:
    """``patch`` to send over what the server holds ``now``, a list it writes into sent whole, as the form holds it
    (``after``), where the items it writes moved on the server since the form opened (``before``).

    A list is patched by position: put over a list changed elsewhere, the form's "replica 1, host" went into
    whatever was at position 1 then, and the stored replica had the form's host with another admin's port,
    database and password; a replica removed in the form removed the one another admin had put in its place
    (tester90). A list whose items the save writes still hold what the form opened with (one added at the end
    elsewhere) is patched as before, so the other admin's item stays. HiddenSecretInList when the list holds a
    secret the server masks: it cannot be sent whole."""
    whole: dict[str, Any] = {}
    kept: dict[str, Any] = {}
    for path, value in patch.items():
        moved = _moved_list(path, before, now)
        if moved is None:
            kept[path] = value
            continue
        items = at_pointer(after, moved, {})
        if hidden := next(iter_masked_paths(items, moved), None):
            raise HiddenSecretInList(hidden)
        whole[moved] = items
    return {**{path: value for path, value in kept.items()
               if not any(path.startswith(f"{list_path}/") for list_path in whole)}, **whole}


def _moved_list(path: str, before: dict[str, Any], now: dict[str, Any]) -> str | None:
    """The outermost list (an index map) ``path`` goes into by position, when what the path writes is no longer on
    the server what it was when the form opened; else None."""
    parts = path.split("/")
    if at_pointer(now, path, _ABSENT) == at_pointer(before, path, _ABSENT):
        return None
    for at in range(1, len(parts)):
        prefix = "/".join(parts[:at])
        if parts[at].isdigit() and is_index_map(at_pointer(before, prefix)):
            return prefix
    return None


def held_back(model: type[WireModel], before: dict[str, Any], now: dict[str, Any], changed: set[str],
              paths: Iterable[str] = (), words: str = CHANGED_ELSEWHERE) -> str:
    """The form's ``words`` for a save held back: the ``changed`` fields of ``model``, each as the server holds it;
    inside a nested object, only those of its fields the save writes (``paths``)."""
    specs = {spec.wire: spec for spec in fields_of(model)}
    written = list(paths)
    fields = ", ".join(as_on_the_server(specs.get(key), key, now.get(key), before.get(key), _inner(key, written))
                       for key in sorted(changed))
    return words.format(fields=fields)


def _inner(key: str, paths: list[str]) -> set[str] | None:
    """The fields of ``key``'s object that ``paths`` write (None: the whole object, or no path said)."""
    if not paths or key in paths:
        return None
    return {unescape_pointer(path.split("/")[1]) for path in paths if path.startswith(f"{key}/")}


def as_on_the_server(spec: FieldSpec | None, key: str, value: Any, before: Any = None,
                     written: set[str] | None = None) -> str:
    """A field changed on the server, as the warning names it: its label and, for a plain value, what the
    server holds now, so the person can choose without leaving the form. A nested object (the SQL store)
    names each of its fields that changed the same way, after its own label; a secret is never quoted
    (the server masks it anyway), nor a set or a list (too long for a sentence: esc shows it)."""
    label = spec.label if spec is not None else key
    if spec is not None and isinstance(value, dict) and isinstance(before, dict):
        inside = _inside(spec, before, value, written)
        if inside:
            return ", ".join(f"{label}{INSIDE}{said}" for said in inside)
    if spec is None or spec.secret or spec.kind == "secret" or isinstance(value, dict | list):
        return label
    if value is None or value == "":
        return f"{label} (now empty)"
    if isinstance(value, bool):
        return f"{label} (now {'on' if value else 'off'})"
    if spec.kind == "duration" and isinstance(value, int):
        return f"{label} (now {format_duration(value)})"
    shown = f'"{safe_text(value, max_len=NOW_MAX)}"' if isinstance(value, str) else safe_text(value)
    return f"{label} (now {shown})"


def _inside(spec: FieldSpec, before: dict[str, Any], now: dict[str, Any], written: set[str] | None) -> list[str]:
    """The fields of a nested object that changed, each as :func:`as_on_the_server` names it; none
    when the object changed kind (its fields are another kind's: it is named whole)."""
    if spec.kind == "variant" and before.get(TYPE_KEY) == now.get(TYPE_KEY):
        model = spec.variants.get(str(now.get(TYPE_KEY)))
    elif spec.kind == "object":
        model = spec.item_model
    else:
        return []
    if model is None:
        return []
    return [as_on_the_server(inner, inner.wire, now.get(inner.wire), before.get(inner.wire))
            for inner in fields_of(model) if inner.wire != TYPE_KEY and now.get(inner.wire) != before.get(inner.wire)
            and (written is None or inner.wire in written)]
