"""A symbolic link planted in a report folder is never followed (the folder is often filled by others).

``import-dmarc /var/reports`` read ``/var/reports/x.xml → /etc/passwd`` and said only that it held no
report. A link inside a folder is now refused, at the open itself, and named in the summary; so is a link
named on the command line (a glob names the planted ones too), to a folder as to a file.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from jmapclient.dmarc import iter_report_files, load_file
from jmapclient.dmarc.folders import FOLDER_REPLACED, FoundInFolder
from jmapclient.dmarc.importing import import_reports
from jmapclient.file_safety import LINK_NOT_FOLLOWED
from jmapclient.folder_steps import PLANTED_ON_THE_WAY
from tests.support.clock import FROZEN_NOW
from tests.support.dmarc_xml import feedback


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """A report folder with one report, a link to a report outside it, and a linked folder of reports."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.xml").write_bytes(feedback())
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    (inbox / "real.xml").write_bytes(feedback())
    (inbox / "planted.xml").symlink_to(outside / "secret.xml")
    (inbox / "planted-folder").symlink_to(outside)
    return inbox


def test_links_in_a_folder_are_listed_and_refused_unread(folder: Path) -> None:
    listed = sorted(iter_report_files([folder]))
    assert [path.name for path in listed] == ["planted-folder", "planted.xml", "real.xml"]  # not walked into
    outcomes = {path.name: load_file(path, now=FROZEN_NOW) for path in listed}
    assert outcomes["real.xml"].ok
    for name in ("planted.xml", "planted-folder"):
        assert (outcomes[name].status, outcomes[name].reason) == ("rejected", "a symbolic link, not followed")


def test_a_link_swapped_in_after_the_listing_is_refused_at_the_open(folder: Path) -> None:
    [real] = [path for path in iter_report_files([folder]) if path.name == "real.xml"]
    assert isinstance(real, FoundInFolder)
    os.replace(folder / "planted.xml", real)  # the regular file replaced by the link, after the walk saw it
    assert load_file(real, now=FROZEN_NOW).reason == "a symbolic link, not followed"


def test_a_link_named_on_the_command_line_is_not_followed_either(folder: Path) -> None:
    # `import-dmarc /srv/dmarc/*`: the shell's glob names the links planted in the folder too.
    [named] = iter_report_files([folder / "planted.xml"])
    assert not isinstance(named, FoundInFolder)
    assert load_file(named, now=FROZEN_NOW).reason == "a symbolic link, not followed"
    assert load_file(folder.parent / "outside" / "secret.xml", now=FROZEN_NOW).ok  # its target, named


async def test_a_folder_link_named_on_the_command_line_is_refused_not_walked(folder: Path) -> None:
    # `import-dmarc /srv/dmarc/*` named the planted folder link too, and its target was walked: every file
    # there read and parsed, a reason quoting a 0600 file's text (tester81). The console's import is this flow.
    named = folder / "planted-folder"
    assert [str(path) for path in iter_report_files([named])] == [str(named)]  # listed, not walked into
    outcome = await import_reports(None, sorted(folder.iterdir()), now=FROZEN_NOW)
    assert outcome.summary.imported == [folder / "real.xml"]
    assert sorted(outcome.summary.rejected) == [(folder / "planted-folder", "a symbolic link, not followed"),
                                                (folder / "planted.xml", "a symbolic link, not followed")]


def test_a_descriptor_the_shell_hands_over_is_followed(folder: Path) -> None:
    # `import-dmarc /dev/stdin < r.xml`, `<(cat r.xml)`: /dev/stdin and /dev/fd/N are the system's links.
    with open(folder / "real.xml", "rb") as handed:
        assert load_file(Path(f"/dev/fd/{handed.fileno()}"), now=FROZEN_NOW).ok


PRIVATE = feedback(report_id="<report_id>private</report_id>")
"""A report in a private folder: it must never be read through a link."""


def _private_folder(tmp_path: Path) -> Path:
    """A private folder (0700) holding a report named ``report.xml``: what a planted link would lead to."""
    private = tmp_path / "private"
    private.mkdir(mode=0o700)
    (private / "report.xml").write_bytes(PRIVATE)
    return private


@pytest.fixture
def drop(tmp_path: Path) -> Path:
    """A drop folder with a report in a sub-folder, and, beside it, a private folder holding one under that name."""
    _private_folder(tmp_path)
    drop = tmp_path / "drop"
    (drop / "sub").mkdir(parents=True)
    (drop / "sub" / "report.xml").write_bytes(feedback())
    return drop


def _swap_for_link(folder: Path, target: Path) -> None:
    """What whoever fills the drop folder can do at any moment: put a link where ``folder`` was."""
    folder.rename(folder.with_name(folder.name + "-moved"))
    folder.symlink_to(target)


def test_a_folder_swapped_for_a_link_after_the_listing_is_not_gone_through(drop: Path) -> None:
    # Listed, then drop/sub replaced by a link to a private folder: the file opened by its path went through the
    # link, and the private report behind it, under the name planted in the folder, was uploaded (tester91).
    [listed] = iter_report_files([drop])
    assert load_file(listed, now=FROZEN_NOW).ok  # as listed
    _swap_for_link(drop / "sub", drop.parent / "private")
    assert (drop / "sub" / "report.xml").read_bytes() == PRIVATE  # the path goes through
    parsed = load_file(listed, now=FROZEN_NOW)
    assert (parsed.status, parsed.reason) == ("rejected", "a symbolic link, not followed")


def test_a_folder_several_levels_up_swapped_for_a_link_is_not_gone_through(drop: Path) -> None:
    (drop / "sub" / "day").mkdir()
    (drop / "sub" / "day" / "report.xml").write_bytes(feedback())
    (drop.parent / "private" / "day").mkdir()
    (drop.parent / "private" / "day" / "report.xml").write_bytes(PRIVATE)
    listed = list(iter_report_files([drop]))
    _swap_for_link(drop / "sub", drop.parent / "private")
    assert [load_file(path, now=FROZEN_NOW).reason for path in listed] == ["a symbolic link, not followed"] * 2


def test_a_folder_swapped_for_another_folder_after_the_listing_is_not_read(drop: Path) -> None:
    [listed] = iter_report_files([drop])
    (drop / "sub").rename(drop / "sub-moved")
    (drop / "sub").mkdir()
    (drop / "sub" / "report.xml").write_bytes(feedback())
    parsed = load_file(listed, now=FROZEN_NOW)
    assert (parsed.status, parsed.reason) == ("rejected", FOLDER_REPLACED)


def test_the_named_folder_swapped_for_a_link_after_the_listing_is_not_gone_through(drop: Path) -> None:
    [listed] = iter_report_files([drop / "sub"])
    _swap_for_link(drop / "sub", drop.parent / "private")
    assert load_file(listed, now=FROZEN_NOW).reason == "a symbolic link, not followed"


def test_a_folder_swapped_for_a_link_while_the_walk_goes_is_not_walked_into(drop: Path) -> None:
    (drop / "first.xml").write_bytes(feedback())
    walk = iter_report_files([drop])
    assert next(walk).name == "first.xml"  # the drop folder listed; its sub-folder not yet
    _swap_for_link(drop / "sub", drop.parent / "private")
    [refused] = walk
    assert (str(refused), load_file(refused, now=FROZEN_NOW).reason) == (str(drop / "sub"),
                                                                         "a symbolic link, not followed")


@pytest.fixture
def days(tmp_path: Path) -> Path:
    """The per-day layout of a drop folder others fill (group-writable), a day's folder a link planted there to a
    private folder whose report it would name."""
    private = _private_folder(tmp_path)
    days = tmp_path / "days"
    (days / "2026-11-28").mkdir(parents=True)
    (days / "2026-11-28" / "report.xml").write_bytes(feedback())
    (days / "2026-11-29").symlink_to(private)
    days.chmod(0o775)
    return days


def test_a_folder_link_planted_on_a_named_path_is_not_followed(days: Path) -> None:
    # `import-dmarc days/*/*`: the shell's glob named days/2026-11-29/report.xml, behind the planted link, and it
    # was read: the private report said "would import" (tester91).
    named = sorted(days.glob("*/*"))
    assert days / "2026-11-29" / "report.xml" in named
    outcomes = {path.parent.name: load_file(path, now=FROZEN_NOW) for path in iter_report_files(named)}
    assert outcomes["2026-11-28"].ok
    planted = outcomes["2026-11-29"]
    assert planted.status == "rejected"
    assert planted.reason == f"{LINK_NOT_FOLLOWED} ('2026-11-29' {PLANTED_ON_THE_WAY})"


async def test_a_folder_named_through_a_planted_link_is_not_walked(days: Path) -> None:
    (days.parent / "private" / "inner").mkdir()
    (days.parent / "private" / "inner" / "report.xml").write_bytes(PRIVATE)
    outcome = await import_reports(None, [days / "2026-11-29" / "inner"], now=FROZEN_NOW)
    assert outcome.summary.imported == []
    assert outcome.summary.rejected == [(days / "2026-11-29" / "inner",
                                         f"{LINK_NOT_FOLLOWED} ('2026-11-29' {PLANTED_ON_THE_WAY})")]


def test_a_link_on_the_way_that_only_its_owner_could_have_made_is_followed(days: Path) -> None:
    # A home folder linked elsewhere, /var -> private/var: links in folders only the person (or root) writes.
    days.chmod(0o755)
    assert load_file(days / "2026-11-29" / "report.xml", now=FROZEN_NOW).ok
    days.chmod(0o1777)  # sticky, as /tmp: no one else can rename or remove the person's own link there
    assert load_file(days / "2026-11-29" / "report.xml", now=FROZEN_NOW).ok


def test_a_link_of_ones_own_pointing_through_a_planted_one_is_not_followed(days: Path) -> None:
    mine = days.parent / "mine"
    mine.mkdir(mode=0o700)
    (mine / "today").symlink_to(days / "2026-11-29")  # the person's link, to a folder link someone planted
    parsed = load_file(mine / "today" / "report.xml", now=FROZEN_NOW)
    assert parsed.reason == f"{LINK_NOT_FOLLOWED} ('2026-11-29' {PLANTED_ON_THE_WAY})"


@pytest.mark.skipif(os.getuid() != 0, reason="making a link another user's takes root")
def test_a_link_on_the_way_made_by_another_user_is_not_followed(days: Path) -> None:
    days.chmod(0o755)
    os.lchown(days / "2026-11-29", 65534, 65534)
    parsed = load_file(days / "2026-11-29" / "report.xml", now=FROZEN_NOW)
    assert parsed.reason == f"{LINK_NOT_FOLLOWED} ('2026-11-29' {PLANTED_ON_THE_WAY})"
