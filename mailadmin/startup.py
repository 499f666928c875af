"""The command line's start-up speed-ups: live in the ``mailadmin`` process only, each with a switch.

The library (``jmapclient``) changes nothing in a process that imports it; these change the
process, so only the front door applies them (:func:`apply`, first thing in
:func:`mailadmin.main.main`), and a person can turn any off by name, or all of them:
``MAILADMIN_STARTUP_OFF=collector,pydantic-plugins`` or ``MAILADMIN_STARTUP_OFF=all``.
Gains: ``bench/bench_startup_side_by_side.py --each`` (``query Directory`` against a stub, median CPU
time of 11 alternating runs; 308 ms with all on, 511 ms with all off; measured on 2 cores at a load of
10-15, so the split is rough: measure again before trusting a few percent). ``--help`` imports neither
httpx nor pydantic and gains nothing (66-71 ms either way).

- ``httpx-cli``: httpx's package imports its own command line (click, rich and pygments)
  whenever those happen to be installed, as they are beside textual; mailadmin never runs it,
  so a ``None`` entry in ``sys.modules`` makes that import fail into httpx's own fallback
  (``httpx/__init__.py``: ``try: from ._main import main``). Gain: 73 ms CPU (x1.16 without it).
- ``pydantic-plugins``: mailadmin uses no pydantic plugin. Looking for them reads the metadata
  of every installed package when the first model is built, after importing
  ``importlib.metadata`` (zipfile, csv, bz2, lzma). ``PYDANTIC_DISABLE_PLUGINS`` is set to
  ``__all__`` unless the person set it (their value is kept), and with plugins off the loader is
  replaced by one that returns none without those imports; pydantic is pinned below the next
  minor version (pyproject), the loader module being private. Gain: 48 ms CPU (x1.09 without it).
- ``collector``: the cycle collector is paused from the command line to the command's first
  request (or its end), then handed the set-up's objects as old (:func:`resume_collector`);
  a one-shot command's interpreter exit freezes every object so its last collection scans
  nothing (:func:`skip_exit_collection`). Gain: 129 ms CPU (x1.33 without it). The console and
  the demo keep it paused until their first frame is drawn (``MailAdminApp.after_first_frame``),
  so Textual and the console load without it: importing ``textual.app`` took 6-25% less CPU with
  it paused (medians of 9 runs, load 6-7); with the console's other cuts, its first frame went from
  x1.35 to x1.16 of a bare Textual app's CPU (``bench/bench_startup.py --part console --before``).
"""

from __future__ import annotations

import atexit
import gc
import os
import sys
import types
from collections.abc import Mapping
from importlib.machinery import ModuleSpec
from typing import TYPE_CHECKING, cast

if TYPE_CHECKING:
    from importlib.abc import Loader

SWITCH = "MAILADMIN_STARTUP_OFF"
"""Names of the speed-ups to leave off, comma-separated, or ``all``."""
SPEEDUPS = ("httpx-cli", "pydantic-plugins", "collector")
PLUGINS_ENV = "PYDANTIC_DISABLE_PLUGINS"
ALL_PLUGINS_OFF = ("__all__", "1", "true")
"""The values with which pydantic's loader looks for no plugin at all (pydantic/plugin/_loader.py)."""


def enabled(name: str, environ: Mapping[str, str] = os.environ) -> bool:
    """True unless the person turned the speed-up ``name`` off (:data:`SWITCH`)."""
    off = {part.strip() for part in environ.get(SWITCH, "").split(",")}
    return "all" not in off and name not in off


def apply(environ: Mapping[str, str] = os.environ, *, collector: bool = True) -> None:
    """Apply every speed-up that is on; the collector (unless ``collector`` is False: a server,
    which runs for long) is paused until :func:`resume_collector`."""
    if enabled("httpx-cli", environ):
        skip_httpx_cli()
    if enabled("pydantic-plugins", environ):
        no_pydantic_plugins()
    if collector and enabled("collector", environ):
        pause_collector()


def skip_httpx_cli() -> None:
    sys.modules.setdefault("httpx._main", None)  # type: ignore[arg-type]


class _NoPluginsLoader:
    """Makes ``pydantic.plugin._loader``, when pydantic first asks for it, the loader as it behaves
    with every plugin off, but without its own imports (``importlib.metadata`` and its kin).

    A finder, not a module put in place at start: ``--help`` loads no pydantic at all. (Not derived
    from ``importlib.abc``, whose import loads ``importlib.resources``: a finder and loader need
    only these three methods.)
    """

    NAME = "pydantic.plugin._loader"

    def find_spec(self, fullname: str, path: object = None, target: object = None) -> ModuleSpec | None:
        return ModuleSpec(fullname, cast("Loader", self)) if fullname == self.NAME else None

    def create_module(self, spec: ModuleSpec) -> types.ModuleType | None:
        return None  # the default module

    def exec_module(self, module: types.ModuleType) -> None:
        module.__doc__ = "No pydantic plugins (PYDANTIC_DISABLE_PLUGINS)."
        vars(module)["get_plugins"] = tuple  # get_plugins() -> (): no plugin


def no_pydantic_plugins() -> None:
    os.environ.setdefault(PLUGINS_ENV, "__all__")  # a person's own setting decides
    if os.environ[PLUGINS_ENV] in ALL_PLUGINS_OFF and not any(
            isinstance(finder, _NoPluginsLoader) for finder in sys.meta_path):
        sys.meta_path.insert(0, _NoPluginsLoader())


# --- The cycle collector ---------------------------------------------------------------------------
#
# A command's set-up (importing pydantic and httpx, building its object type's classes) makes
# tens of thousands of objects that live as long as the process, and almost no garbage: the
# collector's young-generation passes over them found next to nothing. Only a collector that was
# on is paused, and only what was turned off is turned back on, so someone who runs with
# ``gc.disable()`` keeps it off; objects a host process froze (``gc.freeze``) stay frozen. The
# set-up's objects are aged once a process: a host that runs ``main`` again and again (the tests)
# builds next to nothing new, and asking ``gc.get_freeze_count`` walks every frozen object.

_paused = False
_aged = False
_exit_collection_skipped = False


def pause_collector() -> None:
    """Turn the collector off until :func:`resume_collector`, if it is on."""
    global _paused
    if gc.isenabled():
        gc.disable()
        _paused = True


def resume_collector() -> None:
    """Turn the collector back on if :func:`pause_collector` turned it off, the first time in the
    process ageing everything made so far into the oldest generation; otherwise do nothing."""
    global _paused, _aged
    if not _paused:
        return
    _paused = False
    if not _aged and gc.get_freeze_count() == 0:
        gc.freeze()  # every tracked object into the permanent generation, with no pass over them ...
        gc.unfreeze()  # ... and back into the oldest one, where only a full collection looks
    _aged = True
    gc.enable()


def skip_exit_collection() -> None:
    """At the interpreter's exit, freeze every object before its last collection.

    That collection runs over every object still alive, tens of thousands after a command's
    set-up; what it would free the system frees anyway, and a command closes what it opened
    before it returns. What later exit handlers make is still collected.
    """
    global _exit_collection_skipped
    if enabled("collector") and not _exit_collection_skipped:
        _exit_collection_skipped = True
        atexit.register(gc.freeze)
