"""The DMARC package stays a pure library: no UI and no network imports.

Checked on the source (not sys.modules) because the parent package
jmapclient/__init__.py loads the HTTP client for its own reasons.
"""

from __future__ import annotations

import ast
from pathlib import Path

import jmapclient.dmarc

FORBIDDEN = {"textual", "httpx", "tui"}


def imported_roots(source: Path) -> set[str]:
    roots: set[str] = set()
    for node in ast.walk(ast.parse(source.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            roots |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            roots.add(node.module.split(".")[0])
    return roots


def test_no_ui_or_network_imports() -> None:
    package = Path(jmapclient.dmarc.__file__).parent
    modules = sorted(package.glob("*.py"))
    assert len(modules) >= 10
    offenders = {m.name: imported_roots(m) & FORBIDDEN for m in modules}
    assert {name: bad for name, bad in offenders.items() if bad} == {}
