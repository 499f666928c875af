"""Keys typed ahead: they follow the keyboard when it moves, and wait for a screen being built.

``Widget.focus()`` defers the move until the app's queue reaches it, behind the keys already
typed: after ``/`` the next letters would still reach the list (and an Enter would open a
report) instead of the filter field. A move a key asks for goes through :func:`focus_now`.

Keys typed behind a key that opens a screen arrive before that screen can take them:
:class:`TypeAhead` holds them until it can.
"""

from __future__ import annotations

import weakref
from bisect import insort
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from operator import attrgetter
from time import monotonic
from typing import Any

from textual import events
from textual.app import App
from textual.dom import NoScreen
from textual.keys import REPLACED_KEYS, key_to_character
from textual.screen import Screen
from textual.timer import Timer
from textual.widget import Widget

from tui.lifecycle import gone, ready


def focus_now(widget: Widget) -> None:
    """Focus ``widget`` before the next key is handled (nothing, if it has left the screen)."""
    try:
        widget.screen.set_focus(widget)
    except NoScreen:
        return


def typed_into(widget: Widget, key: str) -> bool:
    """True when ``key`` types a character into ``widget`` (a text field) instead of acting.

    Textual hides such keys from the footer, but it cannot name the character of every key:
    ``slash`` (and the other keys it renamed: ``minus``, ``plus``, ``at`` ...) has none, so
    "/ Filter" stayed in the footer while ``/`` typed a slash into the filter field.
    """
    character = key_to_character(REPLACED_KEYS.get(key, key))
    return character is not None and widget.check_consume_key(key, character)


HOLD_LIMIT = 128
"""At most this many keys wait for a screen. Typing ahead of a dialog is a name, a path or a few
keys; more is a paste or a key held down, and acting on all of it once the screen is up (a run
of Enters and letters on whatever it shows) would do far more than anyone meant. Keys past the
limit are dropped, with a bell."""
HOLD_PATIENCE = 5.0
"""Seconds keys wait for a screen to be ready. One still not ready then is stuck (or the machine
is overwhelmed): keys acted on long after they were typed would surprise, so they are dropped,
with a bell, and never held for good."""
HOLD_CHECK = 0.02
"""How often, in seconds, held keys look whether their screen is ready."""
SENT_REMEMBERED = 128
"""How many keys on their way through the widgets remember the widget they were sent to (a key a
widget uses never comes back, so the oldest are forgotten)."""


class TypeAhead:
    """Keys typed ahead reach what the keys before them opened, in order, as if typed after it.

    Textual sends a key to the focused widget; a key no widget uses comes back up to the app, and
    only then do most bindings act (``x``, ``:``, ``/``, ``n``). By then the keys typed behind it
    in the same burst were already sent to the same widget: when one of them comes back unused
    after the keyboard moved (a dialog pushed, the filter field focused), the app only looked for
    a binding, and the letters of a path typed behind ``x`` never reached the export dialog's
    file name. And a screen pushed outside the app's own handling of a key (from a worker, as
    ctrl+o does after asking about unsaved edits) is on top while it composes: a key arriving then
    has no widget to go to. (A screen pushed while the app handles a key is mounted before the
    app takes its next message: Textual waits for it.)

    The app hands every key to :meth:`on_key`. A key is held here when it comes back unused from
    a widget that no longer has the keyboard, when the screen on top is still being built (not
    :func:`~tui.lifecycle.ready` and not on its way out), and, while keys are held, every key, so
    none overtakes another. Once the screen on top is ready the held keys are sent again, each as
    a new key, to whatever has the keyboard, in the order they were typed (by ``Key.time``,
    stamped when the terminal's key was read: a key coming back up may arrive after one typed
    later). The sending runs in the app's own queue, posted once the screen is seen ready: what
    its mount queued there (a ``focus()``) is done first, so the keys reach the widget the screen
    gives the keyboard to. (A widget that acts on a key must stop it, as Textual's text fields
    do, or the key would act again where it is sent; the console's widgets act through bindings.)

    Held keys are dropped, never sent to another screen, when:

    - the app is leaving (keys typed behind ``q``): nothing is left to act on them;
    - the screen they wait for is taken down (or starts leaving) before it was ready: they were
      typed for it, and on the screen beneath, a path's letters would be commands;
    - more than ``HOLD_LIMIT`` keys wait, or the screen is not ready after ``HOLD_PATIENCE``;
    - the screen says it takes no keys typed before it appeared (``TAKES_TYPE_AHEAD = False``: a
      confirmation, which must be answered by someone who has read it). With a bell.

    A key that opens another screen while held keys are sent stops the sending: the rest wait for
    that screen. Only keys are held; the mouse points at what is on screen.
    """

    def __init__(self, app: App[Any], deliver: Callable[[events.Key], Awaitable[None]]) -> None:
        self.app = app
        self.deliver = deliver
        """Handles a key as the app does (Textual's own ``App.on_event``: bindings, then the focus)."""
        self.keys: list[events.Key] = []
        self.waiting_for: Screen[Any] | None = None
        self.since = 0.0
        self._sent: OrderedDict[int, tuple[events.Key, weakref.ref[Widget]]] = OrderedDict()
        self._timer: Timer | None = None
        self._posted = False

    async def on_key(self, event: events.Key) -> None:
        """Handle ``event`` now, or hold it until what has the keyboard can take it."""
        top = self.app.screen
        moved = False
        if event.is_forwarded:  # coming back up unused from the widget it was sent to
            sent = self._sent.pop(id(event), None)
            moved = sent is not None and sent[0] is event and sent[1]() is not self._keyboard()
        if self.keys or moved or not (ready(top) or gone(top)):
            self._hold(event)
            return
        # Ready (handled as ever), or the app or its screen leaving: the app's binding gate then
        # uses the key up, with nothing there to act on it.
        await self._send(event)

    def _keyboard(self) -> Widget:
        return self.app.focused or self.app.screen

    async def _send(self, event: events.Key) -> None:
        if not event.is_forwarded and not self.app._exit:
            self._sent[id(event)] = (event, weakref.ref(self._keyboard()))
            while len(self._sent) > SENT_REMEMBERED:
                self._sent.popitem(last=False)
        await self.deliver(event)

    def _hold(self, event: events.Key) -> None:
        app = self.app
        if not self.keys:
            self.waiting_for, self.since = app.screen, monotonic()
            self._timer = app.set_interval(HOLD_CHECK, self._check, name="type-ahead")
        if len(self.keys) >= HOLD_LIMIT:
            app.bell()
            return
        insort(self.keys, event, key=attrgetter("time"))
        self._check()

    def _verdict(self) -> str:
        """What the held keys do now: ``send``, ``wait``, or be dropped (``leave``, ``late``, ``refuse``)."""
        app = self.app
        if app._exit or not app.is_running or not app.screen_stack:
            return "leave"
        if self.waiting_for is not None and gone(self.waiting_for):
            return "leave"
        top = app.screen
        if ready(top):
            # A question that destroys or discards is answered by keys typed after it is seen:
            # `d` then `y` in one burst (or `q` then `y`) would otherwise delete unasked.
            return "send" if getattr(top, "TAKES_TYPE_AHEAD", True) else "refuse"
        if top is not self.waiting_for and not gone(top):
            # A key sent opened another screen: the rest wait for that one.
            self.waiting_for, self.since = top, monotonic()
        return "late" if monotonic() - self.since > HOLD_PATIENCE else "wait"

    def _check(self) -> None:
        if self.keys and not self._posted and self._verdict() != "wait":
            self._posted = True
            self.app.call_later(self._release)

    async def _release(self) -> None:
        self._posted = False
        while self.keys:
            verdict = self._verdict()
            if verdict == "wait":
                return
            if verdict != "send":
                if verdict in ("late", "refuse"):
                    self.app.bell()
                self.keys.clear()
                break
            held = self.keys.pop(0)
            key = events.Key(held.key, held.character)
            key.time = held.time
            await self._send(key)
        self.waiting_for = None
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
