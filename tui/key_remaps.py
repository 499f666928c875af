"""The config's ``[keys]`` remaps checked against the console's own bindings before any is applied.

The config file checks their spelling (``jmapclient.config.checked_key_remaps``); only the console
knows its binding ids and which keys each screen already uses. Unchecked, a remap to an unknown id
did nothing without a word, and one onto a key already bound in the same place took it over
silently (``n`` remapped to quit on the list). Each refusal is one line naming the remap.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from collections.abc import Iterator, Mapping
from functools import cache
from typing import Any

from textual.app import App
from textual.binding import Binding

from jmapclient.display import safe_text
from tui.keyboard import character_of


def _console_classes() -> Iterator[type]:
    """Every class of the console that declares bindings (each module imported: screens load lazily)."""
    import tui

    for module_info in pkgutil.walk_packages(tui.__path__, "tui."):
        module = importlib.import_module(module_info.name)
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if cls.__module__ == module.__name__ and getattr(cls, "BINDINGS", None):
                yield cls


@cache
def binding_scopes() -> tuple[tuple[tuple[str, tuple[str, ...], str], ...], ...]:
    """Per class: its bindings as (id, keys, action). Bindings without an id cannot be remapped and keep their keys."""
    scopes = []
    for cls in _console_classes():
        scope = []
        for binding in getattr(cls, "BINDINGS", ()):
            if isinstance(binding, Binding):
                keys = tuple(part.strip() for part in binding.key.split(",") if part.strip())
                scope.append((binding.id or "", keys, binding.action))
        scopes.append(tuple(scope))
    return tuple(scopes)


@cache
def acting_in_fields() -> frozenset[str]:
    """Ids of priority bindings: they act before the focused widget sees the key, a text field's too."""
    return frozenset(binding.id for cls in _console_classes() for binding in getattr(cls, "BINDINGS", ())
                     if isinstance(binding, Binding) and binding.priority and binding.id)


def _types_a_character(key: str) -> bool:
    character = character_of(key)
    return character is not None and character.isprintable()


def check_remaps(remaps: Mapping[str, str]) -> tuple[dict[str, str], list[str]]:
    """The remaps that name a binding of the console and take no key already bound beside it; a line per refusal."""
    scopes = binding_scopes()
    known = {binding for scope in scopes for binding, _, _ in scope if binding}
    accepted: dict[str, str] = {}
    refused: list[str] = []
    for binding, keys in remaps.items():
        shown = f"[keys] {safe_text(binding, max_len=60)} = {safe_text(keys, max_len=60)}"
        if binding not in known:
            refused.append(f"{shown}: refused, the console has no binding with that id (`?` lists them)")
            continue
        wanted = {part.strip() for part in keys.split(",")}
        typing = sorted(key for key in wanted if _types_a_character(key))
        if binding in acting_in_fields() and typing:
            refused.append(f"{shown}: refused, {binding} acts even in a text field, so typing "
                           f"{', '.join(typing)} there would run it (give it a ctrl, alt or function key)")
            continue
        clash = _clashes(binding, wanted, scopes, remaps)
        if clash:
            refused.append(f"{shown}: refused, the key is already used there by {', '.join(clash)}")
            continue
        accepted[binding] = keys
    return accepted, refused


def _clashes(binding: str, wanted: set[str], scopes: tuple[tuple[tuple[str, tuple[str, ...], str], ...], ...],
             remaps: Mapping[str, str]) -> list[str]:
    """The bindings beside ``binding`` that already hold a key of ``wanted``. One of the same action is no clash: the
    key does the same either way (app.quit moved to ctrl+q, which app.quit_anywhere holds)."""
    clash: set[str] = set()
    for scope in scopes:
        actions = {action for bound_id, _, action in scope if bound_id == binding}
        for other, keys, action in scope if actions else ():
            if other != binding and action not in actions and wanted & set(_effective(other, keys, remaps)):
                clash.add(other or "a binding without an id")
    return sorted(clash)


def _effective(binding: str, keys: tuple[str, ...], remaps: Mapping[str, str]) -> tuple[str, ...]:
    """The keys a binding has once remapped (``remaps`` may move it off the key asked for)."""
    if binding and binding in remaps:
        return tuple(part.strip() for part in remaps[binding].split(","))
    return keys


def apply_remaps(app: App[Any], remaps: Mapping[str, str], refused_by_config: list[str]) -> dict[str, str]:
    """Apply the remaps that pass :func:`check_remaps`; say each refusal (the config's too) as a notice."""
    accepted, refused = check_remaps(remaps) if remaps else ({}, [])
    if accepted:
        app.set_keymap(accepted)
    for line in [*refused_by_config, *refused]:
        app.notify(line, title="Key remap refused", severity="warning", markup=False, timeout=15)
    return accepted
