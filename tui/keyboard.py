"""The one path every typed key takes: in the order typed, one at a time, each once the console has caught up.

Textual hands a key to the focused widget and takes the next key at once: the first key may still
be travelling (up from the widget to the app's bindings, then an "open" message posted back down,
then a form mounting in its own task) when the second is already handed to the same widget. Over
SSH a person's keys arrive in one read, so a burst such as ``Enter End " more text" ctrl+s`` on the
directory list reached the list, a form half built, and nothing: the text was lost or landed in
another field, and ctrl+s ran before it. Pilot hands keys over in another order than a terminal
(a posted "open" message runs before keys a terminal would deliver later), so only a test in a
real terminal shows this (``tests/pty/``).

:class:`KeyPath`, owned by the app, takes every key (and every paste) the terminal delivers. A key
arriving while the console is settled is handled at once, by Textual's own dispatch. Any other
key waits in the path's queue; the path then hands the keys over one at a time, each once the
console has *caught up* with the one before: the screen on top composed and mounted, no message
left queued in any widget, the callbacks waiting for a refresh run, no widget still mounting, and
the work the previous key started (a worker: the save behind ctrl+s, the connection screen behind
ctrl+o, the list's load) done or waiting on a screen it opened. A key thus reaches the widget the
keys before it made current, as if typed after it appeared. ``Widget.focus()`` defers the move
behind the keys already typed, so a move a key asks for goes through :func:`focus_now`.

Keys are dropped, with a bell, never delivered elsewhere, when:

- the app is leaving (typed behind a ``q`` that quits);
- a question is on top that was not there when they were typed (:class:`AsksFirst`, the yes/no
  question): ``dy`` typed at once asks, and waits for an answer typed once it is seen;
- more than ``HOLD_LIMIT`` keys wait, or the console sat idle for ``HOLD_PATIENCE`` without catching up
  (a screen that never finishes composing): acting on them then would surprise, and the console says so. Past the limit,
  every later key of the burst is dropped too, until the waiting keys are handed over, and the
  console says how many: a burst that lost its middle sent its Tab and the text after it into
  the field before (the tester's, at 128 keys);
- the form the key before them asked for did not open (a directory deleted elsewhere: the section calls
  :func:`typed_for_what_did_not_come`), and the console says so: the text typed for its fields filtered
  the list, and its ``d`` asked to delete another directory (the tester's).

Keys typed blind while the console starts (its server starting, a profile connecting, the first section
being built; typed before any connection screen was drawn: the app's ``typed_for_a_section``) wait for the
first section, at most ``START_PATIENCE``; if the start ends without one (it failed, the connection screen
asks), they are dropped with a bell: they were typed for a list that did not come (``n`` typed as the console
started was lost, and the ``a`` of the text typed after it opened a dialog: the tester's). So do keys typed at
the start's connection screen while it says "Connecting…", but for the few that act on it then (Esc, q, the
palette, help: ``ConnectScreen.ACTS_WHILE_CONNECTING``); such a key drops what waited before it. Keys typed at
a connection screen that is not connecting are its own, as ever.

Work a key started is waited for at most ``WORK_PATIENCE``: a slow server must not take the
keyboard away (Esc still reaches a slow load); the keys then go to what has the keyboard. Work
declared with :func:`in_background` (a fetch with its progress bar, an import, an export, name
lookups) is not waited for at all: the keys typed during it are there to stop it or to move on.
Only keys and pastes take this path; the mouse points at what is on screen.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque
from collections.abc import Awaitable, Callable
from math import inf
from time import monotonic
from typing import Any, ClassVar

from textual import events, on
from textual.app import App
from textual.dom import NoScreen
from textual.keys import REPLACED_KEYS, key_to_character
from textual.message_pump import MessagePump
from textual.screen import Screen
from textual.widget import Widget
from textual.worker import Worker

from tui.lifecycle import ready
from tui.text_caps import TEXT_MAX, room_left
from tui.textual_compat import refresh_callbacks_pending


def focus_now(widget: Widget) -> None:
    """Focus ``widget`` before the next key is handled (nothing, if it has left the screen)."""
    try:
        widget.screen.set_focus(widget)
    except NoScreen:
        return


def done_loading(widget: Widget) -> None:
    """``widget`` out of its loading state, given the keyboard back if nothing holds it.

    A loading widget cannot take the keyboard: a dialog that closed while it loaded (the delete's
    confirmation, which starts the delete) left nothing focused, and the footer showed only the app's
    keys while the list's still worked (the new user's finding)."""
    widget.loading = False
    try:
        screen = widget.screen
    except NoScreen:
        return
    if screen.is_active:
        if screen.focused is None:
            screen.set_focus(widget)
        # Textual gives the keyboard back on its own at times, without telling the footer, which
        # kept the keys of no focus (the footer recomposes only when its keys change).
        screen.refresh_bindings()


def character_of(key: str) -> str | None:
    """The character a key name types (``slash`` → ``/``), or None for a key that types none.

    Textual cannot name the character of every key it renamed (``slash``, ``minus``, ``plus``,
    ``at`` ...): "/ Filter" stayed in the footer while ``/`` typed a slash into the filter field.
    """
    return key_to_character(REPLACED_KEYS.get(key, key))


def typed_into(widget: Widget, key: str) -> bool:
    """True when ``key`` types a character into ``widget`` (a text field) instead of acting
    (Textual hides such keys from the footer)."""
    character = character_of(key)
    return character is not None and widget.check_consume_key(key, character)


def is_text_field(widget: Widget) -> bool:
    """True for a field a person types text into: an ``Input`` or a ``TextArea``.

    The TextArea is known by its class's name: importing the class (its document model and syntax
    themes) cost the console's first frame about 10 ms of CPU, a tenth of all it adds to a bare
    Textual app, and a console that never loaded it has built none.
    """
    from textual.widgets import Input  # loaded with the command palette, before any console

    return isinstance(widget, Input) or any(
        cls.__name__ == "TextArea" and cls.__module__.startswith("textual.") for cls in type(widget).__mro__)


def _takes_runs(field: Widget | None) -> bool:
    """Whether ``field`` takes a run of characters as it takes them one by one: a plain text ``Input``
    (a number field refuses a run holding one character it would have refused alone)."""
    from textual.widgets import Input  # loaded with the command palette, before any console

    return isinstance(field, Input) and field.type == "text" and not field.restrict


HOLD_LIMIT = 2 * TEXT_MAX
"""At most this many keys wait. A terminal without bracketed paste (or a person typing ahead over
a slow link) delivers a paste as keys, every one in the same read, and the app takes every key of
a read before it hands any over: a burst must fit whole, a field's longest value (``TEXT_MAX``)
and the keys after it. At 128, a 200-character description lost its end and its Tab."""
HOLD_PATIENCE = 5.0
"""Seconds keys wait for the console to catch up while it sits idle and nothing more gets built (a screen composing,
a form mounting: each widget mounted starts the count again). Stuck that long, a screen never finishes composing:
the keys are dropped, with a bell, and said. Only idle time counts, never time the console spends working: laying out
the SQL form (its store, its read replicas) on a loaded machine held the console 5 s and more in one go once its
widgets were mounted, and the keys typed behind its Enter (``End " more" ctrl+s``) were dropped (the tester's)."""
START_PATIENCE = 60.0
"""Seconds keys typed as the console starts wait for its first section before they are dropped."""
WORK_PATIENCE = 2.0
"""Seconds keys wait for the work the key before them started (a save, a load, a connection)."""
HOLD_CHECK = 0.01
"""How often, in seconds, waiting keys look again whether the console has caught up."""
QUIET_ROUNDS = 2
"""Rounds in a row that must find the console caught up: a callback run after the last round may post once more."""
BARRIER_TIMEOUT = 1.0
"""Seconds one round waits for the widgets to run its callbacks (a widget closing never runs it)."""

Typed = events.Key | events.Paste


_BACKGROUND_GROUPS: set[str] = set()


def in_background(group: str) -> str:
    """Declare the worker group ``group`` background work, and return it (for the group's constant).

    Keys typed while it runs are never held for it: it shows its progress and a key stops it
    (``x``, Esc), and an ``x`` held until the fetch it should stop has ended stopped nothing.
    """
    _BACKGROUND_GROUPS.add(group)
    return group


class AsksFirst(Screen[Any]):
    """A question answered only by keys typed once it is on screen (a yes/no that destroys or discards).

    Keys typed before it appeared were meant for what was there: ``d`` then ``y`` in one burst (or
    ``q`` then ``y``) would delete, or throw edits away, unasked. :class:`KeyPath` drops them, with
    a bell.
    """

    TAKES_TYPE_AHEAD: ClassVar[bool] = False
    shown_at: float = inf
    """When the question was mounted (``monotonic``, the clock of ``Key.time``)."""

    @on(events.Mount)
    def note_shown(self) -> None:
        self.shown_at = monotonic()


def _asked_after(screen: Screen[Any], event: Typed) -> bool:
    """True when ``screen`` is a question that appeared after ``event`` was typed."""
    return not getattr(screen, "TAKES_TYPE_AHEAD", True) and event.time < getattr(screen, "shown_at", inf)


def typed_at(app: App[Any]) -> float:
    """When the key the console is handling was typed (``monotonic``, the clock of ``Key.time``): the last key the
    app's key path handed over, as none is handed over before the console has caught up with the one before (now,
    for an app without a key path)."""
    path = getattr(app, "key_path", None)
    return path.last_handed_at if isinstance(path, KeyPath) else monotonic()


def typed_for_what_did_not_come(app: App[Any], what: str) -> None:
    """The keys typed behind the key being handled are dropped, with a bell, and said: ``what`` they were typed for
    (a form that did not open) will not come. Handed over, they acted on what was there instead: the text typed
    for a directory's form deleted elsewhere went into the list's filter, its ``d`` asked to delete another."""
    path = getattr(app, "key_path", None)
    if isinstance(path, KeyPath):
        path.drop_waiting(f"{what} did not open")


def _for_a_section(app: App[Any], event: Typed) -> bool | None:
    """Whether ``event`` was typed for the console's first section, still to come (None: that never came)."""
    asked = getattr(app, "typed_for_a_section", None)
    return asked(event) if asked is not None else False


class KeyPath:
    """The app's key path (see the module): every key and paste, in order, once the console has caught up."""

    def __init__(self, app: App[Any], dispatch: Callable[[events.Event], Awaitable[None]]) -> None:
        self.app = app
        self.dispatch = dispatch
        self.last_handed_at = -inf  # when the last key handed over was typed (see typed_at)
        """Textual's own handling of a key (``App.on_event``: priority bindings, then the focused widget)."""
        self.queue: deque[Typed] = deque()
        self._task: asyncio.Task[None] | None = None
        self._known: set[Worker[Any]] = set()
        """The workers there were before the last key was handed over: any other is work it started."""
        self._stack: list[Screen[Any]] = []
        """The screens there were before the last key was handed over."""
        self._typing: tuple[Screen[Any], Widget] | None = None
        """The screen and text field the last key typed a character into; None after any other key."""
        self.dropped = 0
        """Keys dropped so far (each with a bell): for the tests and the benches."""
        self._runs: set[Typed] = set()
        """Runs of typed keys made into one paste (:meth:`_typed_on`), not yet handed over."""
        self.overflowed = 0
        """Keys of the burst now waiting that were dropped past ``HOLD_LIMIT``: while any were, every
        later key is dropped too, until the waiting keys are handed over."""

    @property
    def busy(self) -> bool:
        """True while keys wait, or the console is catching up with the last key handed over."""
        return bool(self.queue) or (self._task is not None and not self._task.done())

    async def take(self, event: Typed) -> None:
        """A key or paste from the terminal: handled now if the console is settled, else queued."""
        if self._leaving():
            return  # typed behind a q: the app is going, nothing is left to act on it
        held = _for_a_section(self.app, event)
        if held is False and self.queue and _for_a_section(self.app, self.queue[0]):
            # A key that acts at once while the start connects (Esc, q, the palette) ends the typing ahead: what
            # waited for the list is dropped, and this key is not held behind it.
            self._drop(len(self.queue))
            self.queue.clear()
        if held and isinstance(event, events.Key) and event.key == "ctrl+j":
            # Typed before the console took the terminal, Enter went through the terminal's line editing, which
            # turns it into a line feed (ctrl+j): as the console starts, that is the Enter the person pressed.
            event = events.Key("enter", "\r")
        if not self.busy and not held and self._state(since_key=False) == "ready":
            await self._hand_over(event)
            self._start()
            return
        if self.overflowed or len(self.queue) >= HOLD_LIMIT:
            # Never a key after a dropped one: it would land where the dropped ones should have taken it.
            self.overflowed += 1
            self._drop(1)
            return
        self.queue.append(event)
        self._start()

    # --- Handing keys over ----------------------------------------------------------------------

    def _start(self) -> None:
        if self._task is None or self._task.done():
            self._task = asyncio.create_task(self._run(), name="mailadmin key path")

    async def _hand_over(self, event: Typed) -> None:
        self.last_handed_at = event.time
        self._known = set(self.app.workers)
        self._stack = screens_of(self.app)
        if event in self._runs:  # a run types on where its keys did
            self._runs.discard(event)
        else:
            self._typing = self._typed_character(event)
        await self.dispatch(event)

    def _typed_character(self, event: Typed) -> tuple[Screen[Any], Widget] | None:
        """The screen and field ``event`` types a character into, if it does (a printable key into a text field)."""
        if not isinstance(event, events.Key) or event.character is None or not event.character.isprintable():
            return None
        try:
            top = self.app.screen
        except Exception:
            return None
        focused = top.focused
        return (top, focused) if focused is not None and typed_into(focused, event.key) else None

    def _types_on(self, event: Typed) -> bool:
        """True when ``event`` types on in the field the last key typed into: it needs no waiting.

        A character typed into a text field opens nothing and moves no focus, and the field takes
        its keys in order from its own queue; so the characters of a typed-ahead word go in one
        after another, and only the key after them (Tab, Enter, ctrl+s) waits for the console to
        catch up. Waiting after every character made a 37-key burst into a form take 3.6 s to show
        on a loaded machine (a round of every widget's messages after each one).
        """
        if self._typing is None or self._leaving():
            return False
        typing = self._typed_character(event)
        return typing is not None and typing == self._typing and typing[1].is_mounted

    def _typed_on(self) -> Typed:
        """The next key, with the keys typing on behind it into a plain text field as one paste (a *run*).

        Each key into an ``Input`` measured and redrew its whole value: a 4,000-character burst (a paste
        without bracketed paste) took 52 s to go in, key by key. A run is what its keys would have made:
        printable characters only, into a field that restricts nothing but its length, within it. (A
        plain ``Paste``: Textual finds a message's handler by its class's name.)
        """
        from textual.widgets import Input

        first = self.queue.popleft()
        field = self._typing[1] if self._typing is not None else None
        if not isinstance(first, events.Key) or not isinstance(field, Input) or not _takes_runs(field):
            return first
        room = room_left(field)
        characters = [str(first.character)]
        while (self.queue and len(characters) < room and isinstance(head := self.queue[0], events.Key)
               and self._types_on(head)):
            characters.append(str(head.character))
            self.queue.popleft()
        if len(characters) == 1:
            return first
        self._runs.add(run := events.Paste("".join(characters)))
        return run

    async def _run(self) -> None:
        try:
            while True:
                if self.queue and self._types_on(self.queue[0]):
                    await self._in_app(self._typed_on())
                    continue
                verdict = await self._caught_up()
                if verdict != "send":  # leaving, or stuck: nothing typed is acted on later
                    self.drop_waiting("the console did not catch up with them" if verdict == "stuck" else None)
                    return
                if not self.queue:
                    self._say_overflow()
                    return
                top = self.app.screen
                late = [event for event in self.queue if _asked_after(top, event)]
                if late:
                    for event in late:
                        self.queue.remove(event)
                    self._drop(len(late))
                    continue
                await self._in_app(self.queue.popleft())
        except Exception as error:  # the app's own crash handling reports it, as for any handler
            self.queue.clear()
            self.overflowed = 0
            self.app.call_later(_raise, error)

    async def _in_app(self, event: Typed) -> None:
        """Hand ``event`` over in the app's own task (Textual's handlers expect it), and wait until it was."""
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()

        async def deliver() -> None:
            try:
                if not self._leaving():
                    await self._hand_over(event)
            finally:
                if not done.done():
                    done.set_result(None)

        if not self.app.call_later(deliver):
            return
        while not done.done() and not self._leaving():
            await asyncio.wait({done}, timeout=0.1)

    def drop_waiting(self, why: str | None) -> None:
        """Every key waiting dropped, with a bell; said (``why`` they were not used) unless None (the app leaving).

        A bell alone went unheard in tmux: a save typed was lost unseen."""
        waiting = len(self.queue) + self.overflowed
        if why is not None and waiting:
            self.app.notify(f"{waiting:,} keys typed ahead were not used: {why}. Type them again.",
                            severity="warning", timeout=10)
        self._drop(len(self.queue))
        self.queue.clear()
        self.overflowed = 0

    def _say_overflow(self) -> None:
        if self.overflowed:
            self.app.notify(f"{self.overflowed:,} keys typed ahead were not used: more than {HOLD_LIMIT:,} waited. "
                            "Check the field you typed into.", severity="warning", timeout=10)
            self.overflowed = 0

    def _drop(self, count: int) -> None:
        if count:
            self.dropped += count
            self.app.bell()

    # --- Caught up? --------------------------------------------------------------------------------

    async def _caught_up(self) -> str:
        """Wait until the console has caught up with the last key: ``send``, or ``leave`` / ``late`` / ``stuck`` (drop).

        Patience for a console still building counts only the time it sat idle: a round waiting for work that did not
        come (a barrier timing out), the key path's own pauses. The time a round was held by the console's own work
        (its queued messages handled, a long layout holding the event loop past a timeout) is not counted."""
        start = monotonic()
        idle = 0.0  # seconds the console sat idle since it last built something
        held_since: float | None = None
        quiet = 0
        progress = progress_of(self.app)
        while True:
            if self._leaving():
                return "leave"
            held = _for_a_section(self.app, self.queue[0]) if self.queue else False
            if held is None:
                return "late"  # the start ended without a section: what was typed for it is not for what is there
            if held:
                held_since = held_since or monotonic()
                if monotonic() - held_since > START_PATIENCE:
                    return "late"
                await asyncio.sleep(HOLD_CHECK)
                start, idle = monotonic(), 0.0  # patience for the section's build and load from here
                continue
            round_start = monotonic()
            if not await barrier(self.app):  # waited for work that did not all come: idle, up to the timeout
                idle += min(monotonic() - round_start, BARRIER_TIMEOUT)
            if self._leaving():
                return "leave"
            state = self._state(since_key=True)
            quiet = quiet + 1 if state == "ready" else 0
            if quiet >= QUIET_ROUNDS:
                return "send"
            now = monotonic()
            if progress_of(self.app) != progress:
                # A big form on a loaded machine takes seconds to build: patience runs out only
                # when nothing more gets built.
                progress, idle = progress_of(self.app), 0.0
            waited = now - start
            if state == "building" and idle > HOLD_PATIENCE:
                return "stuck"
            if state == "working" and waited > WORK_PATIENCE:
                return "send"  # a slow server keeps nobody from the keyboard: the keys go on
            pause = 0 if state == "ready" else HOLD_CHECK
            paused_at = monotonic()
            await asyncio.sleep(pause)
            idle += min(monotonic() - paused_at, pause)  # past the pause, the console held the loop: busy

    def _state(self, *, since_key: bool) -> str:
        """``ready``, ``building`` (composing, mounting, messages queued) or ``working`` (the last key's work)."""
        app = self.app
        try:
            top = app.screen
        except Exception:  # no screen at all: the app is closing
            return "building"
        if not ready(top):
            return "building"
        nodes = nodes_of(self.app)
        # Messages queued while no typed key is on its way are not a key's doing (a focus() asked
        # for, a timer): the app's queue takes them before the key anyway. After a key, they are.
        if since_key and (any(node.message_queue_size for node in nodes) or refresh_callbacks_pending(top)):
            return "building"
        if any(isinstance(node, Widget) and not node.is_mounted for node in nodes):
            return "building"
        focused = top.focused
        if focused is not None and any(widget.loading for widget in focused.ancestors_with_self
                                       if isinstance(widget, Widget)):
            return "working"  # the list reloading, the form saving: its keys come when it is back
        if since_key and top in self._stack:
            # Work the last key started, still running, and no new screen it opened to wait on.
            started = [worker for worker in app.workers if worker not in self._known and not worker.is_finished
                       and worker.group not in _BACKGROUND_GROUPS]
            if started:
                return "working"
        return "ready"

    def _leaving(self) -> bool:
        app = self.app
        return app.return_code is not None or not app.is_running or not screens_of(self.app)

    def close(self) -> None:
        """The app is closing: nothing more is handed over."""
        self.queue.clear()
        if self._task is not None and not self._task.done():
            self._task.cancel()
        with contextlib.suppress(Exception):
            self._task = None


def _raise(error: Exception) -> None:
    raise error


# --- What the console is made of, and a turn of its queues (KeyPath's catching up reads them) -----------


def progress_of(app: App[Any]) -> tuple[int, int, int]:
    """How far the console has got: screens, widgets, and widgets mounted."""
    nodes = nodes_of(app)
    return len(screens_of(app)), len(nodes), sum(isinstance(n, Widget) and n.is_mounted for n in nodes)


def screens_of(app: App[Any]) -> list[Screen[Any]]:
    try:
        return app.screen_stack
    except Exception:
        return []


def nodes_of(app: App[Any]) -> list[MessagePump]:
    nodes: list[MessagePump] = [app]
    for screen in screens_of(app):
        nodes.extend(screen.walk_children(with_self=True))
    return nodes


async def barrier(app: App[Any]) -> bool:
    """Let every message queued so far be handled, and the callbacks waiting for a refresh run: True once they
    were, False when ``BARRIER_TIMEOUT`` ran out first."""
    loop = asyncio.get_running_loop()
    waits: list[asyncio.Future[None]] = []

    def arrive(future: asyncio.Future[None]) -> None:
        if not future.done():
            future.set_result(None)

    top: Screen[Any] | None
    try:
        top = app.screen
    except Exception:
        top = None
    busy = [node for node in nodes_of(app) if node.message_queue_size]
    for node in [app, *([top] if top is not None else []), *busy]:
        future = loop.create_future()
        if node.call_later(arrive, future):
            waits.append(future)
    if top is not None and refresh_callbacks_pending(top):
        future = loop.create_future()
        if top.call_after_refresh(arrive, future):
            waits.append(future)
    if waits:
        await asyncio.wait(waits, timeout=BARRIER_TIMEOUT)
    return all(future.done() for future in waits)
