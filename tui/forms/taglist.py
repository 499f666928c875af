"""An editable tag list for ``Set<String>``: chips you can remove, and a line to add more."""

from __future__ import annotations

from collections.abc import Iterable

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import HorizontalGroup
from textual.content import Content
from textual.events import Blur, Click, Key
from textual.layout import Layout
from textual.message import Message
from textual.widgets import Button, Input

from jmapclient.display import LIST_MAX, safe_text
from tui.forms.flow_layout import FlowLayout
from tui.keyboard import focus_now


class TagChip(Button):
    """One member; enter, delete or a click on its ✕ removes it. A character typed on it goes to the add box.

    The chips are one stop for Tab, not one each (a set of 50 members took 50 Tabs to pass): Tab into a set
    field lands on its add box, and ← there at the start of the line (or a click on a name) reaches the
    chips, where ← and → move between them. Only the chip so reached takes the keyboard; it gives that up
    again when the keyboard leaves it (see :meth:`on_blur`).
    """

    can_focus = False

    BINDINGS = [
        Binding("left", "step(-1)", "Previous member", show=False, id="taglist.previous"),
        Binding("right", "step(1)", "Next member", show=False, id="taglist.next"),
        Binding("delete,backspace", "press", "Remove", show=False, id="taglist.remove"),
    ]

    CROSS_CELLS = 2
    """The ✕ and the space before it: the part of the chip a click removes it by."""

    def __init__(self, tag: str) -> None:
        # A member the server holds is outside text: shown visible and never read as markup.
        shown = safe_text(tag, max_len=LIST_MAX)
        super().__init__(Content(f"{shown} ✕"), compact=True, classes="tag", tooltip=Text(f"Remove {shown}"))
        self.tag = tag

    def check_consume_key(self, key: str, character: str | None) -> bool:
        """A printable key types into the add box, so the footer hides the keys it shadows."""
        return character is not None and character.isprintable()

    def on_key(self, event: Key) -> None:
        if not (event.character and event.character.isprintable()):
            return
        event.stop()  # a form's key (t, the directory test) bound to the letter must not run
        event.prevent_default()
        box = self.query_ancestor(TagList).query_one(".tag-input", TagInput)
        focus_now(box)  # the keys typed behind this one follow it into the box
        box.cursor_position = len(box.value)
        box.insert_text_at_cursor(event.character)

    def on_click(self, event: Click) -> None:
        """A click on the name only takes the keyboard: a click anywhere on the chip removed it at once, with
        no undo but leaving the form (the new user's finding); the ✕ is what says "remove"."""
        if event.x < self.size.width - self.CROSS_CELLS:
            event.prevent_default()  # Button's own click handler, which presses it, comes after this one
            event.stop()
            self.take_keyboard()

    def take_keyboard(self) -> None:
        """This chip focused, for the keys typed behind the one that reached it too."""
        self.can_focus = True
        focus_now(self)

    def action_step(self, by: int) -> None:
        """The chip ``by`` places away takes the keyboard; past the last one, the add box."""
        members = self.query_ancestor(TagList)
        members.focus_member(members.chips().index(self) + by)

    def on_blur(self, event: Blur) -> None:
        # Out of Tab's way again once the keyboard has gone elsewhere; not when the whole terminal lost focus
        # (the app then takes the keyboard away and gives it back to this chip, which must still take it).
        if self.app.app_focus:
            self.can_focus = False


class TagInput(Input):
    """The add box; ← at its start reaches the last member, where Delete or Backspace removes it.

    Backspace on an empty box removes nothing. It removed the last member, as many tag editors do: Backspace
    held a moment too long over what was typed (or typed ahead over SSH, two more than the letters) took the
    members before it with the text, and ctrl+s saved the set without them (tester85).
    """

    def action_cursor_left(self, select: bool = False) -> None:
        if self.cursor_position == 0 and not select and self.selection.is_empty:
            chips = self.query_ancestor(TagList).chips()
            if chips:
                chips[-1].take_keyboard()
                return
        super().action_cursor_left(select)


class TagList(HorizontalGroup):
    """Members in order, without duplicates. Enter or comma in the input adds what was typed."""

    class Changed(Message):
        def __init__(self, tag_list: TagList) -> None:
            super().__init__()
            self.tag_list = tag_list

        @property
        def control(self) -> TagList:
            return self.tag_list

    def __init__(self, tags: Iterable[str] = (), *, placeholder: str = "add…", disabled: bool = False) -> None:
        super().__init__(classes="tag-list", disabled=disabled)
        self._tags: list[str] = list(dict.fromkeys(tags))
        self._placeholder = placeholder
        self._flow = FlowLayout()

    @property
    def layout(self) -> Layout:
        """Every member in sight: the chips wrap, and the add box follows them (see ``FlowLayout``)."""
        return self._flow

    @property
    def tags(self) -> list[str]:
        """The chips, then what is typed in the box and not yet added: a save took the chips alone, and
        "groups" typed before ctrl+s was dropped with "Nothing changed" said (the tester's)."""
        return [*self._tags, *(tag for tag in _split(self._typed_text()) if tag not in self._tags)]

    def _typed_text(self) -> str:
        boxes = self.query(".tag-input")
        return boxes.first(Input).value if boxes else ""  # none before it is composed

    def compose(self) -> ComposeResult:
        for tag in self._tags:
            yield TagChip(tag)
        # Not selected on focus: a letter typed on a chip is in it before its focus arrives.
        yield TagInput(placeholder=self._placeholder, compact=True, classes="tag-input", select_on_focus=False)

    def chips(self) -> list[TagChip]:
        return list(self.query(TagChip))

    def focus_member(self, index: int) -> None:
        """The ``index``-th chip takes the keyboard (the first one, below 0); past the last one, the add box."""
        chips = self.chips()
        if index < len(chips):
            chips[max(index, 0)].take_keyboard()
        else:
            focus_now(self.query_one(".tag-input", TagInput))

    def add(self, text: str) -> None:
        added = False
        for tag in _split(text):
            if tag not in self._tags:
                self._tags.append(tag)
                self.mount(TagChip(tag), before=self.query_one(".tag-input"))
                added = True
        if added:
            self.post_message(self.Changed(self))

    def remove_tag(self, tag: str) -> None:
        if tag in self._tags:
            self._tags.remove(tag)
            for chip in self.query(TagChip):
                if chip.tag == tag:
                    chip.remove()
            self.post_message(self.Changed(self))

    @on(Input.Submitted, ".tag-input")
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.add(event.value)
        event.input.value = ""

    @on(Input.Changed, ".tag-input")
    def _typed(self, event: Input.Changed) -> None:
        event.stop()
        # What is typed is seen: a box scrolled out of the form's sight (by the wheel, say) took the letters
        # unseen; it comes into sight as a browser's text field does when typed in.
        if event.input.has_focus:
            event.input.scroll_visible(animate=False)
        if "," in event.value:
            self.add(event.value)
            event.input.value = ""

    @on(Button.Pressed, ".tag")
    def _chip_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        assert isinstance(event.button, TagChip)
        chips = self.chips()
        after = chips.index(event.button) + 1
        self.remove_tag(event.button.tag)
        # The keyboard stays among the members: on the one after the removed one, else on the add box.
        if after < len(chips):
            chips[after].take_keyboard()
        else:
            focus_now(self.query_one(".tag-input", TagInput))


def _split(text: str) -> list[str]:
    """The tags ``text`` names: comma-separated, trimmed, none empty, each once."""
    return list(dict.fromkeys(tag for tag in (part.strip() for part in text.split(",")) if tag))
