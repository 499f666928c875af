"""The footer: the keys that act in the focused view, the most important first, never one cut in half.

Textual's footer lays every key in a row and cuts the row where the screen ends, under its
docked "^p Commands" key: at 80 columns "q Quit" became "q Qu". Here the keys are ranked
(help and quit first, the view's own actions next, the shell's general keys last), and a key
that does not fit whole is left out; ``?`` lists every key of the view.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TypeGuard

from rich.cells import cell_len
from textual.app import ComposeResult
from textual.binding import Binding
from textual.events import Resize
from textual.widget import Widget
from textual.widgets import Footer

from tui.textual_compat import FooterKey, bindings_ready, show_key_state

RANK = {"help": 0, "quit": 1, "jump": 3, "filter": 3, "refresh": 3}
"""Actions by importance; a view's own actions rank 2, between the shell's two groups."""
PALETTE_CLASS = "-command-palette"
NARROW = 110
"""Below this many columns the keys are drawn compact (the app's ``-narrow`` breakpoint)."""


def described(node: object, binding: Binding) -> str:
    """A key's description as its view words it now: a key that switches (f on a report's records) names
    what it would switch to, where a fixed "Failing only" stayed after it was pressed (the tester's).
    A view words its keys in ``binding_description(action)``; None keeps the binding's own words."""
    words = getattr(node, "binding_description", None)
    said = words(binding.action) if callable(words) else None
    return said if isinstance(said, str) else binding.description


def key_width(key: FooterKey, compact: bool) -> int:
    # Measured from Textual's footer CSS: a space between key and description, then one cell
    # each side of the pair, or a one-cell gap after it when compact.
    return cell_len(key.key_display) + 1 + cell_len(key.description) + (1 if compact else 2)


def palette_width(key: FooterKey) -> int:
    """The docked palette key is never compact."""
    return cell_len(key.key_display) + 1 + cell_len(key.description) + 2


def fitting(keys: Iterable[FooterKey], width: int, compact: bool) -> list[FooterKey]:
    """The keys to show in ``width`` cells, most important first; a key that would not fit whole is skipped."""
    shown: list[FooterKey] = []
    for key in sorted(keys, key=lambda k: RANK.get(k.action, 2)):  # stable: a view keeps its own order
        if key_width(key, compact) <= width:
            shown.append(key)
            width -= key_width(key, compact)
    return shown


Plan = tuple[object, ...]
"""Everything the footer's keys are composed from: equal plans compose equal keys."""


class ShellFooter(Footer):
    _composed: Plan | None = None
    """The plan the keys on show were composed from."""

    def plan(self) -> Plan:
        """What ``compose`` reads: the width, whether the palette key shows, and each key's binding and state."""
        if not bindings_ready(self):
            return ()
        palette = self.app.COMMAND_PALETTE_BINDING
        keys = tuple(
            (binding.key, self.app.get_key_display(binding), described(node, binding), binding.action, binding.group,
             binding.tooltip, enabled, tooltip)
            for key, (node, binding, enabled, tooltip) in self.screen.active_bindings.items()
            if binding.show or key == palette
        )
        return (self.app.size.width, self.show_command_palette, self.app.ENABLE_COMMAND_PALETTE, keys)

    async def recompose(self) -> None:
        # Textual recomposes the footer whenever the bindings may have changed: on every focus
        # move, every mount and every key that checks an action, and mostly to the same keys.
        # Each recompose removes, mounts and styles a dozen widgets and lays the screen out
        # again (a fifth of the console tests' CPU, profiled). Rebuild only what would change.
        # A footer on a screen that has left (the connection screen, answered) has nothing to show.
        if not self.is_attached or self.plan() == self._composed:
            return
        if not self.is_attached or not await self._reuse_keys():
            await super().recompose()

    async def _reuse_keys(self) -> bool:
        """Show the new keys in the key widgets already mounted; False when the footer must be rebuilt.

        A new key widget is costly to mount: Textual styles each of its two parts (key and
        description) from the whole stylesheet, 11 % of a console's start-up CPU (profiled),
        and the keys change on most focus moves. A key widget is only its key, label, action and
        state, so the mounted ones take the new values; only a difference in their number
        mounts or removes any. Anything but plain keys (a group of keys) is rebuilt.
        """
        composed = list(self.compose())
        new, old = ([w for w in widgets if _plain_key(w)] for widgets in (composed, self.children))
        if len(new) != len(composed) or len(old) != len(self.children):
            return False
        new_keys, old_keys = ([k for k in keys if not k.has_class(PALETTE_CLASS)] for keys in (new, old))
        new_docked, old_docked = ([k for k in keys if k.has_class(PALETTE_CLASS)] for keys in (new, old))
        with self.app.batch_update():
            await self._show_keys(old_keys, new_keys, before=old_docked[0] if old_docked else None)
            await self._show_keys(old_docked, new_docked, before=None)
        return True

    def compose(self) -> ComposeResult:
        self._composed = self.plan()
        self.compact = self.app.size.width < NARROW
        widgets: list[Widget] = list(super().compose())
        keys = [w for w in widgets if isinstance(w, FooterKey) and not w.has_class(PALETTE_CLASS)]
        words = {(binding.key, binding.action): described(node, binding)
                 for node, binding, _, _ in self.screen.active_bindings.values()}
        for key in keys:
            key.description = words.get((key.key, key.action), key.description)
        others = [w for w in widgets if w not in keys]
        room = self.app.size.width - sum(palette_width(w) for w in others if isinstance(w, FooterKey))
        for key in keys:
            # Born with the footer's style: a key mounts compact, then its binding to the footer
            # switches it, and each switch restyled the key (a tenth of a rebuild's work).
            key.set_reactive(FooterKey.compact, self.compact)
            key.set_class(self.compact, "-compact", update=False)
        yield from fitting(keys, room, self.compact)
        yield from others

    def on_resize(self, event: Resize) -> None:
        # Which keys fit depends on the width: choose again at the new one.
        self.refresh(recompose=True)

    async def _show_keys(self, shown: list[FooterKey], keys: list[FooterKey], before: Widget | None) -> None:
        """Show ``keys`` in the mounted widgets ``shown``, mounting (before ``before``) or removing the difference."""
        for widget, key in zip(shown, keys, strict=False):
            _show_as(widget, key)
        if len(keys) > len(shown):
            extra = keys[len(shown):]
            await (self.mount_all(extra, before=before) if before is not None else self.mount_all(extra))
        elif len(shown) > len(keys):
            await self.remove_children(shown[len(keys):])


def _plain_key(widget: Widget) -> TypeGuard[FooterKey]:
    return isinstance(widget, FooterKey) and not widget.has_class("-grouped")


def _show_as(shown: FooterKey, key: FooterKey) -> None:
    """Make the mounted key widget ``shown`` show ``key`` (composed, never mounted)."""
    shown.key, shown.key_display = key.key, key.key_display
    shown.description, shown.action = key.description, key.action
    show_key_state(shown, key)
    shown.tooltip = key.tooltip
    shown.set_reactive(FooterKey.compact, key.compact)
    shown.set_class(key.has_class("-compact"), "-compact")
    shown.refresh(layout=True)
