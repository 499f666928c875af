"""``profile add|list|remove|default``: the named connections shared with the console.

Tokens are written to the config file (mode 0600, by :mod:`jmapclient.config`) and are
never printed: ``list`` says only where a profile's token comes from.
"""

from __future__ import annotations

import argparse

from jmapclient.config import Config, ConfigError, Profile, profile_name
from jmapclient.connection import argv_secret_warning, read_stdin_line, refuse_empty
from jmapclient.outcome import EXIT_OK, note, out
from jmapclient.transport_security import TransportSecurity
from mailadmin.cli.render import compact_json, table_lines


def _token_source(profile: Profile) -> str:
    if profile.user:
        where = f"file {profile.password_file}" if profile.password_file else "MAILADMIN_PASSWORD"
        return f"user {profile.user}, password from {where}"
    if profile.token:
        return "stored"
    if profile.token_file:
        return f"file {profile.token_file}"
    return "none"


def _warn(line: str) -> None:
    note(f"warning: {line}")


def _transport(profile: Profile) -> str:
    """The profile's unsafe or unusual transport choices, in words (empty: verified TLS as usual)."""
    said = [f"CA {profile.ca_file}"] if profile.ca_file else []
    said += ["TLS NOT verified"] if profile.insecure else []
    said += ["http allowed"] if profile.allow_http else []
    return ", ".join(said)


def absolute(path: str | None) -> str | None:
    """A file the profile names, as an absolute path: the profile is used from any folder."""
    import os

    return os.path.abspath(os.path.expanduser(path)) if path else None


def add(args: argparse.Namespace, config: Config) -> int:
    # `--token ''` added a profile with no way to log in, said only at its first use (tester83).
    refuse_empty({"--url": args.profile_url, "--token": args.profile_token, "--token-file": args.profile_token_file,
                  "--user": args.profile_user, "--password-file": args.profile_password_file,
                  "--ca-file": args.profile_ca_file})
    token = args.profile_token
    if token:
        _warn(argv_secret_warning("--token"))
    if args.token_stdin:
        token = read_stdin_line("token")
    if args.profile_password_file and not args.profile_user:
        raise ConfigError("--password-file belongs to --user")
    security = TransportSecurity(args.profile_ca_file, args.profile_insecure, args.profile_allow_http)
    profile = Profile(
        name=args.name,
        url=args.profile_url,
        token=token or None,
        token_file=absolute(args.profile_token_file),
        read_only=args.read_only,
        user=args.profile_user,
        password_file=absolute(args.profile_password_file),
        ca_file=absolute(security.ca_file),
        insecure=security.insecure,
        allow_http=security.allow_http,
    )
    profile.check_files(_warn)  # read now rather than at the first connection: a bad path or mode is said here
    security.verify()  # a CA file that cannot be used is refused before it is saved
    security.check(args.profile_url)
    replaced = config.named(args.name) is not None  # "prod " or another Unicode form of "prod" is "prod"
    # Replaced whole: keys this version does not know (a newer version's client_cert, proxy) were the old server's.
    config.add(profile, make_default=args.default, whole=True)
    config.save()
    out(f"{'replaced' if replaced else 'added'} profile {profile_name(args.name)} ({config.path})")
    return EXIT_OK


def listing(args: argparse.Namespace, config: Config) -> int:
    profiles = [config.profiles[name] for name in sorted(config.profiles)]
    # Said where the tokens are listed, as a token file is where it is read: the other actions write the file 0600.
    exposed = next(filter(None, (p.token_exposed() for p in profiles)), None)
    if exposed:
        _warn(exposed)
    if args.json:
        for p in profiles:
            out(compact_json({
                "name": p.name, "url": p.url, "token": _token_source(p),
                "readOnly": p.read_only, "default": p.name == config.default,
                "caFile": p.ca_file, "insecure": p.insecure, "allowHttp": p.allow_http,
            }))
        return EXIT_OK
    if not profiles:
        note(f"no profiles in {config.path}; add one with `mailadmin profile add NAME --url URL`")
        return EXIT_OK
    rows = [
        ["*" if p.name == config.default else "", p.name, p.url, _token_source(p), "yes" if p.read_only else "",
         _transport(p)]
        for p in profiles
    ]
    for line in table_lines(("Default", "Name", "URL", "Token", "Read-only", "Transport"), rows):
        out(line)
    return EXIT_OK


def remove(args: argparse.Namespace, config: Config) -> int:
    removed = config.named(args.name, exact=True) or args.name  # as the file spells it
    was_default = config.default == removed
    config.remove(args.name)
    config.save()
    out(f"removed profile {removed}")
    if was_default:
        note("it was the default: no profile is the default now, so commands need --profile until "
             "`mailadmin profile default NAME` names one")
    return EXIT_OK


def make_default(args: argparse.Namespace, config: Config) -> int:
    config.make_default(args.name)
    config.save()
    out(f"default profile: {config.default}")
    return EXIT_OK


def run(args: argparse.Namespace) -> int:
    config = Config.load()
    for line in config.profile_refusals:  # skipped, so that the others (and `remove` of it) still work
        _warn(line)
    action = {"add": add, "list": listing, "remove": remove, "default": make_default}[args.profile_command]
    return action(args, config)
