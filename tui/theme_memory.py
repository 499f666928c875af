"""The console's theme, kept in the config file (``[console] theme``) when it is changed, and
chosen again at the next start. Only the console as a person starts it keeps it (``tui.launch``):
a test's console never writes a config file."""

from __future__ import annotations

from jmapclient.config import Config, ConfigError


def saved_theme(config: Config | None = None) -> str | None:
    try:
        return (config or Config.load()).theme
    except ConfigError:
        return None  # an unreadable config is said where it matters (connecting), not here


def keep(theme: str) -> str:
    """Save ``theme`` in the config file; "" when saved, else why not (the console says it)."""
    try:
        config = Config.load()
        config.theme = theme
        config.save()
    except (ConfigError, OSError) as error:
        return str(error)
    return ""
