"""Ctrl-C during ``import-dmarc`` says what was done before it stopped, on stderr, and exits 130.

The tester's finding: it exited 130 with nothing said, so a person (or cron's mail) could not tell
whether any report was stored or whether to run it again.
"""

from __future__ import annotations

import re
import signal
import threading
from pathlib import Path

import pytest

from jmapclient.models.objects import DMARC_EXTERNAL_REPORT
from jmapclient.outcome import EXIT_INTERRUPTED
from mailadmin.cli import dmarc_cmd
from mailadmin.main import main
from server_stub.runner import StubServer
from tests.support.dmarc_xml import feedback

FILES = 40
"""And one repeat of the first: a duplicate."""


def _reports(folder: Path) -> None:
    for index in range(FILES):
        (folder / f"report-{index:03}.xml").write_bytes(
            feedback(report_id=f"<report_id>interrupted-{index}</report_id>"))
    (folder / "report-000-again.xml").write_bytes(feedback(report_id="<report_id>interrupted-0</report_id>"))


def _ctrl_c_after(files: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Ctrl-C, as the terminal sends it, once ``files`` files are read."""
    counted = dmarc_cmd._FileBar.__call__
    sent: list[int] = []

    def ctrl_c_midway(bar: dmarc_cmd._FileBar, done: int, total: int) -> None:
        counted(bar, done, total)
        # At or past: the parser reads runs of files, so a busy machine may report 18, then 24.
        if done >= files and not sent:
            sent.append(done)
            # To the main thread, where the terminal's key is acted on: raise_signal goes to the calling
            # thread, and this callback may run in the parser's.
            signal.pthread_kill(threading.main_thread().ident or 0, signal.SIGINT)

    monkeypatch.setattr(dmarc_cmd._FileBar, "__call__", ctrl_c_midway)


def test_ctrl_c_says_how_many_reports_were_stored_before_it_stopped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _reports(tmp_path)
    _ctrl_c_after(20, monkeypatch)
    with StubServer(reports=0) as server:
        argv = ["import-dmarc", str(tmp_path), "--url", server.base_url, "--token", server.admin_token]
        assert main(argv) == EXIT_INTERRUPTED
        held = server.store.count(DMARC_EXTERNAL_REPORT)
    out, err = capsys.readouterr()
    assert out == ""  # no summary of a finished import
    said = re.search(rf"import-dmarc interrupted after (\d+) of {FILES + 1} files: (\d+) reports stored"
                     r"(?: \((\d+) more were on their way: the server may have stored them\))?, 1 duplicates, "
                     r"0 rejected; importing the same files again stores the rest", err)
    assert said, err
    assert "(Ctrl-C)" not in err, "said once, with its counts: no second, bare line"
    read, stored, on_the_way = int(said[1]), int(said[2]), int(said[3] or 0)
    # At or past the 20th file: the key cancels the import at its next wait, and when every file parsed was ready
    # the reading ran on to the last one first (a CI run read 41 of 41; its uploads were still on their way).
    assert 20 <= read <= FILES + 1
    assert stored + on_the_way == read - 1  # every report read is stored or on its way, the repeat aside
    assert stored <= held <= stored + on_the_way  # what the server holds: at least what it said it stored


def test_ctrl_c_in_a_dry_run_says_what_would_be_imported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _reports(tmp_path)
    _ctrl_c_after(5, monkeypatch)
    assert main(["import-dmarc", "--dry-run", str(tmp_path)]) == EXIT_INTERRUPTED
    said = re.search(rf"import-dmarc interrupted after (\d+) of {FILES + 1} files: (\d+) would be imported, "
                     r"1 duplicates, 0 rejected \(a dry run: nothing was sent\)", capsys.readouterr().err)
    assert said and int(said[2]) == int(said[1]) - 1


def test_a_stop_before_the_files_or_at_a_refusing_server_is_said_so() -> None:
    from jmapclient.dmarc.importing import ImportOutcome

    bar = dmarc_cmd._FileBar()
    assert dmarc_cmd.interrupted_line(ImportOutcome(), bar, dry_run=False) == (
        "import-dmarc interrupted before any file was read: nothing was imported")
    bar(0, 10)
    bar(3, 10)
    refused = ImportOutcome(refused="Reports cannot be created", stored=0)
    assert dmarc_cmd.interrupted_line(refused, bar, dry_run=False) == (
        "import-dmarc interrupted after 3 of 10 files: 0 reports stored, 0 duplicates, 0 rejected; "
        "the server refused the rest: Reports cannot be created")
