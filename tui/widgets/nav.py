"""The navigation tree: the web UI's section paths, with vim keys alongside the arrows."""

from __future__ import annotations

from collections.abc import Iterable
from typing import ClassVar

from rich.text import Text
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.widgets import Tree
from textual.widgets.tree import TreeNode

from tui.sections import Section


class NavTree(Tree[str]):
    """Folders are the path parts; leaves carry a section id."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("j", "cursor_down", "Down", id="nav.down", show=False),
        Binding("k", "cursor_up", "Up", id="nav.up", show=False),
        Binding("g", "scroll_home", "Top", id="nav.top", show=False),
        Binding("G", "scroll_end", "Bottom", id="nav.bottom", show=False),
    ]

    class SectionChosen(Message):
        def __init__(self, section_id: str) -> None:
            super().__init__()
            self.section_id = section_id

    def __init__(self, sections: Iterable[Section], *, id: str | None = None) -> None:
        # A Text, not a string: Tree reads a string label as markup, whose emoji table (about 10 ms
        # of CPU to load) the console's first frame would then wait for. The root is hidden anyway.
        super().__init__(Text("Sections"), id=id)
        self.show_root = False
        self.guide_depth = 2
        self.sections = tuple(sections)
        self._leaves: dict[str, TreeNode[str]] = {}
        self._wanted: str | None = None
        """The section to select once the tree is filled."""

    def on_mount(self) -> None:
        # The paths come from the object types' declarations; reading them loads the
        # models, which must not delay the first frame.
        self.call_after_refresh(self._fill)

    def _fill(self) -> None:
        for section in self.sections:
            parent = self.root
            for part in section.path[:-1]:
                existing = next((child for child in parent.children if str(child.label) == part), None)
                parent = existing or parent.add(part, expand=True)
            self._leaves[section.id] = parent.add_leaf(section.path[-1], data=section.id)
        self.root.expand_all()
        # The new nodes get their lines on the next refresh; the cursor can land after it.
        self.call_after_refresh(self._select_wanted)

    def _select_wanted(self) -> None:
        if self._wanted is not None:
            self.select_section(self._wanted)

    def action_scroll_home(self) -> None:
        self.cursor_line = 0

    def action_scroll_end(self) -> None:
        self.cursor_line = self.last_line

    def select_section(self, section_id: str) -> None:
        self._wanted = section_id
        node = self._leaves.get(section_id)
        if node is not None:
            self.move_cursor(node, animate=False)

    def on_tree_node_selected(self, event: Tree.NodeSelected[str]) -> None:
        event.stop()
        if event.node.data:
            self.post_message(self.SectionChosen(event.node.data))
