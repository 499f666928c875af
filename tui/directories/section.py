"""The Directories section: a filterable list; create, open (view/edit) and delete.

All network work runs in workers; the table shows a loading indicator meanwhile. An
action the token may not do is disabled, and the reason is shown under the list.
"""

from __future__ import annotations

from typing import Any, ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, DataTable, Static

from jmapclient.display import LIST_MAX
from jmapclient.errors import JmapError
from jmapclient.models.introspect import TYPE_KEY
from jmapclient.models.objects import DIRECTORY
from jmapclient.paging import get_all
from tui.context import ConsoleContext
from tui.directories.editor import DirectoryEditor
from tui.directories.object_actions import DirectoryObjectActions
from tui.directories.permissions import show_permissions
from tui.directories.variant_picker import VariantPicker, directory_label, kind_name
from tui.keyboard import done_loading, focus_now
from tui.lifecycle import gone, while_attached
from tui.section_view import Breadcrumb, EditorDone, Status
from tui.widgets import outside
from tui.widgets.filter_bar import FilterBar, esc_clears, matches
from tui.widgets.list_table import ListTable, clicked, room_left, sort_label

HELP = """\
### Directories

External directories the server checks logins against: **LDAP**, an **SQL** database,
or an **OpenID Connect** provider (Settings › Authentication › Directories).

- **enter** opens the highlighted directory (view and edit) as the server holds it now, **n** creates one
  (choose its kind first), **d** deletes the highlighted one after a y/n confirmation. A directory found
  deleted elsewhere (opening it, saving it, deleting it) is said and taken off the list.
- **/** filters the list by description, kind or tenant; **esc** clears the filter.
- **s** writes a snapshot of every directory to a file (0600, the server CLI's NDJSON; secrets left out);
  **a** reads such a file, shows the plan (create, update field by field, unchanged) and applies it on
  confirmation. Nothing is destroyed here: `mailadmin apply FILE --prune` does that.
- **y** copies the highlighted directory's id, **Y** the directory as JSON (secrets masked), through
  the terminal's clipboard escape (it works over SSH); **J** shows its JSON; **E** opens it, as the server
  holds it now, as JSON in `$EDITOR` and saves what changed, checked as the form checks it (durations
  written as in the form: 30s, 1h30m); a field you changed that someone changed on the server while the
  editor was open holds the save back. An edit that could not be saved is kept in a file only you can read
  (it may hold secrets you typed): the next **E** on that directory offers to resume or discard it.
- Click a column's header to sort by it (again: the other way); the arrow shows the order.
- **r** reloads the list from the server.
"""


class DirectoriesSection(DirectoryObjectActions):
    """List view; an editor replaces it while a directory is open."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("n", "create", "New", id="directories.create"),
        Binding("d,delete", "delete", "Delete", id="directories.delete"),
        Binding("a", "apply_file", "Apply a file…", id="directories.apply", show=False),
        Binding("s", "snapshot", "Snapshot…", id="directories.snapshot", show=False),
        Binding("y", "yank_id", "Copy the id", id="directories.yank_id", show=False),
        Binding("Y", "yank_json", "Copy as JSON", id="directories.yank_json", show=False),
        Binding("J", "show_json", "Show the JSON", id="directories.json", show=False),
        Binding("E", "edit_in_editor", "Edit in $EDITOR", id="directories.editor", show=False),
    ]

    def __init__(self, context: ConsoleContext) -> None:
        super().__init__(id="directories")
        self.context = context
        self.rows: list[dict[str, Any]] = []
        self.unreadable: dict[str, str] = {}
        """Why the client cannot read a listed directory, by its id: it is listed, never opened."""
        self.editor: DirectoryEditor | None = None
        self.sort_key = "description"
        self.sort_descending = False
        self.fitted_to = 0
        """The table's width the descriptions were last cut for."""

    def compose(self) -> ComposeResult:
        with Vertical(id="dir-list-view"):
            with Horizontal(classes="toolbar"):
                yield Button("New", id="dir-new", compact=True)
                yield Button("Open", id="dir-open", compact=True)
                yield Button("Delete", id="dir-delete", compact=True)
                yield Button("Reload", id="dir-reload", compact=True)
            yield FilterBar(id="dir-filter")
            yield ListTable(id="dir-table")
            yield Static(id="dir-message", classes="error")
            yield Button("Retry", id="dir-retry", variant="warning", compact=True)
            yield Static(id="dir-permissions", classes="note")

    @while_attached
    def on_mount(self) -> None:
        self.query_one("#dir-retry").display = False
        self._message("")
        self.query_one("#dir-permissions").display = False
        self.query_one(ListTable).focus()
        self.reload()

    def focus(self, scroll_visible: bool = True) -> DirectoriesSection:
        if gone(self):
            return self
        if self.editor is not None:
            self.editor.focus(scroll_visible)
        else:
            focus_now(self.query_one(ListTable))
        return self

    def help_text(self) -> str:
        return self.editor.help_text() if self.editor is not None else HELP

    # --- Permissions --------------------------------------------------------------------------

    def allowed(self, action: str) -> tuple[bool, str]:
        return self.context.can_do(DIRECTORY, action)  # type: ignore[arg-type]

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if self.editor is not None and action in ("create", "delete"):
            return False
        if self.editor is not None and action in ("apply_file", "snapshot", "yank_id", "yank_json", "show_json",
                                                  "edit_in_editor"):
            return False
        # A refused action is not offered (the #dir-permissions line says why), as the DMARC inbox does: shown,
        # dimmed, in a read-only profile, n and d looked available and then did nothing (a tester's finding).
        if action == "edit_in_editor":
            return self.allowed("update")[0]
        if action in ("create", "delete"):
            return self.allowed("create" if action == "create" else "destroy")[0]
        if action == "apply_file":
            return self.allowed("create")[0] or self.allowed("update")[0]
        return True

    # --- Loading ------------------------------------------------------------------------------

    def reload(self) -> None:
        if self.editor is not None:
            self.editor.reload()
            return
        self._load()

    @work(exclusive=True, group="directories-load")
    @while_attached
    async def _load(self, select: str | None = None, *, said: bool = False) -> None:
        table = self.query_one(ListTable)
        table.loading = True
        self._message("")
        try:
            # Paged: a get of every id answers at most 500 on the real server, silently (the list hid the rest).
            result = await get_all(self.context.client.directories)
        except JmapError as error:
            self.context.learn_forbidden(DIRECTORY, "get", error)
            self._message(f"Could not load the directories: {error}", retry=True)
            self.post_message(Status("Loading failed; press r or Retry to try again.", "error"))
            return
        finally:
            done_loading(table)
            # The loading overlay took the focus from the table; give it back, so enter,
            # j/k and n keep working.
            self.settle_focus()
        self.rows = sorted(result.raw, key=lambda wire: directory_label(wire).lower())
        self.unreadable = dict(result.invalid)
        self._fill(select)
        show_permissions(self, self.context)
        if not said:  # "Saved NAME.", "Deleted NAME." stay until the next action: the count replaced them at once
            self._say_count()

    def _say_count(self) -> None:
        count = len(self.rows)
        self.post_message(Status(f"{count} director{'y' if count == 1 else 'ies'}"))

    def _message(self, text: str, *, retry: bool = False) -> None:
        message = self.query_one("#dir-message", Static)
        message.update(outside.message(text))
        message.display = bool(text)
        self.query_one("#dir-retry").display = retry

    def _fill(self, select: str | None = None) -> None:
        table = self.query_one(ListTable)
        keep = select or table.selected_key
        table.clear(columns=True)
        with_tenant = any(wire.get("memberTenantId") for wire in self.rows)
        for key, label in (("description", "Description"), ("kind", "Kind"), ("tenant", "Tenant")):
            if key != "tenant" or with_tenant:
                table.add_column(sort_label(label, key, (self.sort_key, self.sort_descending)), key=key)
        words = self.query_one(FilterBar).value
        shown: list[tuple[str, list[str]]] = []
        for wire in sorted(self.rows, key=self._sort_value, reverse=self.sort_descending):
            kind = kind_name(wire.get(TYPE_KEY, "?"))
            if str(wire.get("id")) in self.unreadable:
                kind += " (cannot be read)"
            cells = [directory_label(wire), kind]
            if with_tenant:
                cells.append(str(wire.get("memberTenantId") or ""))
            if matches(words, *cells):
                shown.append((str(wire.get("id")), cells))
        # The description takes what the other columns leave, cut with "…": they stay in view.
        headers = [column.label.plain for column in table.columns.values()]
        room = room_left(table, ([headers[i], *(c[i] for _, c in shown)] for i in range(1, len(headers))))
        self.fitted_to = table.scrollable_content_region.width
        for key, cells in shown:
            table.add_row(outside.cut(cells[0], max_len=room or LIST_MAX), *cells[1:], key=key)
        if room is None:  # not laid out yet (a loading table has no size): fitted once it is
            self.call_after_refresh(self._refit)
        if keep is not None and keep in table.rows:
            table.move_cursor(row=table.get_row_index(keep))
        if not self.rows:
            self._message("No directories yet. Press n to create one.")

    def on_resize(self) -> None:
        self._refit()  # the menu shown or hidden, the terminal resized

    @while_attached
    def _refit(self) -> None:
        """The descriptions cut again for the table's width, when it changed since they were."""
        width = self.query_one(ListTable).scrollable_content_region.width
        if self.rows and width and width != self.fitted_to:
            self._fill()

    def _sort_value(self, wire: dict[str, Any]) -> str:
        if self.sort_key == "kind":
            return kind_name(wire.get(TYPE_KEY, "?")).lower()
        if self.sort_key == "tenant":
            return str(wire.get("memberTenantId") or "").lower()
        return directory_label(wire).lower()

    @on(DataTable.HeaderSelected, "#dir-table")
    def _header_selected(self, event: DataTable.HeaderSelected) -> None:
        """A click on a header sorts by its column; a second click on it turns the order round."""
        event.stop()
        order = (self.sort_key, self.sort_descending)
        self.sort_key, self.sort_descending = clicked(str(event.column_key.value), order)
        self._fill()

    # --- Filter -----------------------------------------------------------------------------

    def start_filter(self) -> None:
        if self.editor is None:
            self.query_one(FilterBar).open()

    def can_reload(self) -> bool:
        return self.editor is None  # an open form is not reloaded under the person's edits

    def can_filter(self) -> bool:
        return self.editor is None

    @on(FilterBar.Changed)
    def _filter_changed(self) -> None:
        self._fill()

    @on(FilterBar.Done)
    def _filter_done(self) -> None:
        self._fill()
        self.focus()

    # --- Actions --------------------------------------------------------------------------------

    def _selected(self) -> dict[str, Any] | None:
        key = self.query_one(ListTable).selected_key
        return next((wire for wire in self.rows if str(wire.get("id")) == key), None)

    @on(Button.Pressed, "#dir-reload")
    @on(Button.Pressed, "#dir-retry")
    def _reload_pressed(self) -> None:
        self.reload()

    @on(Button.Pressed, "#dir-new")
    def action_create(self) -> None:
        ok, reason = self.allowed("create")
        if not ok:
            self.post_message(Status(f"Cannot create: {reason}", "warning"))
            return
        self.app.push_screen(VariantPicker(DIRECTORY), self._variant_chosen)

    @while_attached  # the picker's answer may arrive after the section was left or the app quit
    def _variant_chosen(self, variant: str | None) -> None:
        if variant:
            self.open_editor(None, variant)

    @on(Button.Pressed, "#dir-open")
    def _open_pressed(self) -> None:
        wire = self._selected()
        if wire is not None:
            self.open_fresh(wire)  # read again first: it may have changed, or gone, since the list was

    @on(DataTable.RowSelected, "#dir-table")
    def _row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self._open_pressed()

    # --- Editor ------------------------------------------------------------------------------------

    def open_editor(self, wire: dict[str, Any] | None, variant: str) -> None:
        if self.editor is not None:
            return  # a burst of Enters: one editor is already open
        known = frozenset(str(row.get("id")) for row in self.rows)  # a lost create's check skips these
        self.editor = DirectoryEditor(self.context, variant, wire, known)
        if wire is None:
            self.editor.left_creates = self.creates_left()  # a create left on its way: not made twice unseen
        self.query_one("#dir-list-view").display = False
        self.mount(self.editor)
        self.call_after_refresh(self.editor.focus)
        title = directory_label(wire) if wire else f"New {kind_name(variant)} directory"
        self.post_message(Breadcrumb((title,)))
        self.post_message(Status(""))  # the list's last word is of no directory this form opens (an E refused)
        self.refresh_bindings()

    @on(EditorDone)
    def _editor_done(self, event: EditorDone) -> None:
        event.stop()
        self.close_editor(event.saved_id, said=event.said)

    def close_editor(self, saved_id: str | None = None, *, said: bool = False) -> None:
        if self.editor is None:
            return
        # The list takes the keyboard before the editor goes: a focused field being removed
        # would otherwise hand it to whatever focusable comes first (the menu).
        self.query_one("#dir-list-view").display = True
        focus_now(self.query_one(ListTable))
        self.hear(self.editor.left_save())  # a save already sent runs on: the list shows its answer
        self.editor.remove()
        self.editor = None
        self.post_message(Breadcrumb(()))
        self.refresh_bindings()
        if saved_id is not None:
            self._load(saved_id, said=said)
        else:
            # What the form last said ("Not saved: ... does not exist") is of a form no longer there:
            # it stayed over the list, and over the next directory opened.
            self._say_count()

    def unsaved_changes(self) -> str | None:
        """What an open editor would lose (its title), for the shell's quit question."""
        if self.editor is not None and self.editor.dirty:
            return self.editor.title
        return None

    def go_back(self) -> bool:
        if self.editor is not None:
            self.editor.request_close()
            return True
        # Esc on the list with a filter applied (``/sql`` Enter) clears it first, the keyboard kept on the
        # list, as the help says: it went to the menu, the filter left standing. The next esc goes there.
        bar = self.query_one(FilterBar)
        if esc_clears(bar):
            bar.display = False  # an empty filter is not shown once the keyboard has left it (FilterBar.action_done)
            return True
        return False
