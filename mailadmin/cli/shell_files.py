"""``mailadmin completion bash|zsh`` and ``mailadmin manpage``: made from the parser itself, so they
can never list a flag the command line does not have (shtab and argparse-manpage, pinned).

Subcommands declare their arguments on first use (:class:`mailadmin.cli.parser._Subcommand`);
both walk every subcommand, so every one is declared first.
"""

from __future__ import annotations

import argparse

from jmapclient.outcome import EXIT_CODES, EXIT_OK, write_stdout
from mailadmin.cli.parser import PROG, CommandLine

SHELLS = ("bash", "zsh")
MANUAL = "mailadmin manual"
DESCRIPTION = "administer a JMAP mail server: directories and DMARC reports, from a terminal console or the shell"
FILES = """\
.TP
.B ~/.config/mailadmin/config.toml
Connection profiles (0600); MAILADMIN_CONFIG names another file.
.TP
.B ~/.local/share/mailadmin/
Caches, exports and the DMARC digest store; MAILADMIN_DATA names another folder."""


def declared(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """``parser`` with the arguments of every subcommand, at any depth, declared."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                declare = getattr(sub, "_declared", None)
                if declare is not None:
                    declare()
                declared(sub)
    return parser


def completion_script(parser: argparse.ArgumentParser, shell: str) -> str:
    import shtab

    script: str = shtab.complete(declared(parser), shell=shell)
    return script


def exit_status_section() -> str:
    return "\n".join(f".TP\n.B {code}\n{words}." for code, words in EXIT_CODES)


def manpage_text(parser: argparse.ArgumentParser) -> str:
    from argparse_manpage.manpage import Manpage

    from mailadmin.cli.version_cmd import package_version

    # The date is the version's, not today's: the same release always makes the same page.
    page = Manpage(declared(parser), {"project_name": PROG, "version": package_version(), "manual_title": MANUAL,
                                      "description": DESCRIPTION, "date": f"version {package_version()}"})
    page.add_section("exit status", "=", exit_status_section())
    page.add_section("files", "=", FILES)
    return str(page)


def add_commands(line: CommandLine) -> None:
    """Declare ``completion`` and ``manpage`` on the front door's command line."""
    completion = line.command(
        "completion", "print the shell completion script (bash: eval \"$(mailadmin completion bash)\")", connects=False
    )
    completion.add_argument("shell", choices=SHELLS)
    line.command("manpage", "print the manual page (man -l <(mailadmin manpage))", connects=False)


def run_completion(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    write_stdout(completion_script(parser, args.shell))  # as made: a script is no text to clean
    return EXIT_OK


def run_manpage(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    write_stdout(manpage_text(parser))
    return EXIT_OK
