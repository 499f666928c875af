"""`profile add` over a profile replaces its whole table, and makes no profile the default unasked (tester89 F10).

The keys this version does not know (a newer version's ``client_cert``, ``proxy``) were kept in the replaced
profile: the old server's settings, next to the new server's URL. And a file that named no default had one after
the replace: commands without ``--profile`` that had failed then connected. Other profiles keep their unknown keys.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

from jmapclient.config import Config, Profile
from mailadmin.main import main
from tests.support.config_files import private_file

OLD = """\
[profiles.s]
url = "https://old.example"
token = "OLD"
client_cert = "/home/me/old-server-client.pem"
proxy = "socks5://127.0.0.1:9050"
"""
OTHER = """
[profiles.other]
url = "https://other.example"
token = "O"
proxy = "socks5://127.0.0.1:9051"
"""


def config_file(isolated_config: Path, text: str) -> Path:
    isolated_config.parent.mkdir(mode=0o700)
    return private_file(isolated_config, text)


def test_profile_add_over_a_profile_replaces_its_whole_table_and_keeps_the_others(isolated_config: Path) -> None:
    config = config_file(isolated_config, OLD + OTHER)
    assert main(["profile", "add", "s", "--url", "https://new.example", "--token", "NEW"]) == 0
    stored = tomllib.loads(config.read_text())
    assert stored["profiles"]["s"] == {"url": "https://new.example", "token": "NEW"}
    assert stored["profiles"]["other"]["proxy"] == "socks5://127.0.0.1:9051"  # another profile's: kept
    assert "default" not in stored


def test_replacing_the_only_profile_of_a_file_with_no_default_names_none(isolated_config: Path) -> None:
    config = config_file(isolated_config, OLD)
    assert main(["profile", "add", "s", "--url", "https://new.example", "--token", "NEW"]) == 0
    assert "default" not in tomllib.loads(config.read_text())
    assert main(["query", "Directory"]) == 1  # as before the replace: no server was chosen
    Config.load(config).put(Profile(name="renamed", url="https://new.example", token="NEW"), replacing="s")
    assert "default" not in tomllib.loads(config.read_text())  # a rename from the console neither


def test_the_first_profile_added_is_still_the_default(isolated_config: Path) -> None:
    assert main(["profile", "add", "first", "--url", "https://first.example", "--token", "F"]) == 0
    assert main(["profile", "add", "first", "--url", "https://again.example", "--token", "F"]) == 0
    assert main(["profile", "add", "second", "--url", "https://second.example", "--token", "S"]) == 0
    assert tomllib.loads(isolated_config.read_text())["default"] == "first"
