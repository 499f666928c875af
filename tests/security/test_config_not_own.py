"""A config file is used only when it is the person's alone, as a config that is a link is (tester89).

A regular file another user wrote (0644, so its mode passed), or one in a folder others can write into, was read and
used without a word: the planted profile became the default, and the person's own token file, which it named, was
sent to the server it named. A save merged into it, kept its default and made it the person's (0600). The same rule
holds for the files a profile names: a token, password or CA file another user owns is refused (root's is a system
file, and may be used by others than root).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from jmapclient.config import Config, ConfigError, Profile
from jmapclient.transport_security import TransportSecurity
from mailadmin.main import main
from tests.support.config_files import private_file

ANOTHER_USER = 4242

PLANTED = """\
default = "work"
[profiles.work]
url = "https://attacker.example"
token_file = "{token}"
"""


def as_root() -> None:
    if os.getuid() != 0:
        pytest.skip("giving a file to another user needs root")


def planted_config(folder: Path, token: Path) -> Path:
    """A config another user wrote into ``folder``, naming the person's own token file."""
    config = folder / "config.toml"
    config.write_text(PLANTED.format(token=token))
    config.chmod(0o644)
    os.chown(config, ANOTHER_USER, ANOTHER_USER)
    return config


def the_persons_token(tmp_path: Path) -> Path:
    return private_file(tmp_path / "mytoken", "SECRET-TOKEN-xyz\n")


@pytest.fixture
def config_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "config"
    folder.mkdir(mode=0o700)
    monkeypatch.setenv("MAILADMIN_CONFIG", str(folder / "config.toml"))
    return folder


def one_error_line(capsys: pytest.CaptureFixture[str]) -> str:
    said = capsys.readouterr()
    [line] = said.err.splitlines()
    assert "SECRET-TOKEN" not in said.out + said.err
    return line


def test_a_config_another_user_owns_is_refused_by_every_command(config_folder: Path, tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    as_root()
    token = the_persons_token(tmp_path)
    config = planted_config(config_folder, token)
    planted = config.read_text()
    for command in (["profile", "list"], ["query", "Directory"],
                    ["profile", "add", "mine", "--url", "https://mine.example", "--token-file", str(token)]):
        assert main(command) == 1
        line = one_error_line(capsys)
        assert f"refusing the config file {config}: it belongs to another user" in line and "chown" in line, line
    # Not taken over: still theirs, as they wrote it (a save had made it 0600 and the person's, their default kept).
    assert config.read_text() == planted and config.stat().st_uid == ANOTHER_USER
    assert config.stat().st_mode & 0o777 == 0o644


@pytest.mark.parametrize("mode", [0o777, 0o770, 0o1777], ids=["0777", "0770", "sticky 1777"])
def test_a_config_in_a_folder_others_can_write_is_refused_and_not_saved(config_folder: Path,
                                                                        mode: int) -> None:
    # The person's own file (0600), where anyone may put theirs in its place at any time.
    config = private_file(config_folder / "config.toml", '[profiles.own]\nurl = "https://own.example"\n')
    config_folder.chmod(mode)
    with pytest.raises(ConfigError, match=f"refusing the config file {config}: the config folder {config_folder} "
                                          "can be written by group or others") as refused:
        Config.load(config)
    # A shared folder like /tmp (sticky) is not to be chmodded: the fix named is another folder.
    assert ("chmod go-w" in str(refused.value)) == (not mode & 0o1000), refused.value
    config_folder.chmod(0o700)
    mine = Config.load(config)
    config_folder.chmod(mode)
    mine.add(Profile(name="new", url="https://new.example"))
    with pytest.raises(ConfigError, match="can be written by group or others"):
        mine.save()
    assert "new" not in config.read_text()


def test_no_config_is_made_in_a_folder_others_can_write(config_folder: Path) -> None:
    config_folder.chmod(0o777)
    config = Config.load(config_folder / "config.toml")  # nothing there yet: nothing read, nothing refused
    config.add(Profile(name="new", url="https://new.example", token="API_new"))
    with pytest.raises(ConfigError, match="can be written by group or others"):
        config.save()
    assert list(config_folder.iterdir()) == []


def test_a_config_in_a_folder_another_user_owns_is_refused(config_folder: Path) -> None:
    as_root()
    config = private_file(config_folder / "config.toml", '[profiles.own]\nurl = "https://own.example"\n')
    os.chown(config_folder, ANOTHER_USER, ANOTHER_USER)  # they may replace the person's file in it
    with pytest.raises(ConfigError, match=f"refusing the config file {config}: its folder {config_folder} "
                                          "belongs to another user"):
        Config.load(config)


@pytest.mark.parametrize("key", ["token_file", "password_file", "ca_file"])
def test_a_file_a_profile_names_that_another_user_owns_is_refused(tmp_path: Path, key: str) -> None:
    as_root()
    named = the_persons_token(tmp_path)

    def use() -> None:
        if key == "ca_file":
            TransportSecurity(ca_file=str(named)).verify()
        else:
            user = "admin" if key == "password_file" else None
            Profile(name="own", url="https://own.example", user=user, **{key: str(named)}).check_files()

    os.chown(named, ANOTHER_USER, ANOTHER_USER)
    with pytest.raises(ConfigError, match=f"refusing the .*file {named}: it belongs to another user"):
        use()
    os.chown(named, 0, 0)  # root's own, as a process run by root needs
    try:
        use()
    except ConfigError as error:  # the test's token is no PEM certificate: that, and not its owner, is said
        assert "another user" not in str(error)
