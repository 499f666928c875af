"""The core works without the TUI: jmapclient and server_stub never import textual."""

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("package", ["jmapclient", "server_stub"])
def test_core_packages_do_not_import_textual(package: str) -> None:
    modules = sorted(p.relative_to(ROOT).with_suffix("").as_posix().replace("/", ".")
                     for p in (ROOT / package).rglob("*.py"))
    modules = [m.removesuffix(".__init__") for m in modules if not m.endswith("__main__")]
    code = (
        "import importlib, sys\n"
        f"for name in {modules!r}:\n"
        "    importlib.import_module(name)\n"
        "leaked = sorted(m for m in sys.modules if m == 'textual' or m.startswith('textual.'))\n"
        "print(','.join(leaked))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "", f"{package} pulled in textual: {result.stdout.strip()}"
