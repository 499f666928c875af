"""Importing the library changes nothing in the importing process (issue #26).

A program that embeds ``jmapclient`` keeps its environment and its ``sys.modules`` as a plain
``import httpx, pydantic`` leaves them: no variable set for it and its children, no import
blocked, no module of someone else's replaced. The command line's speed-ups live in
``mailadmin.startup``, applied by the front door only.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

REPORT = """
import json, os, sys
{imports}
modules = {{name: (module is not None and (getattr(module, "__file__", None) is not None
                   or getattr(module, "__spec__", None) is not None))
            for name, module in sys.modules.items() if not name.startswith("jmapclient")}}
print(json.dumps({{"environ": dict(os.environ), "modules": modules}}))
"""

LIBRARY = """
import jmapclient
from jmapclient import JmapClient  # httpx and the client
from jmapclient.models.objects import DIRECTORY  # pydantic, and a model built and used
wire = {"@type": "Oidc", "id": "d1", "description": "x", "issuerUrl": "https://sso.example"}
assert DIRECTORY.read(wire).id == "d1"
"""


def state_after(imports: str) -> dict[str, dict[str, object]]:
    env = {key: value for key, value in __import__("os").environ.items() if key != "PYDANTIC_DISABLE_PLUGINS"}
    done = subprocess.run([sys.executable, "-c", REPORT.format(imports=imports)], cwd=ROOT, capture_output=True,
                          text=True, timeout=60, env=env)
    assert done.returncode == 0, done.stderr
    state: dict[str, dict[str, object]] = json.loads(done.stdout)
    return state


@pytest.fixture(scope="module")
def plain() -> dict[str, dict[str, object]]:
    return state_after("import httpx, pydantic")


@pytest.fixture(scope="module")
def library() -> dict[str, dict[str, object]]:
    return state_after(LIBRARY)


def test_the_library_sets_no_environment_variable(plain: dict[str, dict[str, object]],
                                                  library: dict[str, dict[str, object]]) -> None:
    assert library["environ"] == plain["environ"]


def test_the_library_blocks_or_fakes_no_module(plain: dict[str, dict[str, object]],
                                               library: dict[str, dict[str, object]]) -> None:
    # A blocked import is a None entry; a module made up in place has neither file nor spec.
    blocked_or_fake = sorted(name for name, real in library["modules"].items() if not real)
    assert blocked_or_fake == sorted(name for name, real in plain["modules"].items() if not real)
    # What httpx imports for itself (its command line when click is installed) is there as it would be.
    assert {n: r for n, r in library["modules"].items() if n.startswith("httpx")} == {
        n: r for n, r in plain["modules"].items() if n.startswith("httpx")}


def test_the_front_door_applies_its_speed_ups_and_each_can_be_turned_off() -> None:
    # The same speed-ups, now the front door's: on by default, off by name or all at once.
    code = ("import os, sys\nfrom mailadmin.startup import apply\napply()\nimport pydantic.plugin._loader as loader\n"
            "print(sys.modules.get('httpx._main', 'absent') is None, os.environ.get('PYDANTIC_DISABLE_PLUGINS'),"
            " getattr(loader, '__file__', None) is None, __import__('gc').isenabled())\n")
    env = {key: value for key, value in __import__("os").environ.items() if key != "PYDANTIC_DISABLE_PLUGINS"}
    outputs = {}
    for switch in ("", "httpx-cli", "pydantic-plugins", "collector", "all"):
        done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60,
                              env={**env, "MAILADMIN_STARTUP_OFF": switch})
        assert done.returncode == 0, done.stderr
        outputs[switch] = done.stdout.split()
    assert outputs == {
        "": ["True", "__all__", "True", "False"],
        "httpx-cli": ["False", "__all__", "True", "False"],
        "pydantic-plugins": ["True", "None", "False", "False"],
        "collector": ["True", "__all__", "True", "True"],
        "all": ["False", "None", "False", "True"],
    }
