"""Work that outlives its widget: what a handler or worker does after the widget left is dropped.

Keys arrive in bursts and the network is slow: a drill-down level can be closed before its
``on_mount`` ran, and a section switched away while its load is in flight. Textual cancels a
removed widget's workers, but the cancellation lands inside the worker (a ``finally`` still
runs) and a queued ``on_mount`` still runs on a widget whose children are gone; either then
fails with ``NoMatches`` or ``NoScreen``. There is nothing left to show such a result on, so
:func:`while_attached` drops an error raised once its widget is gone; while the widget is
there, errors are raised as ever.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any, TypeVar

from textual.dom import DOMNode
from textual.widget import Widget

from tui.textual_compat import closing

Method = TypeVar("Method", bound=Callable[..., Any])


def gone(node: DOMNode) -> bool:
    """True once ``node`` (or what holds it: its screen, the app) is being removed, or has left."""
    if not node.is_attached:
        return True
    if not node.app.is_running:
        # The app is shutting down: it stops running before it prunes its screens.
        return True
    return any(closing(holder) for holder in node.ancestors_with_self)


def ready(node: Widget) -> bool:
    """True while ``node`` can take a key: composed and mounted, and not yet on its way out.

    A screen pushed by a key (ctrl+o, ``:``) is on top at once, but composes in its own task: the
    keys typed behind that key can be handled before its widgets exist, or while they are being
    taken down again. The shell hands keys only to a screen that is ready.
    """
    return node.is_mounted and not gone(node)


def while_attached(method: Method) -> Method:
    """For a widget's handler or worker (under ``@work``): errors after the widget left are dropped."""
    if inspect.iscoroutinefunction(method):

        @functools.wraps(method)
        async def run_async(self: DOMNode, *args: Any, **kwargs: Any) -> Any:
            try:
                return await method(self, *args, **kwargs)
            except Exception:
                if gone(self):
                    return None
                raise

        return run_async  # type: ignore[return-value]

    @functools.wraps(method)
    def run(self: DOMNode, *args: Any, **kwargs: Any) -> Any:
        if gone(self):
            return None
        try:
            return method(self, *args, **kwargs)
        except Exception:
            if gone(self):
                return None
            raise

    return run  # type: ignore[return-value]
