"""The config file saved from two places at once: nothing another writer put there is lost (#32.3).

The console read the file at start-up and wrote that copy back on every Add/Edit/Remove and
offline toggle: a profile added meanwhile by `mailadmin profile add`, a `[keys]` section added by
hand, comments and unknown keys were all erased. (A symlinked config is refused now:
tests/reliability/test_config_saves_checked.py.)
"""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from pathlib import Path

from jmapclient.config import Config, Profile

HAND_WRITTEN = """\
# my servers; the lab one is flaky
default = "work"

[profiles.work]  # the main one
url = "https://mail.example.com"
token_file = "~/.work-token"
colour = "blue"    # a key this version does not know

[profiles.lab]
url = "https://lab.example.com"
insecure = true

[keys]
"app.quit" = "ctrl+x"
"""


def write(path: Path, text: str) -> Path:
    path.write_text(text)
    path.chmod(0o600)
    return path


def cli(config: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mailadmin", *args], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "MAILADMIN_CONFIG": str(config)}, check=False)


def test_a_stale_copy_saved_keeps_what_another_process_added(tmp_path) -> None:
    # The console's copy (read before) saves after the CLI added a profile: it erased it.
    config = write(tmp_path / "config.toml", HAND_WRITTEN)
    console = Config.load(config)
    assert cli(config, "profile", "add", "home", "--url", "https://home.example.com").returncode == 0
    console.add(Profile(name="new", url="https://new.example.com"))
    console.save()
    stored = tomllib.loads(config.read_text())
    assert set(stored["profiles"]) == {"work", "lab", "home", "new"}
    assert set(console.profiles) == {"work", "lab", "home", "new"}  # the console now shows the CLI's too


def test_a_save_keeps_comments_order_and_unknown_keys(tmp_path) -> None:
    config = write(tmp_path / "config.toml", HAND_WRITTEN)
    loaded = Config.load(config)
    loaded.profiles["lab"].read_only = True
    loaded.offline = True
    loaded.save()
    text = config.read_text()
    for kept in ("# my servers; the lab one is flaky", "# the main one", 'colour = "blue"',
                 "# a key this version does not know", '"app.quit" = "ctrl+x"'):
        assert kept in text
    assert text.index("[profiles.work]") < text.index("[profiles.lab]") < text.index("[keys]")
    stored = tomllib.loads(text)
    assert stored["profiles"]["lab"] == {"url": "https://lab.example.com", "insecure": True, "read_only": True}
    assert stored["dmarc"] == {"offline": True}
    assert stored["profiles"]["work"]["token_file"] == "~/.work-token"


def test_removing_a_profile_touches_nothing_else(tmp_path) -> None:
    config = write(tmp_path / "config.toml", HAND_WRITTEN)
    loaded = Config.load(config)
    loaded.remove("lab")
    loaded.save()
    assert config.read_text() == HAND_WRITTEN.replace(
        '[profiles.lab]\nurl = "https://lab.example.com"\ninsecure = true\n\n', "")


def test_a_new_config_is_private_in_a_private_folder(tmp_path) -> None:
    config = tmp_path / "made" / "config.toml"
    fresh = Config.load(config)
    fresh.add(Profile(name="a", url="https://a.example.com", token="secret"))
    fresh.save()
    assert config.stat().st_mode & 0o777 == 0o600
    assert config.parent.stat().st_mode & 0o777 == 0o700


WRITERS = 6


def test_writers_at_once_all_land(tmp_path) -> None:
    # Read-modify-write without a lock: of processes saving together, the last rename won and
    # the profiles of the others were gone. Each process here is the CLI (a real process).
    config = write(tmp_path / "config.toml", HAND_WRITTEN)
    env = {**os.environ, "MAILADMIN_CONFIG": str(config)}
    runs = [subprocess.Popen([sys.executable, "-m", "mailadmin", "profile", "add", f"p{n}", "--url",
                              f"https://p{n}.example.com"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            for n in range(WRITERS)]
    for run in runs:
        assert run.wait(timeout=60) == 0, run.stderr.read() if run.stderr else ""
    profiles = tomllib.loads(config.read_text())["profiles"]
    assert set(profiles) == {"work", "lab", *(f"p{n}" for n in range(WRITERS))}
