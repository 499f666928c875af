"""No class of the four packages is over 300 lines (issue #26): a class that grows is split by job."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("mailadmin", "tui", "server_stub", "jmapclient")
MAX_LINES = 300


def test_no_class_is_over_300_lines() -> None:
    large = [
        f"{path.relative_to(ROOT)}: {node.name} ({node.end_lineno - node.lineno + 1} lines)"
        for package in PACKAGES for path in sorted((ROOT / package).rglob("*.py"))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.ClassDef) and node.end_lineno is not None
        and node.end_lineno - node.lineno + 1 > MAX_LINES
    ]
    assert not large, "classes over 300 lines (split them by job):\n" + "\n".join(large)
