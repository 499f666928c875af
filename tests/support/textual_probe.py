"""The tests' one door to Textual's internals (the console's is ``tui/textual_compat.py``).

Pilot has no public way to ask what the app raised, which toasts it showed, what a Select offers,
or to run a key through the bindings without the driver; the suite also tunes two of Textual's
internals for the whole test process. All of it is here, so a Textual upgrade is read in two
modules (``tests/test_textual_private.py`` keeps private Textual names out of every other one).
"""

from __future__ import annotations

import inspect
from typing import TYPE_CHECKING, Any

from rich.segment import Segment
from textual._wait import wait_for_idle
from textual.app import App
from textual.message import Message
from textual.widgets import DataTable, Select

if TYPE_CHECKING:
    from textual.css.model import RuleSet
    from textual.css.types import CSSLocation

__all__ = [
    "cached_cell_renders", "check_bindings", "check_idle_more_often", "exception_of", "notifications",
    "post_from_terminal", "screen_strips", "select_prompts", "share_parsed_stylesheets", "table_update_count",
    "wait_for_idle",
]

IDLE_CHECK_SECONDS = 0.005
"""How often Pilot checks that the console has gone idle after a key (Textual's default: 0.02)."""


def exception_of(app: App[Any]) -> BaseException | None:
    """The first error that ended the app (Pilot re-raises it only at the end of ``run_test``)."""
    return app._exception


def notifications(app: App[Any]) -> list[str]:
    """The messages of the toasts still on show."""
    return [notification.message for notification in app._notifications]


def post_from_terminal(app: App[Any], event: Message) -> None:
    """Deliver ``event`` as the terminal's driver does (a paste, a key), not through Pilot."""
    event.set_sender(app)
    app._driver.send_message(event)


def table_update_count(table: DataTable[Any]) -> int:
    """The DataTable's update count, on which every cached cell render is keyed."""
    return table._update_count


def cached_cell_renders(table: DataTable[Any]) -> set[tuple[Any, ...]]:
    """The keys of the DataTable's cached cell renders: (row key, column key, style..., update count...)."""
    return set(table._cell_render_cache.keys())


def screen_strips(app: App[Any]) -> list[list[Segment]]:
    """The screen as drawn, line by line (what a terminal would show)."""
    return [list(strip) for strip in app.screen._compositor.render_strips()]


def select_prompts(select: Select[Any]) -> list[str]:
    """What the Select offers, in its order, its blank entry left out."""
    return [str(prompt) for prompt, value in select._options if value is not Select.NULL]


async def check_bindings(app: App[Any], key: str, priority: bool = False) -> bool:
    """Run ``key`` through the app's bindings as its key dispatch does (no driver, no focus path)."""
    return await app._check_bindings(key, priority)


def check_idle_more_often() -> None:
    """Let Pilot notice sooner that the console has finished with a key.

    After every key Pilot waits twice for the process to go idle: it sleeps a step, and calls
    the process idle once a step used under a twentieth of its length in CPU. At Textual's
    20 ms step every key cost at least 40 ms of sleep, most of the console tests' waiting
    (measured: two thirds of the waits ended at the first or second step). A finer step keeps
    the same test of idleness (the same share of CPU) and ends the wait sooner. Textual keeps
    the step in a private module, so a Textual that moved it fails here, not silently.
    """
    from textual import _wait

    if not isinstance(getattr(_wait, "SLEEP_GRANULARITY", None), float) or not hasattr(_wait, "SLEEP_IDLE"):
        raise RuntimeError("textual._wait no longer has SLEEP_GRANULARITY and SLEEP_IDLE: see check_idle_more_often")
    share = _wait.SLEEP_IDLE / _wait.SLEEP_GRANULARITY
    _wait.SLEEP_GRANULARITY = IDLE_CHECK_SECONDS
    _wait.SLEEP_IDLE = IDLE_CHECK_SECONDS * share


def share_parsed_stylesheets() -> None:
    """Parse each piece of CSS once a process, not once a console.

    Every console (three hundred in the suite) parsed its stylesheet and every widget's default
    CSS again: a tenth of a console's start (py-spy). The rules parsed depend only on the CSS, where
    it was read from and the theme's variables, which are all in the key, and a stylesheet reads
    its rules without changing them, as it does with its own per-stylesheet cache. Textual keeps
    the parser in a private method, so a Textual that renamed it fails here, not silently.
    """
    from textual.css.stylesheet import Stylesheet

    parse_rules = Stylesheet._parse_rules
    if list(inspect.signature(parse_rules).parameters) != [
        "self", "css", "read_from", "is_default_rules", "tie_breaker", "scope",
    ]:
        raise RuntimeError("Stylesheet._parse_rules changed: see share_parsed_stylesheets")
    parsed: dict[tuple[object, ...], list[RuleSet]] = {}

    def parse_once(self: Stylesheet, css: str, read_from: CSSLocation, is_default_rules: bool = False,
                   tie_breaker: int = 0, scope: str = "") -> list[RuleSet]:
        key = (css, read_from, is_default_rules, tie_breaker, scope, frozenset(self._variables.items()))
        rules = parsed.get(key)
        if rules is None:
            rules = parsed[key] = parse_rules(self, css, read_from, is_default_rules, tie_breaker, scope)
        return rules

    Stylesheet._parse_rules = parse_once  # type: ignore[method-assign]
