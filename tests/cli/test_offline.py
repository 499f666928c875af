"""describe, rendering, connection precedence and profiles: everything that needs no server."""

from __future__ import annotations

import io
import json
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from jmapclient.config import Config, ConfigError
from jmapclient.connection import ConnectionRequest, resolve
from jmapclient.models import LdapDirectory
from jmapclient.models.introspect import field_by_wire, fields_of
from jmapclient.models.objects import DIRECTORY, OBJECT_TYPES, object_type
from mailadmin.cli.progress import Progress
from mailadmin.cli.render import display_value, mask_secrets, object_lines
from mailadmin.main import main

REPO = Path(__file__).resolve().parents[2]


def test_importing_the_cli_does_not_load_textual():
    check = "import sys, mailadmin.cli; assert not {'textual', 'tui'} & set(sys.modules), 'UI loaded'"
    subprocess.run([sys.executable, "-c", check], cwd=REPO, check=True, timeout=60)


# --- describe ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["directory", "x:DmarcExternalReport"])
def test_describe_lists_every_declared_field_with_label_and_default(name, capsys):
    assert main(["describe", name]) == 0
    text = capsys.readouterr().out
    object_type = next(t for t in OBJECT_TYPES.values() if t.name.lower() == name.removeprefix("x:").lower())
    for model in object_type.variants.values() or [object_type.annotation]:
        for spec in fields_of(model):
            line = next((ln for ln in text.splitlines() if ln.startswith(spec.wire + " ")), None)
            assert line is not None, spec.wire
            assert spec.label in line
    for condition in object_type.filters:
        assert condition.name in text


def test_describe_directory_shows_nested_variants_bounds_durations_and_flags(capsys):
    assert main(["describe", "Directory"]) == 0
    text = capsys.readouterr().out
    lines = text.splitlines()
    assert "bindSecret @type Value:" in text
    assert "store @type PostgreSql:" in text
    assert any(ln.startswith("secret ") and ln.rstrip().endswith("secret") for ln in lines)
    pool = next(ln for ln in lines if ln.startswith("poolMaxConnections "))
    assert "0 to 8192" in pool and " 10 " in pool
    timeout = next(ln for ln in lines if ln.startswith("timeout "))
    assert "duration" in timeout and "30s" in timeout
    tenant = next(ln for ln in lines if ln.startswith("memberTenantId "))
    assert "enterprise" in tenant
    port = next(ln for ln in lines if ln.startswith("port "))
    assert "1 to 65535" in port


def test_describe_report_filters_show_operators(capsys):
    assert main(["describe", "DmarcExternalReport"]) == 0
    lines = capsys.readouterr().out.splitlines()
    failed = next(ln for ln in lines if ln.startswith("totalFailedSessions "))
    assert "= > >= < <=" in failed
    domain = next(ln for ln in lines if ln.startswith("domain ") and "text" in ln)
    assert ">" not in domain


def test_describe_json_matches_the_models(capsys):
    assert main(["describe", "Directory", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    ldap = next(v for v in data["variants"] if v["@type"] == "Ldap")
    assert [f["wire"] for f in ldap["fields"]] == [s.wire for s in fields_of(LdapDirectory)]
    pool = next(f for f in ldap["fields"] if f["wire"] == "poolMaxConnections")
    assert (pool["minimum"], pool["maximum"], pool["default"]) == (0, 8192, 10)
    assert "SecretValue" in {t["name"] for t in data["types"]}


def test_describe_of_one_variant_describes_that_variant_only(capsys):
    # `describe Directory/Oidc` printed all three (the tester's).
    assert main(["describe", "Directory/sql"]) == 0
    text = capsys.readouterr().out
    assert "Directory/Sql:" in text and "store @type PostgreSql:" in text
    assert "Directory/Ldap:" not in text and "Directory/Oidc:" not in text and "bindSecret @type" not in text
    assert main(["describe", "Directory/Oidc", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [v["@type"] for v in data["variants"]] == ["Oidc"]
    assert "SecretValue" not in {t["name"] for t in data["types"]}


def test_describe_all_lists_objects(capsys):
    assert main(["describe"]) == 0
    text = capsys.readouterr().out
    assert "Directory" in text and "Ldap, Sql, Oidc" in text and "DmarcExternalReport" in text


# --- rendering --------------------------------------------------------------------------------------


def test_secrets_are_masked_whatever_the_server_sends():
    leaked = {"@type": "Ldap", "id": "a", "description": "d", "baseDn": "b", "timeout": 30000,
              "bindSecret": {"@type": "Value", "secret": "hunter2"}}
    masked = mask_secrets(LdapDirectory, leaked)
    assert masked["bindSecret"] == {"@type": "Value", "secret": "****"}
    assert leaked["bindSecret"]["secret"] == "hunter2"  # the input is not changed
    text = "\n".join(object_lines(LdapDirectory, leaked))
    assert "hunter2" not in text
    assert "Value (secret ****)" in text
    assert "30s" in text  # durations for people


def test_display_value_by_kind():
    assert display_value(field_by_wire(LdapDirectory, "poolTimeoutWait"), 90_000) == "1m30s"
    assert display_value(field_by_wire(LdapDirectory, "attrEmail"), {"mail": True, "alt": True}) == "mail, alt"
    assert display_value(field_by_wire(LdapDirectory, "useTls"), False) == "false"
    assert display_value(field_by_wire(LdapDirectory, "bindDn"), None) == ""


# --- connection ---------------------------------------------------------------------------------------


def _add_profile(*extra: str) -> int:
    return main(["profile", "add", "prod", "--url", "https://mail.example", "--token", "s3cret-token", *extra])


def test_profile_file_is_owner_only_and_tokens_are_never_listed(isolated_config, capsys):
    assert _add_profile("--read-only") == 0
    assert stat.S_IMODE(isolated_config.stat().st_mode) == 0o600
    assert main(["profile", "list"]) == 0
    assert main(["profile", "list", "--json"]) == 0
    out = capsys.readouterr().out
    assert "s3cret-token" not in out
    assert "https://mail.example" in out and "stored" in out
    listed = json.loads(out.strip().splitlines()[-1])
    assert listed == {"name": "prod", "url": "https://mail.example", "token": "stored", "readOnly": True,
                      "default": True, "caFile": None, "insecure": False, "allowHttp": False}
    assert Config.load().profiles["prod"].read_only is True


def test_profile_remove(isolated_config, capsys):
    assert _add_profile() == 0
    assert main(["profile", "remove", "prod"]) == 0
    assert Config.load().profiles == {}
    assert main(["profile", "remove", "prod"]) == 1
    assert "error: no profile named 'prod'" in capsys.readouterr().err


def test_removing_the_default_profile_leaves_none_and_says_so(isolated_config, capsys):
    # The tester's finding: removing the default quietly made another profile the default, and a later
    # `mailadmin delete` with no --profile went to a server no one had chosen.
    for name in ("zed", "alpha", "mid"):
        assert main(["profile", "add", name, "--url", f"https://{name}.example", "--token", "t"]) == 0
    assert Config.load().default == "zed"
    capsys.readouterr()
    assert main(["profile", "remove", "zed"]) == 0
    said = capsys.readouterr()
    assert said.out == "removed profile zed\n" and "no profile is the default now" in said.err
    assert Config.load().default is None
    assert main(["query", "Directory"]) == 1
    assert "no profile is the default (`mailadmin profile default NAME` names one" in capsys.readouterr().err
    assert main(["profile", "default", "mid"]) == 0
    assert Config.load().default == "mid" and capsys.readouterr().out == "default profile: mid\n"
    assert main(["profile", "default", "zed"]) == 1 and "no profile named 'zed'" in capsys.readouterr().err
    assert main(["profile", "remove", "alpha"]) == 0 and "default" not in capsys.readouterr().err


def test_profile_add_with_unreadable_token_file_fails(tmp_path, capsys):
    code = main(["profile", "add", "p", "--url", "http://x", "--token-file", str(tmp_path / "missing")])
    assert code == 1
    assert "cannot read the token file" in capsys.readouterr().err


def test_precedence_flags_over_env_over_profile(tmp_path):
    assert _add_profile() == 0
    token_file = tmp_path / "token"
    token_file.write_text("from-file\n")
    env = {"MAILADMIN_URL": "https://env.example", "MAILADMIN_TOKEN": "from-env"}
    default = resolve(ConnectionRequest(environ={}))
    assert (default.url, default.token, default.profile) == ("https://mail.example", "s3cret-token", "prod")
    from_env = resolve(ConnectionRequest(environ=env))
    assert (from_env.url, from_env.token) == ("https://env.example", "from-env")
    flags = resolve(ConnectionRequest(url="https://flag.example", token_file=str(token_file), profile="prod",
                    timeout=5, environ=env))
    assert (flags.url, flags.token, flags.timeout) == ("https://flag.example", "from-file", 5)
    assert "from-file" not in repr(flags)


def test_a_profile_token_is_not_sent_to_another_url():
    assert _add_profile() == 0
    with pytest.raises(ConfigError, match="no token given for https://elsewhere"):
        resolve(ConnectionRequest(url="https://elsewhere", environ={}))


def test_no_server_configured_is_a_clear_error(capsys):
    assert main(["query", "Directory"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: no server given")


def test_object_types_are_hashable_constants():
    # Caches keyed by object type (the stub's property tables) need this.
    assert {DIRECTORY: 1}[object_type("directory")] == 1


def test_progress_bar_only_for_a_terminal_and_counts_up():
    stream = io.StringIO()
    seconds = iter(range(100))  # a second between files: a run slow enough to be shown (mailadmin.cli.progress)
    bar = Progress(4, "files", stream, clock=lambda: float(next(seconds)))
    for _ in range(4):
        bar.advance()
    bar.close()
    frames = stream.getvalue().split("\r")
    assert frames[-1].startswith("[" + "#" * 30 + "] 4/4 files")
    assert "] 2/4 files" in frames[2]
    assert Progress.maybe(1000, "files") is None  # stderr is not a terminal under pytest


# A bracketed host that is no IP address, or a port out of range, made urlsplit raise
# ValueError: the console's profile form crashed on `http://[@click=app.quit]/` (exploration).
@pytest.mark.parametrize("url", ["notaurl", "http://[@click=app.quit]/", "http://[::1", "https://mail.example.com:99999",
                                 "http://127.0.0.1:x/"])
def test_profile_add_refuses_a_url_that_is_no_server_url(
    url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("MAILADMIN_CONFIG", str(tmp_path / "config.toml"))
    assert main(["profile", "add", "bad", "--url", url, "--token", "t"]) == 1
    assert "is not a server URL" in capsys.readouterr().err
    assert not (tmp_path / "config.toml").exists()
    assert main(["profile", "add", "good", "--url", "https://mail.example.com", "--token", "t"]) == 0
