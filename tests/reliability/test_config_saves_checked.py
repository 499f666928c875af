"""A config save checks the file as it is on disk now, as reading it at start does (tester, config10).

- A link someone else could have made at the config's path was written through: `profile add --token`
  wrote the token into the file it pointed at and made it 0600; a dangling link created its target and a
  lock beside it. The person's own link (a dotfiles checkout) is still written through.
- A file made group- or world-writable after the console read it was saved over (0600, with a url
  someone else put in it): start-up refuses such a file, the save did not.
- A save from a stale copy overwrote a profile of the same name added meanwhile, and an edit of a
  profile removed meanwhile brought it back.
- `profile add` took a name holding an escape sequence, which then changed the terminal's colours.
"""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from jmapclient.config import Config, ConfigError, Profile, ProfileChanged
from tests.support.config_files import private_file, written_elsewhere

LINK_NOT_WRITTEN = "not written through"
"""As file_safety says it (written out: this file also runs against the code before the fix)."""

ON_DISK = """\
[profiles.work]
url = "https://mail.example.com"
token_file = "/etc/work-token"
"""


def profile_add(config: Path, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mailadmin", "profile", "add", *args], input=stdin,
                          capture_output=True, text=True, timeout=60, check=False,
                          env={**os.environ, "MAILADMIN_CONFIG": str(config)})


def plant(config: Path, victim: Path, how: str) -> None:
    """``config`` made a link to ``victim`` that is not the person's own."""
    if how == "another owner":
        if os.getuid() != 0:
            pytest.skip("making a link another user owns needs root")
        config.symlink_to(victim)
        os.lchown(config, 4242, 4242)
    else:  # the victim in a folder others can write: they could swap it for their own
        victim.parent.chmod(0o777)
        config.symlink_to(victim)


@pytest.mark.parametrize("how", ["another owner", "a folder others can write"])
def test_a_config_that_is_a_planted_link_is_refused_and_its_target_left_as_it_was(tmp_path: Path, how: str) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    victim = shared / "victim.toml"
    victim.write_text("x = 1\n")
    victim.chmod(0o644)
    config = tmp_path / "config.toml"
    plant(config, victim, how)
    run = profile_add(config, "p1", "--url", "https://a.example", "--token-stdin", stdin="tok-not-shown\n")
    assert run.returncode == 1
    [line] = run.stderr.splitlines()
    assert str(config) in line and "not written through" in line, line
    assert victim.read_text() == "x = 1\n" and victim.stat().st_mode & 0o777 == 0o644
    assert sorted(path.name for path in tmp_path.iterdir()) == ["config.toml", "shared"]  # no lock made
    assert [path.name for path in shared.iterdir()] == ["victim.toml"]


def test_the_persons_own_link_is_written_through_and_kept(tmp_path: Path) -> None:
    # A config kept in a dotfiles checkout, linked from where mailadmin looks: the person's own link.
    dotfiles = tmp_path / "dotfiles"
    dotfiles.mkdir(mode=0o700)
    kept = private_file(dotfiles / "mailadmin.toml", ON_DISK)
    config = tmp_path / "config.toml"
    config.symlink_to(kept)
    run = profile_add(config, "p1", "--url", "https://a.example")
    assert run.returncode == 0, run.stderr
    assert config.is_symlink() and config.resolve() == kept.resolve()
    assert set(tomllib.loads(kept.read_text())["profiles"]) == {"work", "p1"}
    assert kept.stat().st_mode & 0o777 == 0o600


def test_a_dangling_link_creates_neither_its_target_nor_a_lock(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    shared = tmp_path / "shared"  # a folder MAILADMIN_CONFIG names, where others can plant a link
    shared.mkdir(mode=0o1777)
    config = shared / "config.toml"
    config.symlink_to(elsewhere / "planted.toml")
    run = profile_add(config, "p1", "--url", "https://a.example")
    assert run.returncode == 1 and LINK_NOT_WRITTEN in run.stderr
    assert list(elsewhere.iterdir()) == [] and [path.name for path in shared.iterdir()] == ["config.toml"]


def test_a_link_at_the_lock_path_is_refused_by_name_and_nothing_made_through_it(tmp_path: Path) -> None:
    config = private_file(tmp_path / "config.toml", ON_DISK)
    lock = tmp_path / ".config.toml.lock"
    lock.symlink_to(tmp_path / "made-through-the-lock")
    loaded = Config.load(config)
    loaded.add(Profile(name="new", url="https://new.example.com"))
    with pytest.raises(OSError, match=LINK_NOT_WRITTEN) as refused:
        loaded.save()
    assert refused.value.filename == str(lock)
    assert not (tmp_path / "made-through-the-lock").exists() and config.read_text() == ON_DISK


def test_a_file_others_can_write_now_is_refused_by_the_save_as_at_start(tmp_path: Path) -> None:
    config = private_file(tmp_path / "config.toml", ON_DISK)
    console = Config.load(config)  # read at start, when it was private
    injected = ON_DISK.replace("https://mail.example.com", "https://attacker.example")
    config.write_text(injected)
    config.chmod(0o666)
    console.add(Profile(name="new", url="https://new.example.com"))
    with pytest.raises(ConfigError, match=r"refusing the config file .*: group or others can write it"):
        console.save()
    assert config.read_text() == injected and config.stat().st_mode & 0o777 == 0o666
    with pytest.raises(ConfigError, match="group or others can write it"):
        Config.load(config)  # the same words as at start: one check


def test_a_name_taken_meanwhile_is_refused_and_nothing_changes(tmp_path: Path) -> None:
    config = private_file(tmp_path / "config.toml", ON_DISK)
    console = Config.load(config)
    written_elsewhere(config, Profile(name="late3", url="https://late.example.com"))
    with pytest.raises(ConfigError, match="there is already a profile named 'late3'"):
        console.put(Profile(name="late3", url="https://mine.example.com", token="t"))
    assert tomllib.loads(config.read_text())["profiles"]["late3"]["url"] == "https://late.example.com"
    assert "late3" not in console.profiles  # nothing kept that the file does not hold
    console.put(Profile(name="mine", url="https://mine.example.com", token="t"))
    assert set(console.profiles) == {"work", "late3", "mine"}  # saved, the file as it is now taken in


def test_an_edit_of_a_profile_removed_meanwhile_does_not_bring_it_back(tmp_path: Path) -> None:
    config = private_file(tmp_path / "config.toml", ON_DISK)
    console = Config.load(config)
    written_elsewhere(config, remove="work")
    for new_name in ("work", "renamed"):
        with pytest.raises(ConfigError, match=r"profile 'work' was removed from .* not brought back"):
            console.put(Profile(name=new_name, url="https://edited.example.com", token_file="/t"), replacing="work")
        assert tomllib.loads(config.read_text()).get("profiles", {}) == {}
    assert console.profiles["work"].url == "https://mail.example.com"  # as it was until refreshed


def test_renaming_the_default_profile_keeps_it_the_default(tmp_path: Path) -> None:
    # The edit removed the old name first, which moved the default to another profile: `mailadmin`
    # with no --profile then connected to a server the admin had not chosen.
    config = private_file(tmp_path / "config.toml", 'default = "work"\n[profiles.work]\nurl = "https://a.example.com"\n'
                          'token = "t"\n[profiles.lab]\nurl = "https://b.example.com"\ntoken = "u"\n')
    console = Config.load(config)
    console.put(Profile(name="office", url="https://a.example.com", token="t"), replacing="work")
    assert tomllib.loads(config.read_text())["default"] == "office"


def test_a_rename_of_a_profile_changed_elsewhere_is_held_back_then_written_whole(tmp_path: Path) -> None:
    # The console's rename wrote its copy whole: the URL, token file and allow_http that `profile add` had put there
    # meanwhile were lost. Merged key by key instead, an edit paired one server's URL with another's token file (the
    # tester's). So a profile changed elsewhere is held back, named; saved over it on purpose, it is written whole.
    config = private_file(tmp_path / "config.toml", '[profiles.work]\n# the office server\nurl = "http://a.example"\n'
                          'token = "old-token"\n')
    console = Config.load(config)
    written_elsewhere(config, Profile(name="work", url="http://b.example", token_file="/etc/b-token", allow_http=True))
    theirs = config.read_text()
    mine = dataclasses.replace(console.profiles["work"], name="office", read_only=True)
    with pytest.raises(ProfileChanged) as held:
        console.put(mine, replacing="work")
    assert held.value.changed == ("url (now http://b.example), token (now none), token_file (now /etc/b-token),"
                                  " allow_http (now on)")
    assert config.read_text() == theirs and "office" not in console.profiles
    console.put(mine, replacing="work", over=True)
    assert tomllib.loads(config.read_text())["profiles"] == {"office": {"url": "http://a.example",
                                                                       "token": "old-token", "read_only": True}}
    assert console.profiles["office"].token_file is None


def test_a_rename_or_a_removal_leaves_no_blank_lines_at_the_file_s_start_or_end(tmp_path: Path) -> None:
    # The renamed profile's table carried its blank line to the end of the file; removing the default left one
    # at its start (the tester's).
    config = private_file(tmp_path / "config.toml", 'default = "a"\n\n[profiles.a]\nurl = "https://a.example"\n\n'
                          '[profiles.b]\nurl = "https://b.example"\n\n[profiles.c]\nurl = "https://c.example"\n')
    Config.load(config).put(Profile(name="bb", url="https://b.example"), replacing="b")
    Config.load(config).apply(lambda config: config.remove("a"))
    text = config.read_text()
    assert text == '[profiles.c]\nurl = "https://c.example"\n\n[profiles.bb]\nurl = "https://b.example"\n', repr(text)


def test_saving_a_profile_into_a_file_that_names_no_default_names_none(tmp_path: Path) -> None:
    # An edit from the console wrote `default = "<name>"` into a file that had none, unasked (profile11's note).
    config = private_file(tmp_path / "config.toml", '[profiles.work]\nurl = "https://a.example.com"\ntoken = "t"\n'
                          '[profiles.lab]\nurl = "https://b.example.com"\ntoken = "u"\n')
    console = Config.load(config)
    console.put(Profile(name="lab", url="https://c.example.com", token="u"), replacing="lab")
    console.put(Profile(name="new", url="https://d.example.com", token="v"))
    assert "default" not in tomllib.loads(config.read_text())
    first = Config.load(private_file(tmp_path / "first.toml", ""))
    first.put(Profile(name="only", url="https://e.example.com", token="w"))
    assert tomllib.loads((tmp_path / "first.toml").read_text())["default"] == "only"  # the first is the default


def test_refresh_takes_in_the_file_as_it_is_now_with_unsaved_changes_on_top(tmp_path: Path) -> None:
    config = private_file(tmp_path / "config.toml", ON_DISK)
    console = Config.load(config)
    console.keys["app.quit"] = "ctrl+q"  # a change of its own, not saved yet
    written_elsewhere(config, Profile(name="late3", url="https://late.example.com"), remove="work")
    console.refresh()
    assert set(console.profiles) == {"late3"} and console.keys == {"app.quit": "ctrl+q"}
    console.save()
    stored = tomllib.loads(config.read_text())
    assert set(stored["profiles"]) == {"late3"} and stored["keys"] == {"app.quit": "ctrl+q"}


def test_profile_add_refuses_a_name_holding_a_control_character(tmp_path: Path) -> None:
    config = private_file(tmp_path / "config.toml", ON_DISK)
    run = profile_add(config, "a\x1b[31mb", "--url", "https://a.example")
    assert run.returncode == 1
    assert "the profile name 'a\\u001b[31mb' holds a control or invisible character" in run.stderr
    assert "\x1b" not in run.stderr and config.read_text() == ON_DISK
