"""Profile names are trimmed and compared in one Unicode form, as URLs and tokens are trimmed (tester89 F7).

"prod" and "prod ", or "café" typed with a combining accent and with é, were kept as two profiles, listed alike and
pointing at different servers: a script's ``--profile "$NAME"`` with a trailing space reached the other one.
"""

from __future__ import annotations

import tomllib
import unicodedata
from pathlib import Path

import pytest

from jmapclient.config import Config, ConfigError, Profile
from jmapclient.connection import ConnectionRequest, resolve
from mailadmin.main import main
from tests.support.config_files import private_file

DECOMPOSED = unicodedata.normalize("NFD", "café")
COMPOSED = unicodedata.normalize("NFC", "café")


def add(name: str, url: str) -> int:
    return main(["profile", "add", name, "--url", url, "--token", "API_t"])


def stored_profiles(config: Path) -> dict[str, dict[str, object]]:
    return tomllib.loads(config.read_text())["profiles"]


@pytest.mark.parametrize(("first", "second", "stored"), [("prod", "prod ", "prod"), (" prod\t", "prod", "prod"),
                                                         (DECOMPOSED, COMPOSED, COMPOSED),
                                                         (COMPOSED, f"{DECOMPOSED} ", COMPOSED)],
                         ids=["a space after", "white space around", "decomposed then composed", "composed then not"])
def test_names_that_differ_only_so_name_one_profile(isolated_config: Path, capsys: pytest.CaptureFixture[str],
                                                    first: str, second: str, stored: str) -> None:
    assert first != second and add(first, "https://one.example") == 0
    assert add(second, "https://two.example") == 0
    assert capsys.readouterr().out.splitlines()[-1].startswith(f"replaced profile {stored} (")
    assert stored_profiles(isolated_config) == {stored: {"url": "https://two.example", "token": "API_t"}}


@pytest.mark.parametrize("typed", ["prod ", " prod", DECOMPOSED, f" {COMPOSED}\n"])
def test_a_profile_named_with_white_space_or_another_form_is_the_one_of_that_name(isolated_config: Path,
                                                                                  typed: str) -> None:
    name = "prod" if "prod" in typed else COMPOSED
    assert add(name, "https://named.example") == 0 and add("other", "https://other.example") == 0
    connection = resolve(ConnectionRequest(profile=typed, environ={}))
    assert (connection.url, connection.profile) == ("https://named.example", name)
    assert main(["profile", "default", typed]) == 0 and Config.load().default == name
    assert main(["profile", "remove", typed]) == 0 and set(stored_profiles(isolated_config)) == {"other"}


def test_a_file_holding_two_such_names_is_refused_until_one_is_removed(isolated_config: Path,
                                                                       capsys: pytest.CaptureFixture[str]) -> None:
    # Written by an earlier version, or by hand: which one a typed name means would be a guess.
    isolated_config.parent.mkdir(mode=0o700)
    private_file(isolated_config, '[profiles.prod]\nurl = "https://prod.example"\ntoken = "A"\n'
                                  '[profiles."prod "]\nurl = "https://test.example"\ntoken = "B"\n')
    for typed in ("prod", "prod "):
        with pytest.raises(ConfigError, match=r"profiles 'prod', 'prod ' in .* differ only by white space"):
            resolve(ConnectionRequest(profile=typed, environ={}))
    assert main(["profile", "remove", "prod "]) == 0  # the exact spelling removes that one
    assert stored_profiles(isolated_config) == {"prod": {"url": "https://prod.example", "token": "A"}}
    assert resolve(ConnectionRequest(profile="prod ", environ={})).url == "https://prod.example"


def test_the_console_form_refuses_a_new_profile_whose_name_is_taken_so(tmp_path: Path) -> None:
    config = Config(path=tmp_path / "config.toml")
    config.put(Profile(name=COMPOSED, url="https://one.example", token="t"))
    with pytest.raises(ConfigError, match=f"there is already a profile named '{COMPOSED}'"):
        config.put(Profile(name=f"{DECOMPOSED} ", url="https://two.example", token="t"))
    assert set(Config.load(tmp_path / "config.toml").profiles) == {COMPOSED}
