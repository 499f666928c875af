"""What the footer offers, as the person reads it: (key, description) pairs."""

from __future__ import annotations

from textual.dom import DOMNode

from tui.textual_compat import FooterKey


def footer_keys(node: DOMNode) -> list[tuple[str, str]]:
    """The footer keys under ``node`` (the app, or one screen)."""
    return [(key.key_display, key.description) for key in node.query(FooterKey)]
