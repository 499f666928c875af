"""``mailadmin completion bash|zsh`` and ``mailadmin manpage`` (issue #30): made from the parser,
every subcommand's arguments included (they are declared lazily, on first use)."""

from __future__ import annotations

import shutil
import subprocess
from datetime import date
from pathlib import Path

import pytest

from jmapclient.outcome import EXIT_CODES
from mailadmin.main import main

COMMANDS = ("get", "create", "query", "update", "delete", "describe", "profile", "import-dmarc", "export-dmarc",
            "dmarc-advice", "snapshot", "apply", "demo", "completion", "manpage")


def printed(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    assert main(list(argv)) == 0
    return capsys.readouterr().out


def complete(script: Path, *words: str) -> list[str]:
    """What bash offers after ``words`` (the last one being typed), through the installed script."""
    line = " ".join(words)
    program = (
        f"source {script}\n"
        f"COMP_WORDS=({line}); COMP_CWORD={len(words) - 1}; COMP_LINE='{line}'; COMP_POINT=${{#COMP_LINE}}\n"
        "_shtab_mailadmin; printf '%s\\n' \"${COMPREPLY[@]}\"\n"
    )
    done = subprocess.run(["bash", "-c", program], capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


def test_bash_completion_completes_commands_and_lazily_declared_flags(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    script = tmp_path / "mailadmin.bash"
    script.write_text(printed(capsys, "completion", "bash"))
    assert complete(script, "mailadmin", "sna") == ["snapshot"]
    assert complete(script, "mailadmin", "snapshot", "--inc") == ["--include-secrets"]
    assert complete(script, "mailadmin", "dmarc-advice", "--s") == ["--since-last"]
    assert set(COMMANDS) <= set(complete(script, "mailadmin", ""))


def test_zsh_completion_is_a_compdef_script(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    text = printed(capsys, "completion", "zsh")
    assert text.startswith("#compdef mailadmin")
    assert "--include-secrets" in text and "--since-last" in text
    if shutil.which("zsh"):
        (tmp_path / "_mailadmin").write_text(text)
        assert subprocess.run(["zsh", "-n", str(tmp_path / "_mailadmin")], timeout=30).returncode == 0


def test_an_unknown_shell_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["completion", "fish"]) == 2


def test_the_man_page_lists_every_command_its_flags_and_the_exit_codes(capsys: pytest.CaptureFixture[str],
                                                                       tmp_path: Path) -> None:
    page = printed(capsys, "manpage").replace("\\-", "-")  # roff's escaped hyphen
    assert page.startswith(".TH MAILADMIN")
    for command in COMMANDS:
        assert f"mailadmin {command}" in page, command
    assert "include-secrets" in page and "since-last" in page
    status = page.split(".SH EXIT STATUS", 1)[1].split(".SH", 1)[0]
    assert [line.removeprefix(".B ") for line in status.splitlines() if line.startswith(".B ")] == [
        str(code) for code, _ in EXIT_CODES]
    if shutil.which("groff"):
        source = tmp_path / "mailadmin.1"
        source.write_text(page)
        done = subprocess.run(["groff", "-man", "-Tutf8", "-ww", "-z", str(source)], capture_output=True,
                              text=True, timeout=30)
        assert done.returncode == 0 and done.stderr == "", done.stderr


def test_the_page_carries_no_date_of_the_day(capsys: pytest.CaptureFixture[str]) -> None:
    """The same release makes the same page, whenever it is made."""
    header = printed(capsys, "manpage").splitlines()[0]
    assert date.today().isoformat() not in header and "version " in header
