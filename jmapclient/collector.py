"""The cycle collector during a one-shot command's set-up: paused, then handed the set-up's objects as old.

A command's set-up (importing pydantic and httpx, building its object type's classes) makes
tens of thousands of objects that live as long as the process, and almost no garbage: the
collector's young-generation passes over them found next to nothing, for a few percent
of ``mailadmin query``'s start. :func:`pause` turns the collector off for that set-up;
:func:`resume`, at the command's first request (or its end), puts what the set-up made
into the oldest generation without a pass over it (``gc.freeze`` then ``gc.unfreeze``),
and turns the collector back on. Nothing is frozen for good: a full collection still
reaches the set-up's objects, and the command's own data is collected as usual.

The interpreter's exit runs one more, full, collection over every object still alive: tens
of thousands after a command's set-up, which a short command paid for at its end.
A command line's process ends with its command, and what that pass would free the system
frees anyway: its only other effect is to run the finalizers of objects caught in reference
cycles, and a command closes what it opened (its files, the client's sockets) before it
returns. :func:`skip_exit_collection` freezes every object at exit, so that pass finds none;
what later exit handlers make is still collected.

Only a collector that was on is paused, and only what :func:`pause` turned off is turned
back on, so someone who runs with ``gc.disable()`` keeps it off; objects a host process
froze (``gc.freeze``) stay frozen.

The set-up's objects are aged once a process: its first command imports and builds them, and
a later command in the same process (a host that runs :func:`~mailadmin.main.main` again and
again, as the tests do) builds next to nothing new. Asking whether a host froze anything
(``gc.get_freeze_count``) walks every frozen object: milliseconds a command in a host that froze
its whole heap, a twentieth of the test suite's CPU before it was asked once.
"""

from __future__ import annotations

import atexit
import gc

_paused = False
_aged = False
"""The first resume aged the set-up's objects; later ones have none to age."""
_exit_collection_skipped = False


def pause() -> None:
    """Turn the collector off until :func:`resume`, if it is on."""
    global _paused
    if gc.isenabled():
        gc.disable()
        _paused = True


def resume() -> None:
    """Turn the collector back on if :func:`pause` turned it off, the first time in the process
    ageing everything made so far into the oldest generation; otherwise do nothing."""
    global _paused, _aged
    if not _paused:
        return
    _paused = False
    # Unfreezing would also release what a host process froze on purpose (a test runner does):
    # then the set-up's objects are simply left where they are.
    if not _aged and gc.get_freeze_count() == 0:
        gc.freeze()  # every tracked object into the permanent generation, with no pass over them ...
        gc.unfreeze()  # ... and back into the oldest one, where only a full collection looks
    _aged = True
    gc.enable()


def skip_exit_collection() -> None:
    """At the interpreter's exit, freeze every object before its last collection (see above)."""
    global _exit_collection_skipped
    if not _exit_collection_skipped:
        _exit_collection_skipped = True
        atexit.register(gc.freeze)
