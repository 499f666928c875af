"""The one door to Textual's internals: every private Textual name the console relies on is used here.

Textual (pinned ``textual==8.2.8``) has no public hook for what follows; each entry says the
behaviour it works around and, where one exists, the upstream issue. A Textual upgrade is a
read of this module: :func:`check_textual` runs when it is imported and stops the console with
one line if Textual moved a name relied on, instead of letting a hook silently stop working
(for the crash hooks that would print tracebacks with their locals, secrets among them).
Everywhere else the console uses Textual's public API: ``tests/test_textual_private.py``
reads the sources and fails on a private Textual name outside this module and its test helper
``tests/support/textual_probe.py``.

Dropped since the last pass, because the public API does it: ``app._running`` (``is_running``),
``app._screen_stack`` (``screen_stack``), ``app._exit`` (``return_code``).
"""

from __future__ import annotations

from typing import Any, TypeVar

from rich.console import RenderableType
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import on, work
from textual.app import App
from textual.binding import Binding
from textual.command import CommandList, CommandPalette
from textual.dom import DOMNode
from textual.events import Mount
from textual.screen import Screen
from textual.widgets import Button, DataTable, Footer, Input, OptionList, Select
from textual.widgets.data_table import ColumnKey, RowKey

from tui.pasted_escapes import PastedEscapes
from tui.widgets.plain_cell import PlainCell

TEXTUAL_PINNED = "8.2.8"


class TextualMoved(ImportError):
    """Textual no longer has a name this module relies on (an ImportError: the front door says it in one line)."""


# Not exported by ``textual.widgets`` in 8.2.8: the footer's key widget (the footer is rebuilt
# from it, tui/widgets/footer.py) and the Select's two parts (its compose is repeated with a
# guarded overlay, tui/widgets/select.py).
try:
    from textual.widgets._footer import FooterKey
    from textual.widgets._select import SelectCurrent, SelectOverlay
except ImportError as error:  # pragma: no cover - only with another Textual
    raise TextualMoved(f"Textual moved {error.name or error}, which mailadmin relies on "
                       f"(tui/textual_compat.py); install textual=={TEXTUAL_PINNED}") from None

ReturnType = TypeVar("ReturnType")


# --- Lifecycle ------------------------------------------------------------------------------------


def closing(node: DOMNode) -> bool:
    """True while ``node`` is being removed (pruned with its parent, or closing itself).

    Textual has no public flag for it: ``display`` folds it into ``display: none``, and
    ``is_attached`` stays True until the node has left. Workers and handlers that outlive their
    widget ask it (:func:`tui.lifecycle.gone`).
    """
    return bool(node._pruning or node._closing)


# --- The app: crashes, bindings, screens ----------------------------------------------------------


class GatedBindings(App[ReturnType]):
    """The app's binding check, closed while :meth:`bindings_closed` says so.

    Every key binding, wherever the keyboard is, passes through ``App._check_bindings``: the one
    gate for the shell, its sections and every screen. The key path (tui/keyboard.py) hands a key
    over only while the console is ready, but a key on its way back up from a widget can meet a
    screen a worker pushed meanwhile, still composing, or an app taking its screens down.
    """

    def bindings_closed(self) -> bool:
        return False

    async def _check_bindings(self, key: str, priority: bool = False) -> bool:
        if self.bindings_closed():
            return True  # used up, with nothing ready to act on it
        return await super()._check_bindings(key, priority)


def refresh_callbacks_pending(screen: Screen[Any]) -> bool:
    """True while callbacks wait for ``screen``'s next refresh (``call_after_refresh``).

    The key path waits for them before it hands over the next key (a form focuses its first field
    once built this way); Textual's public API does not say whether any are waiting.
    """
    return bool(screen._callbacks)


class CrashHooks(App[ReturnType]):
    """The app's two crash hooks, overridden; subclasses answer :meth:`told_in_words` and :meth:`crash_report`.

    ``App._handle_exception`` ends the app on any error a worker raises: an expected failure
    (a server error, a file that cannot be written) is told in words instead and the console
    stays open. ``App._fatal_error`` prints a traceback *with locals* (``show_locals=True``),
    which hold tokens and passwords: a short, masked report replaces it.
    """

    _crashed: Exception | None = None
    """The error that ends the app (Textual keeps only the first, as ``_exception``)."""

    def told_in_words(self, error: Exception) -> bool:
        """Tell ``error`` to the person and return True to keep the console open (the default: False)."""
        return False

    def crash_report(self, error: Exception) -> RenderableType:
        """What is printed when the app stops on ``error``; never the locals."""
        raise NotImplementedError

    def _handle_exception(self, error: Exception) -> None:
        # Only while no error is already ending the app: one that is, is not to be hidden.
        if self._exception is None and self.is_running and self.told_in_words(error):
            return
        self._crashed = error
        super()._handle_exception(error)

    def _fatal_error(self) -> None:
        error = self._crashed or self._exception
        if error is None:
            super()._fatal_error()
            return
        self.bell()
        self._exit_renderables.append(self.crash_report(error))
        self._close_messages_no_wait()


def keyed_bindings(app: App[Any]) -> list[tuple[str, Binding]]:
    """The app's own bindings under the keys in effect (``set_keymap`` applied).

    Textual applies the keymap only while it dispatches a key; ``active_bindings`` is the
    focused chain's and holds no binding a widget shadows.
    """
    bindings = app._bindings.copy()
    if app._keymap:
        bindings.apply_keymap(app._keymap)
    return list(bindings)


def installed_screens(app: App[Any]) -> list[Screen[Any]]:
    """Every screen mounted on the app, also one under another screen or on its way out.

    ``screen_stack`` is the current mode's stack only, and ``children`` the screen on top.
    """
    return [node for node in app._nodes if isinstance(node, Screen)]


# --- The footer --------------------------------------------------------------------------------------


def bindings_ready(footer: Footer) -> bool:
    """True once the footer has read the screen's bindings (it composes nothing before)."""
    return bool(footer._bindings_ready)


def show_key_state(shown: FooterKey, key: FooterKey) -> None:
    """Give the mounted key widget ``shown`` the enabled state of ``key`` (composed, never mounted).

    A FooterKey takes its state only in its constructor; reusing mounted keys (11 % of the
    console's start, tui/widgets/footer.py) needs it written.
    """
    shown._disabled = key._disabled
    shown.set_class(key._disabled, "-disabled")


# --- Data tables ----------------------------------------------------------------------------------


class FreshWidths(DataTable[Any]):
    """A DataTable that never shows a cell cut to a column width it has outgrown.

    Rows added are measured later, when the table goes idle (``_update_dimensions``); a table drawn
    before that (a busy machine, another widget refreshing the screen) caches its lines at the
    header-only widths, keyed on nothing that moves when the widths do. The analytics' Domains
    table then showed 13,854 as "13,8" until something else changed. Here the cached renders are
    dropped whenever a column's width changed.
    """

    def _update_dimensions(self, new_rows: Any) -> None:
        before = [column.get_render_width(self) for column in self.ordered_columns]
        super()._update_dimensions(new_rows)
        if [column.get_render_width(self) for column in self.ordered_columns] != before:
            self._clear_caches()
            self.refresh()



class ColumnsInView(DataTable[Any]):
    """A DataTable that renders the cells of the columns in view only (no fixed columns, no row labels).

    DataTable renders every column of each row on screen and then crops the line to the view
    (``_render_line_in_row``): a report's records table has 14 columns, 8 of which show at 120
    columns and 6 at 80, so about half the cells of its first frame were rendered to be cut off.
    Here a cell wholly outside the view is a blank of its width (cropped off all the same, and never
    kept in the cell cache). The rows' renders are cached by row, not by where the view is, so they
    are dropped whenever the columns in view change (a horizontal scroll, a resize, a wider column).
    """

    _in_view: tuple[int, int, tuple[int, ...]] | None = None
    """The view's first and last x and the columns' widths of the last frame (the cached rows' view)."""

    def render_lines(self, crop: Any) -> Any:
        scroll_x = int(self.scroll_x)
        view = (scroll_x, scroll_x + self.size.width, tuple(c.get_render_width(self) for c in self.ordered_columns))
        if view != self._in_view:
            if self._in_view is not None:
                self._row_render_cache.clear()  # rows rendered for another view: their blanks may now show
            self._in_view = view
        return super().render_lines(crop)

    def column_in_view(self, column_index: int) -> bool:
        """Whether any cell of the column at ``column_index`` falls in the view of the frame drawn."""
        if self._in_view is None or self.fixed_columns or column_index < 0 or self._should_render_row_labels:
            return True  # fixed columns and row labels move the columns' offsets: every cell rendered
        first, last, widths = self._in_view
        start = sum(widths[:column_index])
        return column_index >= len(widths) or (start < last and start + widths[column_index] > first)

    def _render_cell(self, row_index: int, column_index: int, base_style: Any, width: int,
                     cursor: bool = False, hover: bool = False) -> Any:
        if self.column_in_view(column_index):
            return super()._render_cell(row_index, column_index, base_style, width, cursor, hover)
        height = self.header_height if row_index < 0 else self.ordered_rows[row_index].height
        return [[Segment(" " * width, base_style)]] * max(height, 1)


class PlainCellLines(DataTable[Any]):
    """A DataTable that draws a :class:`PlainCell` in a one-line row itself, as DataTable would (and a
    ``Text`` of one line and one style, as the PlainCell it draws like).

    DataTable draws every cell through Rich (``_render_cell``: the cell padded, styled before and
    after, rendered to lines, split and cropped): about 0.1 ms a cell, most of a records table's
    first frame (36 rows of 8 or 9 columns in view). A PlainCell is one segment of text and one of
    padding: here the same segments are made directly, with the styles DataTable would give them
    (``_get_styles_to_render_cell``), kept in its cell cache under its own key. Every other cell
    (headers, ``Text``, taller rows) is DataTable's. ``tests/tui/inbox/test_records_table.py``
    compares the two drawings, so a Textual that draws cells otherwise fails there.
    """

    def _render_cell(self, row_index: int, column_index: int, base_style: Any, width: int,
                     cursor: bool = False, hover: bool = False) -> Any:
        if row_index < 0 or column_index < 0 or width - 2 * self.cell_padding < 1:
            return super()._render_cell(row_index, column_index, base_style, width, cursor, hover)
        row_key = self._row_locations.get_key(row_index)
        if row_key is None:
            return super()._render_cell(row_index, column_index, base_style, width, cursor, hover)
        key: Any = (row_key, self._column_locations.get_key(column_index), base_style, cursor, hover,
                    self._show_hover_cursor, self._update_count, self._pseudo_class_state)  # DataTable's key
        cached = self._cell_render_cache.get(key)
        if cached is not None:
            return cached
        cell = self._get_row_renderables(row_index).cells[column_index]
        if isinstance(cell, Text):
            cell = PlainCell.drawn_as(cell) or cell  # one line of one style (a service, a class): drawn alike
        if not isinstance(cell, PlainCell) or self.rows[row_key].height != 1:
            return super()._render_cell(row_index, column_index, base_style, width, cursor, hover)
        fixed = row_index < self.fixed_rows or column_index < self.fixed_columns
        component, post = self._get_styles_to_render_cell(
            False, False, fixed, hover, cursor, self.show_cursor, self._show_hover_cursor,
            self.cursor_foreground_priority == "css", self.cursor_background_priority == "css")
        pre = base_style + Style.from_meta({"row": row_index, "column": column_index}) + component
        console = self.app.console
        padding = self.cell_padding
        around = Segment(" " * padding, console.get_style("none"))  # as rich's Padding pads
        line = cell.line(console, width - 2 * padding)
        lines = [list(Segment.apply_style([around, *line, around] if padding else line, pre, post))]
        self._cell_render_cache[key] = lines
        return lines


def replace_cell_quietly(table: DataTable[Any], row_key: RowKey, column_key: ColumnKey, value: Any) -> None:
    """Put ``value`` in one cell and drop only that row's cached renders (a value of the same width).

    ``DataTable.update_cell`` bumps the table's update count, on which every cached cell and row
    render is keyed, so one changed cell renders every visible cell again.
    """
    table._data[row_key][column_key] = value
    index = table._row_locations.get(row_key)
    caches: tuple[Any, ...] = (table._cell_render_cache, table._row_render_cache)  # keyed by row key first
    for cache in caches:
        for key in [key for key in list(cache.keys()) if key[0] == row_key]:
            cache.discard(key)
    if index is not None:
        table._row_renderable_cache.discard((table._update_count, index))
        table._line_cache.clear()  # lines are joined from the rows' renders, kept above
        table.refresh_row(index)


# --- Option lists, the command palette, selects ---------------------------------------------------


class PageGuard:
    """For any OptionList (mixed in before it): a page move before the first layout is dropped.

    ``OptionList._move_page`` looks the highlighted option up in a line map that is empty until
    the list is laid out and raises ``KeyError`` (its other scrolling code guards the lookup).
    """

    def _move_page(self, direction: int) -> None:
        try:
            super()._move_page(direction)  # type: ignore[misc]
        except KeyError:
            return


class PaletteHooks(CommandPalette):
    """The palette's private handlers, guarded by :meth:`may_answer`, :meth:`may_mount` and :meth:`may_search`.

    Enter (``_select_or_command``) must answer once; the mount handler reads the screen under
    the palette, which one taken down before it mounted has none of; ``_action_command_list``
    meets the same empty line map as ``_move_page``; the search worker (``_gather_commands``)
    looks its list up as soon as a letter is typed, possibly before the list is mounted.
    """

    def may_answer(self) -> bool:
        return True

    def may_mount(self) -> bool:
        return True

    def may_search(self) -> bool:
        return True

    @on(Input.Submitted)
    @on(Button.Pressed)
    def _select_or_command(self, event: Input.Submitted | Button.Pressed | None = None) -> None:
        if event is not None:
            event.prevent_default()  # Textual's own handler is this one, unguarded
        if not self.may_answer():
            if event is not None:
                event.stop()
            return
        super()._select_or_command(event)

    def _on_mount(self, event: Mount) -> None:
        # Runs before Textual's own handler (Textual calls each class's in turn, the subclass first).
        if not self.may_mount():
            event.prevent_default()

    def _action_command_list(self, action: str) -> None:
        try:
            super()._action_command_list(action)
        except KeyError:
            return

    @work(exclusive=True, group=CommandPalette._GATHER_COMMANDS_GROUP)
    async def _gather_commands(self, search_value: str) -> None:
        if not self.may_search():
            return
        if not self.query(CommandList):  # a letter typed before the list was mounted: search after the next refresh
            self.call_after_refresh(self._gather_commands, search_value)
            return
        # Textual's own search, undecorated: this worker already runs in its group.
        await CommandPalette._gather_commands.__wrapped__(self, search_value)  # type: ignore[attr-defined]


def type_to_search(select: Select[Any]) -> bool:
    """The Select's ``type_to_search`` argument (kept only privately), for a compose that repeats Textual's."""
    return bool(select._type_to_search)


class MountGuardedSelect(Select[Any]):
    """A Select whose mount handler is skipped when :meth:`may_mount` says no.

    Textual's ``Select._on_mount`` sets the first value through its two parts; when the form is
    removed between mounting the Select and mounting its parts, it fails with ``NoMatches``.
    """

    def may_mount(self) -> bool:
        return True

    def _on_mount(self, event: Mount) -> None:
        if not self.may_mount():
            event.prevent_default()


# --- The terminal's keys ---------------------------------------------------------------------------


ESCAPE = "\x1b"
SEQUENCE_INTRODUCERS = frozenset("[O]P_^X")
"""What may follow Esc to begin a sequence a terminal sends for one key or report (CSI, SS3, OSC, DCS,
APC, PM, SOS): after Esc and one of these, the parser waits for the rest."""


def escape_kept_parser() -> type[Any]:
    """Textual's terminal parser, keeping Esc when a key follows it in the same read.

    Over SSH, Esc and the keys typed after it arrive in one read, and Esc then ``n`` is the very bytes
    a terminal sends for Alt+N. Textual's parser waits for more after Esc while nothing it knows
    matches, and then lost the Esc two ways: with 32 characters or more behind it in the read (a
    burst such as Esc ``n`` Enter and a directory's fields) it gave up and typed Esc as ``^``, so
    ``^n`` and the fields went into the form Esc should have closed (and ctrl+s saved them there);
    and a key with no Alt name (``/``, ctrl+p) came out alone. The console binds no Alt key, so
    Esc and a key are two keys: read so at once, not after ``ESCDELAY``. Esc pairs Textual maps to
    a named key of their own (``Esc b``: ctrl+left, as macOS's Option+Left; ``Esc DEL``: ctrl+w)
    keep Textual's meaning, being editing keys terminals send, and so does a sequence begun by
    :data:`SEQUENCE_INTRODUCERS` (arrows, the mouse, pastes, reports). Esc pairs Textual maps to a
    character (``Esc 1``: ``¡``, for WezTerm's Option+1 on macOS; digits, ``-``, ``=``, ``§``) are
    Esc and the key too: read as the character, Esc then ``1`` typed fast put ``¡`` into the form
    Esc should have closed, and ctrl+s saved it. An Esc inside a bracketed paste stays the paste's
    (:class:`~tui.pasted_escapes.PastedEscapes`).
    """
    from textual._ansi_sequences import ANSI_SEQUENCES_KEYS
    from textual._xterm_parser import XTermParser
    from textual.events import Key

    class EscapeKeptParser(XTermParser):
        keeps_escapes = True

        def __init__(self, debug: bool = False) -> None:
            super().__init__(debug)
            self.pasted_escapes = PastedEscapes()

        def feed(self, data: str) -> Any:
            # An Esc inside a paste is the paste's text: Textual's parser read it as a key (tui/pasted_escapes).
            return super().feed(self.pasted_escapes.kept(data))

        def _sequence_to_key_events(self, sequence: str, alt: bool = False) -> Any:
            if alt:  # Esc, then a key within ESCDELAY: Textual's "Alt" reading of the two
                yield Key("escape", ESCAPE)
            elif (len(sequence) == 2 and sequence[0] == ESCAPE and sequence[1] not in SEQUENCE_INTRODUCERS
                  and not isinstance(ANSI_SEQUENCES_KEYS.get(sequence), tuple)):  # a tuple: named keys
                yield Key("escape", ESCAPE)
                sequence = sequence[1]
            yield from super()._sequence_to_key_events(sequence)

    return EscapeKeptParser


def keep_escapes_apart() -> None:
    """Have the terminal driver read keys with :func:`escape_kept_parser` (it builds its parser from
    its module's ``XTermParser`` when its input thread starts)."""
    from textual.drivers import linux_driver

    if not getattr(linux_driver.XTermParser, "keeps_escapes", False):
        linux_driver.XTermParser = escape_kept_parser()  # type: ignore[misc]


# --- The self-check -----------------------------------------------------------------------------------

_METHODS: tuple[tuple[type[Any], str], ...] = (
    (App, "_handle_exception"),
    (App, "_fatal_error"),
    (App, "_close_messages_no_wait"),
    (App, "_check_bindings"),
    (OptionList, "_move_page"),
    (CommandPalette, "_select_or_command"),
    (CommandPalette, "_on_mount"),
    (CommandPalette, "_action_command_list"),
    (CommandPalette, "_gather_commands"),
    (CommandPalette, "_GATHER_COMMANDS_GROUP"),
    (Select, "_on_mount"),
    (Footer, "_bindings_ready"),
    (DataTable, "_update_dimensions"),
    (DataTable, "_clear_caches"),
    (DataTable, "_render_cell"),
    (DataTable, "_should_render_row_labels"),
    (DataTable, "_get_row_renderables"),
    (DataTable, "_get_styles_to_render_cell"),
)
"""Class attributes and methods this module overrides or calls."""
_SET_IN_INIT: tuple[tuple[type[Any], str], ...] = (
    (DOMNode, "_pruning"),
    (DOMNode, "_bindings"),
    (App, "_exception"),
    (App, "_exit_renderables"),
    (App, "_keymap"),
    (FooterKey, "_disabled"),
    (Select, "_type_to_search"),
    (Screen, "_callbacks"),
    (DataTable, "_data"),
    (DataTable, "_row_locations"),
    (DataTable, "_cell_render_cache"),
    (DataTable, "_row_render_cache"),
    (DataTable, "_row_renderable_cache"),
    (DataTable, "_update_count"),
    (DataTable, "_line_cache"),
    (DataTable, "_column_locations"),
    (DataTable, "_show_hover_cursor"),
    (DataTable, "_pseudo_class_state"),
)
"""Instance attributes this module reads, each set by its class's ``__init__`` (checked without building one)."""


def _init_names(cls: type[Any]) -> set[str]:
    names: set[str] = set()
    for klass in cls.__mro__:
        init = vars(klass).get("__init__")
        code = getattr(init, "__code__", None)
        if code is not None:
            names.update(code.co_names)
    return names


def moved_names() -> list[str]:
    """The names relied on that this Textual no longer has (empty when all are there)."""
    moved = [f"{cls.__name__}.{name}" for cls, name in _METHODS if not hasattr(cls, name)]
    moved += [f"{cls.__name__}.{name}" for cls, name in _SET_IN_INIT if name not in _init_names(cls)]
    if not hasattr(getattr(CommandPalette, "_gather_commands", None), "__wrapped__"):
        moved.append("CommandPalette._gather_commands.__wrapped__")
    # _closing and _nodes are set by the message pump and the node's own base.
    from textual.message_pump import MessagePump

    moved += [f"MessagePump.{name}" for name in ("_closing",) if name not in _init_names(MessagePump)]
    moved += [f"DOMNode.{name}" for name in ("_nodes",) if name not in _init_names(DOMNode)]
    moved += _parser_moved()
    return moved


def _parser_moved() -> list[str]:
    import importlib

    names = (("textual._xterm_parser", "XTermParser"), ("textual._ansi_sequences", "ANSI_SEQUENCES_KEYS"),
             ("textual.drivers.linux_driver", "XTermParser"))
    moved = []
    for module_name, name in names:
        try:
            module = importlib.import_module(module_name)
        except ImportError:
            moved.append(module_name)
            continue
        if not hasattr(module, name):
            moved.append(f"{module_name}.{name}")
    from textual._xterm_parser import XTermParser

    if not hasattr(XTermParser, "_sequence_to_key_events"):
        moved.append("XTermParser._sequence_to_key_events")
    return moved


def check_textual() -> None:
    """Raise :class:`TextualMoved` naming every moved name, in one line."""
    moved = moved_names()
    if moved:
        from importlib.metadata import version

        raise TextualMoved(f"Textual {version('textual')} no longer has {', '.join(moved)}, which mailadmin "
                           f"relies on (tui/textual_compat.py); install textual=={TEXTUAL_PINNED}")


check_textual()


__all__ = [
    "ColumnsInView", "CrashHooks", "FooterKey", "FreshWidths", "GatedBindings", "MountGuardedSelect", "PageGuard",
    "PaletteHooks", "PlainCellLines", "SelectCurrent", "SelectOverlay", "TextualMoved", "bindings_ready",
    "check_textual", "closing", "escape_kept_parser", "installed_screens", "keep_escapes_apart", "keyed_bindings",
    "moved_names", "refresh_callbacks_pending",
    "replace_cell_quietly", "show_key_state", "type_to_search",
]
