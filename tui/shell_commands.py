"""The shell's help, jump, command palette and screenshot: the ways to reach every action by name.

Part of :class:`tui.app.MailAdminApp`, split out by job.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace

from textual.app import SystemCommand
from textual.command import CommandListItem
from textual.screen import Screen
from textual.widget import AwaitMount

from tui.keyboard import typed_into
from tui.shell_sections import SectionShell
from tui.textual_compat import installed_screens
from tui.widgets.footer import described

APP_HELP = """\
**mailadmin** mirrors the server's web UI. Pick a section in the tree on the left
(or press `:` to jump to one), then work in the main area.

Every key can be remapped in the config file's `[keys]` table by its binding id,
for example `"app.quit" = "ctrl+q"`.
"""
PALETTE_ID = "--command-palette"
"""Textual's id for its command palette (its stylesheet and ``is_open`` use it)."""
TEXTUAL_COMMANDS_KEPT = frozenset({"Theme"})
"""Textual's own palette entries a person would use here."""


class ShellCommands(SectionShell):
    """Help, jump, palette and screenshot, over the sections of :class:`SectionShell`."""

    def action_help(self) -> None:
        # The section's help while the keyboard is in it (it knows its open level or editor); a
        # screen's own (Textual's ``HELP``: the connection screen, the profile form), which said
        # "pick a section in the tree" over a screen with no tree; the shell's own help from the menu.
        focused = self.screen.focused
        view = self.section_view
        in_section = view is not None and focused is not None and view in focused.ancestors_with_self
        view_help = view.help_text() if view is not None and in_section else ""
        from tui.screens.help import HelpScreen  # Markdown is not needed for the first frame

        self.push_screen(HelpScreen(view_help or self.screen.HELP or APP_HELP, self._keys_here()))

    def _keys_here(self) -> list[tuple[str, str, str]]:
        """The keys active on the screen, a line a binding id: a binding of several keys ("?" and F1) is
        active once a key, and was listed once a key, all under its one display ("? Help" twice)."""
        by_id: dict[str, tuple[list[str], str]] = {}
        for node, binding, enabled, _ in self.screen.active_bindings.values():
            if not (binding.description and binding.id and enabled):
                continue
            shown, _ = by_id.setdefault(binding.id, ([], described(node, binding)))
            if binding.key_display and not shown:
                shown.append(binding.key_display)  # as the footer shows it, first
            key = self.get_key_display(replace(binding, key_display=None))
            if key not in shown and key.lower() not in (display.lower() for display in shown):
                shown.append(key)
        return [(" / ".join(shown), description, binding_id) for binding_id, (shown, description) in by_id.items()]

    def action_help_quit(self) -> None:
        """ctrl+c (Textual's binding: it no longer quits) says which keys do, as the footer writes them.

        Textual's own toast is markup ("Press [b]ctrl+q[/b]"), and the console's toasts are plain text:
        the brackets showed. A key that types into the focused field (``q`` in a filter) is not named."""
        keys = self._quit_keys()
        if keys:
            self.notify(f"Press {' or '.join(keys)} to quit.", title="Do you want to quit?")

    def _quit_keys(self) -> list[str]:
        """The keys that quit here, as the footer shows them, the shortest (the footer's ``q``) first."""
        focused = self.screen.focused
        shown: list[str] = []
        for key, active in self.screen.active_bindings.items():
            if active.binding.action not in ("quit", "app.quit") or not active.enabled:
                continue
            if focused is not None and typed_into(focused, key):
                continue
            display = self.get_key_display(active.binding)
            if display not in shown:
                shown.append(display)
        return sorted(shown, key=len)

    def action_command_palette(self) -> None:
        from tui.widgets.option_list import SteadyCommandPalette

        # Textual asks only whether the palette is the screen on top; one may still be on the stack
        # under a screen a worker pushed, or on its way out behind an Esc. A second would clash.
        if self.use_command_palette and not any(screen.id == PALETTE_ID for screen in installed_screens(self)):
            self.push_screen(SteadyCommandPalette(id=PALETTE_ID))

    def search_themes(self) -> None:
        """The palette's Theme entry: Textual's theme search, in the palette that answers once."""
        from textual.theme import ThemeProvider

        from tui.widgets.option_list import open_palette

        open_palette(self, providers=[ThemeProvider], placeholder="Search for themes…")

    def search_commands(self, commands: Sequence[CommandListItem],
                        placeholder: str = "Search for commands…") -> AwaitMount:
        """Textual's command search, in the palette that answers once."""
        from textual.command import SimpleProvider

        from tui.widgets.option_list import open_palette

        return open_palette(self, providers=[SimpleProvider(self.screen, list(commands))], placeholder=placeholder)

    def action_jump(self) -> None:
        from tui.screens.jump import JumpScreen  # on first use, after the first frame

        self.push_screen(JumpScreen(self.sections), self._jumped)

    def _jumped(self, section_id: str | None) -> None:
        if section_id:
            self.open_section(section_id)

    def deliver_screenshot(
        self, filename: str | None = None, path: str | None = None, time_format: str | None = None
    ) -> str | None:
        """The palette's Screenshot, into a directory that exists (see :mod:`tui.screenshot`)."""
        from tui.screenshot import save_screenshot

        saved = save_screenshot(self, filename, path)
        return str(saved) if saved is not None else None

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        """Every section and every action of this console a key can reach, each once, in words.

        Of Textual's own commands only the theme is kept: its Quit repeats ours, and its keys
        panel, screenshot and maximize are not things an administrator comes here for.
        """
        for candidate in self.sections:
            yield SystemCommand(
                f"Go to {candidate.breadcrumb}", f"Open the {candidate.title} section",
                lambda section_id=candidate.id: self.open_section(section_id),
            )
        seen: set[str] = set()
        # A key bound as ever before a priority one repeating its action (q before ctrl+q, which quits from a text
        # field too): an action is named once, with the key the footer shows.
        for node, binding, enabled, tooltip in sorted(screen.active_bindings.values(),
                                                      key=lambda active: active.binding.priority):
            # Only this console's bindings carry an id; Textual's widgets' own (cursor keys...) do not.
            if not binding.id or not binding.description or not enabled or binding.action == "command_palette":
                continue
            title = described(node, binding)
            if title in seen:
                continue
            seen.add(title)
            key = self.get_key_display(binding)  # in a text field the key that acts there, not the ? it types
            yield SystemCommand(
                title,
                f"{tooltip}. Key: {key}" if tooltip else f"Key: {key}",
                lambda node=node, action=binding.action: self.run_action(action, node),
            )
        for command in super().get_system_commands(screen):
            if command.title in TEXTUAL_COMMANDS_KEPT:
                yield command
