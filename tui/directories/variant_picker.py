"""The first step of creating a directory: choose LDAP, SQL or OpenID Connect."""

from __future__ import annotations

from typing import Any, ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import Static
from textual.widgets.option_list import Option

from jmapclient.models.introspect import kind_label
from jmapclient.models.objects import DIRECTORY, ObjectType
from tui.screens.dialog import Dialog
from tui.widgets.option_list import PagedOptionList


def kind_name(variant: object) -> str:
    """How people name a directory ``@type`` (declared on its model)."""
    model = DIRECTORY.variants.get(str(variant))
    return kind_label(model) if model is not None else str(variant)


def directory_label(wire: dict[str, Any]) -> str:
    """How the console names a directory: its description, else its id."""
    return str(wire.get("description") or wire.get("id") or "(no description)")


class VariantPicker(Dialog[str | None]):
    """Dismisses with the chosen ``@type`` value, or None."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel", id="variant.cancel")]

    def __init__(self, object_type: ObjectType) -> None:
        super().__init__()
        self.object_type = object_type

    def compose(self) -> ComposeResult:
        with Vertical(id="variant-box", classes="dialog"):
            yield Static(f"New {self.object_type.name.lower()}: choose its kind", classes="dialog-title")
            yield PagedOptionList(
                *(
                    Option(f"[b]{kind_name(name)}[/b]  {model.__doc__ or ''}".strip(), id=name)
                    for name, model in self.object_type.variants.items()
                ),
                id="variant-options",
            )

    @on(PagedOptionList.OptionSelected)
    def _chosen(self, event: PagedOptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)

    def action_cancel(self) -> None:
        self.dismiss(None)
