"""Where to connect, how to log in, and how safely: the one decision the CLI and the console share.

Precedence per setting: flags (``--url``, ``--token``/``--token-file``/``--token-stdin``,
``--user`` with ``--password-file``/``--password-stdin``) > ``--profile NAME`` > environment
(``MAILADMIN_URL``, ``MAILADMIN_TOKEN``, ``MAILADMIN_USER``, ``MAILADMIN_CA_FILE``) > the default
profile. A profile named on the command line is what the person asked for at that moment: the
environment's server and credentials, set long before, never replace it (an exported
``MAILADMIN_URL`` once sent ``--profile prod`` elsewhere, past a read-only profile too); they are
left aside, with a warning. ``MAILADMIN_CA_FILE`` and ``MAILADMIN_PASSWORD`` still fill in what
the profile leaves out (a CA only adds trust; a password is its user's).
A user name means Basic login (the real server's recovery administrator has only that); its
password comes from a file, the environment, standard input, or a prompt when a person is at a
terminal; so does a token when none is given.

A profile is *in effect* only for its own URL: pointing ``--url`` at another server never
hands that server the profile's secret, CA, read-only flag or cleartext permission.
"""

from __future__ import annotations

import getpass
import os
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from jmapclient.auth import BasicLogin, BearerToken, Credentials
from jmapclient.config import (
    MAX_SECRET_FILE,
    PASSWORD_ENV,
    Config,
    ConfigError,
    Profile,
    Warn,
    checked_token,
    checked_user,
    data_dir,
    read_secret_file,
    read_token_file,
    server_url,
    trimmed,
)
from jmapclient.file_safety import folder_writable_by_others
from jmapclient.transport_security import TransportSecurity

if TYPE_CHECKING:
    import httpx

    from jmapclient.client import JmapClient

URL_ENV = "MAILADMIN_URL"
TOKEN_ENV = "MAILADMIN_TOKEN"
USER_ENV = "MAILADMIN_USER"
CA_FILE_ENV = "MAILADMIN_CA_FILE"
DEFAULT_TIMEOUT = 30.0
SAFER_SECRETS = f"--token-file, --token-stdin or {TOKEN_ENV}"


def argv_secret_warning(flag: str) -> str:
    """The one-line warning for a secret typed as a command-line value."""
    return (f"{flag} puts the secret in the process list and your shell history; "
            f"prefer {SAFER_SECRETS}")


@dataclass(frozen=True)
class Connection:
    url: str
    token: str = ""
    timeout: float = DEFAULT_TIMEOUT
    profile: str | None = None
    """The profile in effect (its URL is ``url``), or None."""
    login: Credentials | None = None
    """Set for Basic login (or a profile's credentials); otherwise ``token`` is the bearer token."""
    read_only: bool = False
    """The profile in effect is read-only: nothing may change through this connection."""
    security: TransportSecurity = field(default_factory=TransportSecurity)

    def __repr__(self) -> str:  # never show the token
        return f"Connection(url={self.url!r}, profile={self.profile!r})"

    @property
    def credentials(self) -> Credentials:
        return self.login or BearerToken(self.token)

    @property
    def user_label(self) -> str:
        """Who logs in, as far as is known before the server says (the console's header)."""
        login = self.credentials
        return login.user if isinstance(login, BasicLogin) else (self.profile or "token")

    def open_client(self, transport: httpx.AsyncBaseTransport | None = None, *, blocking: bool = False,
                    on_request: Callable[[], None] | None = None) -> JmapClient:
        """A client for this connection; ``blocking`` for one run by :func:`jmapclient.blocking.run`;
        ``on_request`` is called before each request is sent."""
        from jmapclient.client import JmapClient  # httpx only when a connection is made

        return JmapClient(self.url, self.credentials, timeout=self.timeout, transport=transport,
                          verify=self.security.verify(), blocking=blocking,
                          on_request=on_request)


def _ignore(_: str) -> None:
    return None


def _profile(name: str | None, warn: Warn = _ignore) -> Profile | None:
    """The named profile, or the default one (None when there is none); ``warn`` hears of each other profile the
    file holds that this version cannot read (skipped: it blocked every command, the default's too)."""
    config = Config.load()
    chosen = config.get(name) if name is not None or config.default is not None else None
    for line in config.profile_refusals:
        warn(line)
    return chosen


def ask_hidden(prompt: str, what: str) -> str:
    """The answer to ``prompt`` at a terminal, not echoed. Ctrl-D there (the input ended) is said in words:
    getpass's EOFError was a traceback at every secret prompt (the tester's)."""
    try:
        return getpass.getpass(prompt)
    except EOFError:
        sys.stderr.write("\n")  # the prompt's line ends before the error's
        raise ConfigError(f"no {what} given (the input ended)") from None


def _prompt_password(user: str) -> str:
    if not sys.stdin.isatty():
        raise ConfigError(f"no password for {user!r}: use --password-file, --password-stdin or set {PASSWORD_ENV}")
    return ask_hidden(f"password for {user}: ", "password")


def _prompt_token(url: str) -> str:
    """At a terminal, ask for the token (not echoed); elsewhere, say how to give one."""
    if not sys.stdin.isatty():
        raise ConfigError(
            f"no token given for {url}: use --token-file, --token-stdin or {TOKEN_ENV}, "
            f"or --user (Basic) with --password-file or {PASSWORD_ENV}"
        )
    return trimmed(ask_hidden(f"token for {url}: ", "token"))


def _first_line(what: str) -> str:
    """Standard input's first line, read up to the bound a secret file has (:data:`MAX_SECRET_FILE`): an unbounded
    ``readline`` of ``--token-stdin < /dev/zero`` filled memory to a MemoryError traceback (the tester's)."""
    line = sys.stdin.readline(MAX_SECRET_FILE + 2)  # room for the line break, \r\n too, after the longest secret
    if len(line.rstrip("\r\n")) > MAX_SECRET_FILE:
        raise ConfigError(f"cannot read the {what} on standard input: its line is longer than "
                          f"{MAX_SECRET_FILE:,} characters")
    return line


def read_stdin_line(what: str) -> str:
    """The first line of standard input, trimmed (:func:`~jmapclient.config.trimmed`); never empty. At a terminal
    it is asked for, not echoed: ``--token-stdin`` there waited with no prompt, and showed the token as it was typed
    (the tester's)."""
    secret = trimmed(ask_hidden(f"{what}: ", what) if sys.stdin.isatty() else _first_line(what))
    if not secret:
        raise ConfigError(f"no {what} on standard input")
    return secret


def _same_server(a: str, b: str) -> bool:
    # Trimmed: a profile saved before URLs were trimmed (" https://x ") is still in effect for its own server.
    return trimmed(a).rstrip("/") == trimmed(b).rstrip("/")


@dataclass(frozen=True)
class ConnectionRequest:
    """What :func:`resolve` decides from: the person's flags, then where to look for what they left out.

    The flags are the command line's (``--url``, ``--token-file`` ...), all optional. The rest
    are the sources of what is missing, each replaceable (tests, the console): the environment,
    the password and token prompts, standard input, the profile list, and who hears warnings.
    """

    url: str | None = None
    token: str | None = None
    token_file: str | None = None
    token_stdin: bool = False
    user: str | None = None
    password_file: str | None = None
    password_stdin: bool = False
    profile: str | None = None
    timeout: float | None = None
    ca_file: str | None = None
    insecure: bool = False
    allow_http: bool = False
    # Where what the flags leave out comes from.
    environ: Mapping[str, str] | None = None
    """None: this process's environment."""
    prompt: Callable[[str], str] = _prompt_password
    stdin: Callable[[str], str] = read_stdin_line
    warn: Warn = _ignore
    profiles: Callable[[str | None], Profile | None] | None = None
    """None: the config file's (its skipped profiles said to ``warn``)."""
    token_prompt: Callable[[str], str] = _prompt_token

    def __repr__(self) -> str:  # never show the token
        return f"ConnectionRequest(url={self.url!r}, profile={self.profile!r})"

    @classmethod
    def from_args(cls, args: Any, **sources: Any) -> ConnectionRequest:
        """The request parsed command-line arguments make (the CLI's and the console's)."""
        flags: dict[str, Any] = {name: getattr(args, name, None) for name in FLAG_NAMES}
        flags.update({name: bool(flags[name]) for name in ("token_stdin", "password_stdin", "insecure", "allow_http")})
        return cls(**flags, **sources)


FLAG_NAMES = ("url", "token", "token_file", "token_stdin", "user", "password_file", "password_stdin", "profile",
              "timeout", "ca_file", "insecure", "allow_http")
"""The command line's connection flags, by their ``argparse`` names."""


ENVIRONMENT_TARGET = (URL_ENV, TOKEN_ENV, USER_ENV)
"""Where and as whom the environment connects: all left aside for a named ``--profile``."""


def _from_environment(env: Mapping[str, str], profile: str | None,
                      warn: Warn) -> tuple[str | None, str | None, str | None]:
    """The environment's URL, token and user; none of them when ``--profile`` names a profile."""
    if profile is None:
        url, token, user = (env.get(name) or None for name in ENVIRONMENT_TARGET)
        return url, token, user
    given = [name for name in ENVIRONMENT_TARGET if env.get(name)]
    if given:
        warn(f"--profile {profile} is used: {', '.join(given)} from the environment left aside")
    return None, None, None


def _ca_file(env_ca: str | None, in_effect: Profile | None, *, named: bool) -> str | None:
    """The CA the environment or the profile names: a named profile's first (a CA only adds trust, so the
    environment's still fills in for a profile without one)."""
    profile_ca = in_effect.ca_file if in_effect else None
    return (profile_ca or env_ca) if named else (env_ca or profile_ca)


EMPTY_REFUSED = ("url", "token", "token_file", "user", "password_file", "profile", "ca_file")
"""Flags that name something: given empty (``--token ''``, an unset shell variable), each is refused. An empty
``--token`` was passed over, and the profile's token sent in its place, while ``--token '  '`` was refused as
empty. An empty variable in the environment still means "not set", as shells have it."""


def refuse_empty(flags: Mapping[str, str | None]) -> None:
    """ConfigError for the first flag (by its spelling, ``--token``) given empty or blank; None stands for not given.
    The one rule of :data:`EMPTY_REFUSED`, for a connection's flags and ``profile add``'s alike."""
    for flag, value in flags.items():
        if value is not None and not value.strip():
            raise ConfigError(f"{flag} is empty: give it a value, or leave the flag out")


def _refuse_empty_flags(request: ConnectionRequest) -> None:
    refuse_empty({f"--{name.replace('_', '-')}": getattr(request, name) for name in EMPTY_REFUSED})


def resolve(request: ConnectionRequest) -> Connection:
    """The connection in effect; ``request.warn`` hears every unsafe choice, once each."""
    _refuse_empty_flags(request)
    url, token, token_file, token_stdin = request.url, request.token, request.token_file, request.token_stdin
    user, password_file, password_stdin = request.user, request.password_file, request.password_stdin
    profile, ca_file, warn = request.profile, request.ca_file, request.warn
    env = os.environ if request.environ is None else request.environ
    env_url, env_token, env_user = _from_environment(env, profile, warn)
    if sum(1 for given in (token, token_file, token_stdin) if given) > 1:
        raise ConfigError("give one of --token, --token-file and --token-stdin")
    flag_token = bool(token or token_file or token_stdin)
    if user and flag_token:
        raise ConfigError("give a token or a user name, not both")
    if password_stdin and not (user or env_user):
        raise ConfigError("--password-stdin belongs to --user")
    given_login = user or flag_token or (env_user if not env_token else None) or env_token
    # The config file is read only when a profile is named or something is still missing.
    needs_profile = profile is not None or not (url or env_url) or not given_login
    profiles = request.profiles or (lambda name: _profile(name, warn))
    chosen = profiles(profile) if needs_profile else None
    final_url = url or env_url or (chosen.url if chosen else None)
    if not final_url:
        raise ConfigError(
            f"no server given: use --url, set {URL_ENV}, or --profile NAME; no profile is the default "
            "(`mailadmin profile default NAME` names one, `mailadmin profile add` adds one)"
        )
    final_url = server_url(final_url)
    in_effect = chosen if chosen is not None and _same_server(chosen.url, final_url) else None
    security = TransportSecurity(
        ca_file=ca_file or _ca_file(env.get(CA_FILE_ENV), in_effect, named=profile is not None),
        insecure=request.insecure or bool(in_effect and in_effect.insecure),
        allow_http=request.allow_http or bool(in_effect and in_effect.allow_http),
    )
    security.check(final_url)
    if token:
        warn(argv_secret_warning("--token"))
    for line in security.warnings(final_url):
        warn(line)
    if problem := folder_writable_by_others(data_dir(), "data"):
        warn(problem)  # an existing folder is left as it is: said, as an unsafe choice
    common: dict[str, Any] = {
        "timeout": request.timeout if request.timeout is not None else DEFAULT_TIMEOUT,
        "profile": in_effect.name if in_effect else None,
        "read_only": bool(in_effect and in_effect.read_only),
        "security": security,
    }
    login_user = user or (env_user if not flag_token else None)
    if login_user:
        checked_user(login_user, "--user" if user else USER_ENV)
        if password_file:
            password = read_secret_file(password_file, "password", warn)
        elif password_stdin:
            password = request.stdin("password")
        else:
            password = env.get(PASSWORD_ENV) or request.prompt(login_user)
        if not password:
            raise ConfigError(f"no password for {login_user!r}")
        return Connection(final_url, login=BasicLogin(login_user, password), **common)
    if token:
        final_token = checked_token(token, "--token")
    elif token_file:
        final_token = read_token_file(token_file, warn)
    elif token_stdin:
        final_token = checked_token(request.stdin("token"), "the token on standard input")
    elif env_token:
        final_token = checked_token(env_token, TOKEN_ENV)
    elif in_effect is not None:
        stored = in_effect.credentials(env, warn)
        if isinstance(stored, BasicLogin):
            return Connection(final_url, login=stored, **common)
        final_token = stored.token
    else:
        final_token = request.token_prompt(final_url)
        if not final_token:
            raise ConfigError(f"no token given for {final_url}")
        final_token = checked_token(final_token, "the token typed")
    return Connection(final_url, token=final_token, **common)


def resolve_profile(chosen: Profile, warn: Warn = _ignore) -> Connection:
    """:func:`resolve` for a profile the person picked (the console's list): that profile alone,
    whatever the environment names, except a user's password from ``MAILADMIN_PASSWORD``."""
    password = {PASSWORD_ENV: os.environ[PASSWORD_ENV]} if os.environ.get(PASSWORD_ENV) else {}
    return resolve(ConnectionRequest(profile=chosen.name, environ=password, warn=warn, profiles=lambda _: chosen))


def given_explicitly(args: Any, environ: Mapping[str, str] | None = None) -> bool:
    """Whether flags or the environment say where or how to connect (so no profile list is shown);
    the environment says nothing past a named ``--profile`` (:func:`resolve` leaves it aside)."""
    env = os.environ if environ is None else environ
    flags = (name for name in FLAG_NAMES if name not in ("profile", "timeout"))
    from_environment = getattr(args, "profile", None) is None and any(
        env.get(name) for name in (URL_ENV, TOKEN_ENV, USER_ENV))
    return any(getattr(args, name, None) for name in flags) or from_environment


def resolve_args(args: Any, **sources: Any) -> Connection:
    """:func:`resolve` for parsed command-line arguments (the CLI's and the console's)."""
    return resolve(ConnectionRequest.from_args(args, **sources))
