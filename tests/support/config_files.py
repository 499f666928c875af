"""Config files as a test writes them: private (0600), as the product makes them and requires."""

from __future__ import annotations

from pathlib import Path

from jmapclient.config import Config, Profile


def private_file(path: Path, text: str) -> Path:
    """``text`` written to ``path``, owner-only: a config others could write is refused when read."""
    path.write_text(text)
    path.chmod(0o600)
    return path


def written_elsewhere(path: Path, profile: Profile | None = None, *, remove: str | None = None) -> None:
    """What `mailadmin profile add` or `remove` does to the file meanwhile, from its own copy of it."""
    other = Config.load(path)
    if remove is not None:
        other.remove(remove)
    if profile is not None:
        other.add(profile)
    other.save()
