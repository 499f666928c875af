"""The start-up self-check of Textual's private names (tui/textual_compat.py)."""

from __future__ import annotations

import subprocess
import sys

import pytest
from textual.command import CommandPalette
from textual.widgets import Footer, OptionList

from tui.textual_compat import TextualMoved, check_textual, moved_names


def test_the_pinned_textual_has_every_name_relied_on() -> None:
    assert moved_names() == []


@pytest.mark.parametrize(("cls", "name"), [(OptionList, "_move_page"), (CommandPalette, "_gather_commands"),
                                           (Footer, "_bindings_ready")])
def test_a_moved_name_stops_the_check_in_one_line(monkeypatch: pytest.MonkeyPatch, cls: type, name: str) -> None:
    monkeypatch.delattr(cls, name)
    with pytest.raises(TextualMoved) as raised:
        check_textual()
    message = str(raised.value)
    assert f"{cls.__name__}.{name}" in message and "\n" not in message


def test_a_renamed_instance_attribute_is_found(monkeypatch: pytest.MonkeyPatch) -> None:
    # Instance attributes are read from the names their class's __init__ uses, without building one.
    from textual.widgets import Select

    original = Select.__init__

    def renamed(self: Select, *args: object, **kwargs: object) -> None:  # uses no _type_to_search
        original(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Select, "__init__", renamed)
    assert "Select._type_to_search" in moved_names()


def test_the_console_says_a_moved_name_in_one_line_and_exits_1() -> None:
    moved = ("import textual.widgets._option_list as lists; del lists.OptionList._move_page\n"
             "from mailadmin.main import main; raise SystemExit(main([]))\n")
    done = subprocess.run([sys.executable, "-c", moved], capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    assert done.stderr.count("\n") == 1, done.stderr
    assert "OptionList._move_page" in done.stderr and "tui/textual_compat.py" in done.stderr
    assert not done.stdout
