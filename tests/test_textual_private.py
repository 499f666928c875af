"""Textual's private names are used in two modules only: ``tui/textual_compat.py`` and its test helper.

import-linter sees modules, not attributes, so the sources are read with ``ast``: a private
module or name imported from Textual, or an attribute read or written whose name Textual keeps
private (``app._exception``), anywhere else fails here. A method of a console class that
overrides one of Textual's private methods is found by importing the console and walking each
class's bases. Names the project itself defines (its own ``self._state``) are not Textual's, even
where Textual happens to use the same name: that much a source check cannot tell apart.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
import textwrap
from functools import cache
from pathlib import Path

import textual

import tui

ROOT = Path(__file__).resolve().parent.parent
DOORS = {"tui/textual_compat.py", "tests/support/textual_probe.py"}
SOURCES = ("mailadmin", "tui", "server_stub", "jmapclient", "tests", "bench")
KNOWN_EXCEPTIONS: dict[str, set[str]] = {
    # The exploration engine (bench/explore*.py), kept by the profiles work: it drives the app
    # without a terminal and reads what it raised.
    "bench/explore_engine.py": {"_character_to_key", "_driver", "_exception"},
}


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


@cache
def textual_private_names() -> frozenset[str]:
    """Every private attribute, method and class attribute name in the installed Textual's source."""
    names: set[str] = set()
    for path in Path(textual.__file__).parent.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and _private(node.attr):
                names.add(node.attr)
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and _private(node.name):
                names.add(node.name)
    return frozenset(names)


def project_files() -> list[Path]:
    return sorted(p for top in SOURCES for p in (ROOT / top).rglob("*.py") if ".venv" not in p.parts)


def relative(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


@cache
def own_names() -> frozenset[str]:
    """Private names the project assigns or defines itself, outside the two doors."""
    names: set[str] = set()
    for path in project_files():
        if relative(path) in DOORS:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store) and _private(node.attr):
                names.add(node.attr)
            elif isinstance(node, ast.ClassDef):
                for statement in node.body:
                    targets = statement.targets if isinstance(statement, ast.Assign) else (
                        [statement.target] if isinstance(statement, ast.AnnAssign) else [])
                    names.update(t.id for t in targets if isinstance(t, ast.Name) and _private(t.id))
                    if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef) and _private(statement.name):
                        names.add(statement.name)
    return frozenset(names)


def private_uses(path: Path) -> list[tuple[int, str]]:
    """Each private Textual module, name or attribute ``path`` uses, with its line."""
    textual_names = textual_private_names() - own_names()
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "textual":
            parts = (node.module or "").split(".")
            found += [(node.lineno, part) for part in parts if _private(part)]
            found += [(node.lineno, alias.name) for alias in node.names if _private(alias.name)]
        elif isinstance(node, ast.Import):
            found += [(node.lineno, part) for alias in node.names if alias.name.split(".")[0] == "textual"
                      for part in alias.name.split(".") if _private(part)]
        elif isinstance(node, ast.Attribute) and node.attr in textual_names:
            found.append((node.lineno, node.attr))
    return found


def test_private_textual_names_only_in_the_two_doors() -> None:
    stray = [
        f"{relative(path)}:{line}: {name}"
        for path in project_files() if relative(path) not in DOORS
        for line, name in private_uses(path)
        if name not in KNOWN_EXCEPTIONS.get(relative(path), set())
    ]
    assert not stray, "private Textual names outside tui/textual_compat.py (move them there):\n" + "\n".join(stray)


def body_names(cls: type) -> set[str]:
    """The names the class's own body defines (not what Textual's metaclass adds to it)."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(cls)))
    names: set[str] = set()
    for statement in tree.body[0].body:  # type: ignore[attr-defined]
        if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef):
            names.add(statement.name)
        targets = statement.targets if isinstance(statement, ast.Assign) else (
            [statement.target] if isinstance(statement, ast.AnnAssign) else [])
        names.update(t.id for t in targets if isinstance(t, ast.Name))
    return names


def test_no_console_class_overrides_a_private_textual_method_outside_the_door() -> None:
    overrides = []
    for module_info in pkgutil.walk_packages(tui.__path__, "tui."):
        module = importlib.import_module(module_info.name)
        for cls in vars(module).values():
            if not inspect.isclass(cls) or cls.__module__ != module.__name__ or module.__name__ == "tui.textual_compat":
                continue
            textual_bases = [base for base in cls.__mro__[1:] if base.__module__.split(".")[0] == "textual"]
            for name in body_names(cls):
                if _private(name) and any(name in vars(base) for base in textual_bases):
                    where = f"{module.__file__}"
                    if name not in KNOWN_EXCEPTIONS.get(relative(Path(where)), set()):
                        overrides.append(f"{cls.__module__}.{cls.__qualname__}.{name}")
    assert not overrides, "overrides of private Textual methods outside tui/textual_compat.py: " + ", ".join(overrides)


def test_the_check_finds_a_private_name_it_is_shown(tmp_path: Path) -> None:
    # The check itself can fail: each kind of use it looks for, in a file of its own.
    sample = tmp_path / "sample.py"
    sample.write_text(
        "from textual.widgets._footer import FooterKey\n"
        "import textual._wait\n"
        "from textual.keys import _character_to_key\n"
        "def f(app):\n"
        "    return app._exception, app._compositor\n",
        encoding="utf-8",
    )
    assert sorted(name for _, name in private_uses(sample)) == [
        "_character_to_key", "_compositor", "_exception", "_footer", "_wait"]
