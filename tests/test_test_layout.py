"""The test tree's import rules, read from the source with ``ast`` (nothing is imported or run).

- Every module under ``tests/`` imports from ``tests`` only through ``tests.support``: never a test
  module, never a conftest (fixtures reach tests by injection), never a helper left beside tests.
- ``bench/`` imports nothing from ``tests``: what a benchmark shares with a test lives in ``bench/``.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SUPPORT = "tests.support"


def module_name(path: Path, root: Path) -> str:
    return ".".join(path.relative_to(root).with_suffix("").parts)


def imported_modules(path: Path, root: Path) -> list[tuple[int, str]]:
    """Every module ``path`` imports, absolute (relative imports resolved), with its line number."""
    package = module_name(path, root).rsplit(".", 1)[0]
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parent, base] if base else parent)
            # ``from tests import conftest`` names a module in the alias, not in ``node.module``.
            found += [(node.lineno, f"{base}.{alias.name}") for alias in node.names]
    return found


def is_tests(module: str) -> bool:
    return module == "tests" or module.startswith("tests.")


def is_support(module: str) -> bool:
    return module == SUPPORT or module.startswith(SUPPORT + ".")


def layout_problems(root: Path) -> list[str]:
    problems = []
    for path in sorted((root / "tests").rglob("*.py")):
        for line, module in imported_modules(path, root):
            if is_tests(module) and not is_support(module):
                problems.append(f"{path.relative_to(root)}:{line} imports {module}; share it through {SUPPORT}")
    for path in sorted((root / "bench").rglob("*.py")):
        for line, module in imported_modules(path, root):
            if is_tests(module):
                problems.append(f"{path.relative_to(root)}:{line} imports {module}; bench/ needs nothing from tests/")
    return problems


def test_tests_share_code_only_through_support_and_bench_imports_no_tests() -> None:
    assert layout_problems(ROOT) == []


def test_the_rules_see_absolute_relative_and_bench_imports(tmp_path: Path) -> None:
    planted = {
        "tests/__init__.py": "",
        "tests/support/__init__.py": "",
        "tests/a/__init__.py": "",
        "tests/a/conftest.py": "",
        "tests/a/test_one.py": "from tests.support import clock\nfrom tests.a.conftest import X\n",
        "tests/a/test_two.py": "from . import test_one\nfrom .conftest import Y\nimport tests.a.test_one\n",
        "bench/bench_x.py": "from tests.support.clock import FROZEN_NOW\n",
    }
    for name, text in planted.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    found = layout_problems(tmp_path)
    assert [problem.split(" imports ")[0] for problem in found] == [
        "tests/a/test_one.py:2", "tests/a/test_two.py:1", "tests/a/test_two.py:2", "tests/a/test_two.py:3",
        "bench/bench_x.py:1",
    ]


ORIGIN_PREFIXES = ("test_adv_", "test_survives_", "test_fidelity_")
"""Names that said where a test came from (an attack round, a crash hunt, a fidelity pass), not what it tests."""


def naming_problems(root: Path) -> list[str]:
    """Test files named by origin, and console tests left outside a feature folder of ``tests/tui``."""
    problems = []
    for path in sorted((root / "tests").rglob("test_*.py")):
        where = path.relative_to(root)
        if path.name.startswith(ORIGIN_PREFIXES):
            problems.append(f"{where}: name it for the feature it tests, not where it came from")
        if where.parts[:2] == ("tests", "tui") and len(where.parts) == 3:
            problems.append(f"{where}: console tests live in a feature folder (tests/tui/shell, inbox, ...)")
    return problems


def test_tests_are_grouped_and_named_by_feature() -> None:
    assert naming_problems(ROOT) == []


def test_the_naming_rule_sees_a_file_named_by_origin(tmp_path: Path) -> None:
    (tmp_path / "tests" / "tui" / "inbox").mkdir(parents=True)
    (tmp_path / "tests" / "tui" / "test_loose.py").write_text("")
    (tmp_path / "tests" / "tui" / "inbox" / "test_adv_marks.py").write_text("")
    (tmp_path / "tests" / "tui" / "inbox" / "test_marks.py").write_text("")
    assert [problem.split(":")[0] for problem in naming_problems(tmp_path)] == [
        "tests/tui/inbox/test_adv_marks.py",
        "tests/tui/test_loose.py",
    ]
