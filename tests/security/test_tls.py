"""TLS against a server whose certificate a private CA made in the test signed.

Verified with --ca-file (or a profile's ca_file); refused without it, with a message that names
the two ways out; accepted with --insecure, which warns on every connection.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from jmapclient.models.objects import DIRECTORY
from jmapclient.outcome import EXIT_NETWORK
from mailadmin.main import main
from tests.support.env_login import token_in_env
from tests.support.tls import PrivateCa, TlsStub, make_ca


@pytest.fixture(scope="module")
def ca(tmp_path_factory: pytest.TempPathFactory) -> PrivateCa:
    return make_ca(tmp_path_factory.mktemp("ca"))


@pytest.fixture(scope="module")
def server(ca: PrivateCa) -> Iterator[TlsStub]:
    with TlsStub(ca) as running:
        yield running


def query(server: TlsStub, capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, str, str]:
    with token_in_env(server.admin_token):
        code = main(["query", "Directory", "--ids-only", "--timeout", "10", "--url", server.base_url, *extra])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_the_private_ca_file_verifies_the_server_without_a_word(server, ca, capsys) -> None:
    code, out, err = query(server, capsys, "--ca-file", str(ca.ca_file))
    assert (code, err) == (0, "")
    assert set(out.split()) == set(server.stub.store.all_ids(DIRECTORY))


def test_without_the_ca_the_server_is_refused_naming_ca_file_and_insecure(server, capsys) -> None:
    code, out, err = query(server, capsys)
    assert (code, out) == (EXIT_NETWORK, "")  # a TLS failure: the network class of failures
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: cannot reach the server at https://127.0.0.1:")
    assert "certificate" in lines[0] and "--ca-file" in lines[0] and "--insecure" in lines[0]
    assert "Traceback" not in err


@pytest.mark.parametrize("flag", ["--insecure", "-k"])
def test_insecure_connects_and_says_so(server, capsys, flag: str) -> None:
    code, out, err = query(server, capsys, flag)
    assert code == 0 and out.split()
    assert err.splitlines() == [
        "warning: TLS certificate of 127.0.0.1 NOT verified (--insecure): anyone in between can read the token"
    ]


def test_a_profile_ca_file_is_trusted_for_that_server_only(server, ca, capsys, tmp_path: Path) -> None:
    token = tmp_path / "token"
    token.write_text(server.admin_token)
    token.chmod(0o600)
    assert main(["profile", "add", "lab", "--url", server.base_url, "--token-file", str(token),
                 "--ca-file", str(ca.ca_file)]) == 0
    capsys.readouterr()
    assert main(["query", "Directory", "--ids-only", "--timeout", "10"]) == 0
    assert capsys.readouterr().err == ""


def test_a_profile_insecure_warns_on_every_connection(server, capsys, tmp_path: Path) -> None:
    token = tmp_path / "token"
    token.write_text(server.admin_token)
    token.chmod(0o600)
    assert main(["profile", "add", "lab", "--url", server.base_url, "--token-file", str(token), "--insecure"]) == 0
    capsys.readouterr()
    for _ in range(2):
        assert main(["query", "Directory", "--ids-only", "--timeout", "10"]) == 0
        assert "NOT verified" in capsys.readouterr().err


def test_a_ca_file_that_is_not_a_certificate_is_one_error_line(server, capsys, tmp_path: Path) -> None:
    bogus = tmp_path / "ca.pem"
    bogus.write_text("not a certificate\n")
    code, out, err = query(server, capsys, "--ca-file", str(bogus))
    assert (code, out) == (1, "")
    assert err == f"error: cannot use the CA file {bogus}: not a PEM certificate\n"


def test_profile_list_says_which_profiles_skip_or_widen_verification(ca, capsys, tmp_path) -> None:
    token = tmp_path / "token"
    token.write_text("API_token\n")
    token.chmod(0o600)
    assert main(["profile", "add", "lab", "--url", "https://lab.example", "--token-stdin", "-k"],
                transport=None) == 1  # no token on standard input: nothing saved
    capsys.readouterr()
    assert main(["profile", "add", "lab", "--url", "https://lab.example", "--token-file", str(token), "-k"]) == 0
    assert main(["profile", "add", "corp", "--url", "https://corp.example", "--token-file", str(token),
                 "--ca-file", str(ca.ca_file)]) == 0
    capsys.readouterr()
    assert main(["profile", "list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    lab, corp = (next(line for line in lines if f" {name} " in line) for name in ("lab", "corp"))
    assert lab.rstrip().endswith("TLS NOT verified")
    assert corp.rstrip().endswith(f"CA {ca.ca_file}")
