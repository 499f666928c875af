"""A profile this version cannot read is skipped, said, and kept; the others still work (tester89 F8).

One profile written by a newer version (``urls = [...]`` in place of ``url``) stopped every command that read the
file, the default profile's too, and ``profile remove`` of that very profile, with an error that did not name the file.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from mailadmin.main import main
from server_stub.runner import StubServer
from tests.support.config_files import private_file

FUTURE = '[profiles.future]\nurls = ["https://a.example", "https://b.example"]\ntoken = "x"\n'


@pytest.fixture
def config(isolated_config: Path, stub_server: StubServer) -> Path:
    isolated_config.parent.mkdir(mode=0o700)
    return private_file(isolated_config, f'default = "good"\n[profiles.good]\nurl = "{stub_server.base_url}"\n'
                                         f'token = "{stub_server.admin_token}"\n\n{FUTURE}')


def profiles_in(config: Path) -> dict[str, object]:
    return tomllib.loads(config.read_text())["profiles"]


def skipped_warning(config: Path, err: str) -> None:
    [line] = [line for line in err.splitlines() if "future" in line]
    assert line.startswith(f"warning: profile 'future' in {config} is skipped: it has no url"), line
    assert "mailadmin profile remove future" in line


def test_the_others_are_used_and_listed_with_a_warning_naming_the_file(config: Path,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["query", "Directory", "--ids-only"]) == 0  # the default, as if the other were not there
    said = capsys.readouterr()
    assert said.out.split()
    skipped_warning(config, said.err)
    assert main(["profile", "list"]) == 0
    said = capsys.readouterr()
    assert "good" in said.out and "future" not in said.out
    skipped_warning(config, said.err)


@pytest.mark.parametrize("how", ["--profile", "default"])
def test_using_the_unreadable_profile_is_an_error_naming_the_file(config: Path, how: str,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    if how == "default":
        config.write_text(config.read_text().replace('default = "good"', 'default = "future"'))
    assert main(["query", "Directory", *(["--profile", "future"] if how == "--profile" else [])]) == 1
    [line] = capsys.readouterr().err.splitlines()
    assert line.startswith(f"error: cannot use profile 'future' in {config}: it has no url"), line


def test_other_saves_keep_it_as_it_is_and_remove_takes_it_away(config: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    future = profiles_in(config)["future"]
    assert main(["profile", "add", "other", "--url", "https://other.example", "--token", "API_o"]) == 0
    assert profiles_in(config)["future"] == future and FUTURE in config.read_text()
    assert main(["profile", "remove", "future"]) == 0
    assert set(profiles_in(config)) == {"good", "other"} and "removed profile future" in capsys.readouterr().out


def test_adding_its_name_replaces_it(config: Path) -> None:
    assert main(["profile", "add", "future", "--url", "https://new.example", "--token", "API_n"]) == 0
    assert profiles_in(config)["future"] == {"url": "https://new.example", "token": "API_n"}
    assert main(["profile", "list"]) == 0
