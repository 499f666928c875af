"""The palette's Screenshot: an SVG of the screen, saved where it can be and said where.

Textual saves to ``~/Downloads``, which a server reached over SSH often lacks. The console
saves to ``screenshots/`` in its data directory (``MAILADMIN_DATA``), creating it, owner-only
like every other file it writes, and says the full path, or in words why nothing was saved.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

from textual.app import App

from jmapclient.config import data_dir, write_private


def screenshot_dir() -> Path:
    return data_dir() / "screenshots"


def save_screenshot(app: App[Any], filename: str | None = None, directory: str | None = None) -> Path | None:
    """Save the screen as SVG; notify the path, or why it could not be saved (then None)."""
    name = filename or f"{app.title}_{datetime.now():%Y-%m-%dT%H_%M_%S_%f}.svg"
    target = (Path(directory).expanduser() if directory else screenshot_dir()) / name
    try:
        write_private(target, app.export_screenshot().encode())
    except OSError as error:
        reason = error.strerror or str(error)
        app.notify(f"Screenshot not saved: cannot write {target}: {reason}.", title="Screenshot",
                   severity="error", markup=False)
        return None
    app.notify(f"Screenshot saved to {target}", title="Screenshot", markup=False, timeout=8)
    return target
