"""Where to connect and with which token: flags, then environment, then profile.

Precedence per setting: ``--url``/``--token``/``--token-file`` > ``MAILADMIN_URL``/
``MAILADMIN_TOKEN`` > ``--profile NAME`` > the default profile. A profile's token is
only used for that profile's own URL, so that pointing ``--url`` at another server
never hands it the stored token.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from jmapclient.config import Config, ConfigError, Profile

URL_ENV = "MAILADMIN_URL"
TOKEN_ENV = "MAILADMIN_TOKEN"
DEFAULT_TIMEOUT = 30.0


@dataclass(frozen=True)
class Connection:
    url: str
    token: str
    timeout: float = DEFAULT_TIMEOUT
    profile: str | None = None

    def __repr__(self) -> str:  # never show the token
        return f"Connection(url={self.url!r}, profile={self.profile!r})"


def read_token_file(path: str) -> str:
    try:
        token = Path(path).expanduser().read_text().strip()
    except OSError as error:
        raise ConfigError(f"cannot read the token file {path}: {error.strerror}") from None
    if not token:
        raise ConfigError(f"the token file {path} is empty")
    return token


def _profile(name: str | None) -> Profile | None:
    """The named profile, or the default one (None when there is none)."""
    config = Config.load()
    if name is not None:
        return config.get(name)
    if config.default is None:
        return None
    return config.get(config.default)


def resolve(
    *,
    url: str | None,
    token: str | None,
    token_file: str | None,
    profile: str | None,
    timeout: float | None,
    environ: Mapping[str, str] | None = None,
) -> Connection:
    env = os.environ if environ is None else environ
    env_url, env_token = env.get(URL_ENV) or None, env.get(TOKEN_ENV) or None
    # The config file is read only when a profile is named or something is still missing.
    needs_profile = profile is not None or not (url or env_url) or not (token or token_file or env_token)
    chosen = _profile(profile) if needs_profile else None
    final_url = url or env_url or (chosen.url if chosen else None)
    if not final_url:
        raise ConfigError(
            f"no server given: use --url, set {URL_ENV}, or add a profile with `mailadmin profile add`"
        )
    if token:
        final_token = token
    elif token_file:
        final_token = read_token_file(token_file)
    elif env_token:
        final_token = env_token
    elif chosen is not None and chosen.url.rstrip("/") == final_url.rstrip("/"):
        final_token = chosen.resolve_token()
    else:
        raise ConfigError(f"no token given for {final_url}: use --token, --token-file or {TOKEN_ENV}")
    return Connection(
        url=final_url,
        token=final_token,
        timeout=timeout if timeout is not None else DEFAULT_TIMEOUT,
        profile=chosen.name if chosen else None,
    )
