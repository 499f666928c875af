"""Where to connect and how to log in: flags, then environment, then profile.

Precedence per setting: ``--url``/``--token``/``--token-file``/``--user``/``--password-file``
> ``MAILADMIN_URL``/``MAILADMIN_TOKEN``/``MAILADMIN_USER``/``MAILADMIN_PASSWORD`` >
``--profile NAME`` > the default profile. A user name means Basic login (the real server's
recovery administrator has only that); its password comes from ``--password-file``,
``MAILADMIN_PASSWORD``, or a prompt when a person is at a terminal. A profile's token or
password is only used for that profile's own URL, so that pointing ``--url`` at another
server never hands it the stored secret.
"""

from __future__ import annotations

import getpass
import os
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from jmapclient.auth import BasicLogin, BearerToken, Credentials
from jmapclient.config import PASSWORD_ENV, Config, ConfigError, Profile, read_secret_file

URL_ENV = "MAILADMIN_URL"
TOKEN_ENV = "MAILADMIN_TOKEN"
USER_ENV = "MAILADMIN_USER"
DEFAULT_TIMEOUT = 30.0


@dataclass(frozen=True)
class Connection:
    url: str
    token: str = ""
    timeout: float = DEFAULT_TIMEOUT
    profile: str | None = None
    login: Credentials | None = None
    """Set for Basic login (or a profile's credentials); otherwise ``token`` is the bearer token."""

    def __repr__(self) -> str:  # never show the token
        return f"Connection(url={self.url!r}, profile={self.profile!r})"

    @property
    def credentials(self) -> Credentials:
        return self.login or BearerToken(self.token)


def read_token_file(path: str) -> str:
    return read_secret_file(path, "token")


def _profile(name: str | None) -> Profile | None:
    """The named profile, or the default one (None when there is none)."""
    config = Config.load()
    if name is not None:
        return config.get(name)
    if config.default is None:
        return None
    return config.get(config.default)


def _prompt_password(user: str) -> str:
    if not sys.stdin.isatty():
        raise ConfigError(f"no password for {user!r}: use --password-file or set {PASSWORD_ENV}")
    return getpass.getpass(f"password for {user}: ")


def resolve(
    *,
    url: str | None,
    token: str | None,
    token_file: str | None,
    profile: str | None,
    timeout: float | None,
    user: str | None = None,
    password_file: str | None = None,
    environ: Mapping[str, str] | None = None,
    prompt: Callable[[str], str] = _prompt_password,
) -> Connection:
    env = os.environ if environ is None else environ
    env_url, env_token, env_user = env.get(URL_ENV) or None, env.get(TOKEN_ENV) or None, env.get(USER_ENV) or None
    if user and (token or token_file):
        raise ConfigError("give a token or a user name, not both")
    given_login = user or token or token_file or (env_user if not env_token else None) or env_token
    # The config file is read only when a profile is named or something is still missing.
    needs_profile = profile is not None or not (url or env_url) or not given_login
    chosen = _profile(profile) if needs_profile else None
    final_url = url or env_url or (chosen.url if chosen else None)
    if not final_url:
        raise ConfigError(
            f"no server given: use --url, set {URL_ENV}, or add a profile with `mailadmin profile add`"
        )
    final_timeout = timeout if timeout is not None else DEFAULT_TIMEOUT
    name = chosen.name if chosen else None
    login_user = user or (env_user if not (token or token_file) else None)
    if login_user:
        if password_file:
            password = read_secret_file(password_file, "password")
        else:
            password = env.get(PASSWORD_ENV) or prompt(login_user)
        if not password:
            raise ConfigError(f"no password for {login_user!r}")
        return Connection(final_url, timeout=final_timeout, profile=name, login=BasicLogin(login_user, password))
    if token:
        final_token = token
    elif token_file:
        final_token = read_token_file(token_file)
    elif env_token:
        final_token = env_token
    elif chosen is not None and chosen.url.rstrip("/") == final_url.rstrip("/"):
        stored = chosen.credentials(env)
        if isinstance(stored, BasicLogin):
            return Connection(final_url, timeout=final_timeout, profile=name, login=stored)
        final_token = stored.token
    else:
        raise ConfigError(
            f"no token given for {final_url}: use --token, --token-file or {TOKEN_ENV}, "
            f"or --user (Basic) with --password-file or {PASSWORD_ENV}"
        )
    return Connection(url=final_url, token=final_token, timeout=final_timeout, profile=name)
