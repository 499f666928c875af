"""Named connection profiles and key bindings, in one TOML file shared by CLI and console.

The file lives in the user config directory (``MAILADMIN_CONFIG`` overrides the path,
for tests and scripts). It may hold tokens, so it is written with mode 0600, through a
temporary file that is renamed into place, so a crash never leaves half a file.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from jmapclient.auth import BasicLogin, BearerToken, Credentials
from jmapclient.file_safety import is_stream, read_bounded, readable_by_others, writable_by_others, write_stream

APP_NAME = "mailadmin"
CONFIG_ENV = "MAILADMIN_CONFIG"
PASSWORD_ENV = "MAILADMIN_PASSWORD"
DATA_ENV = "MAILADMIN_DATA"
OWNER_ONLY = 0o600


# The TOML reader and writer, platformdirs and tempfile load where they are used: a command
# given its server on the command line (or in the environment) never reads the file, and its
# start is timed (bench/bench_startup.py).


class ConfigError(ValueError):
    """The config file or a profile is not usable; the message says why."""


def config_path() -> Path:
    override = os.environ.get(CONFIG_ENV)
    if override:
        return Path(override)
    from platformdirs import user_config_dir

    return Path(user_config_dir(APP_NAME)) / "config.toml"


def data_dir() -> Path:
    override = os.environ.get(DATA_ENV)
    if override:
        return Path(override)
    from platformdirs import user_data_dir

    return Path(user_data_dir(APP_NAME))


Warn = Callable[[str], None]
"""Where a warning for the person goes: the CLI's stderr, the console's notice."""


def _ignore(_: str) -> None:
    return None


MAX_SECRET_FILE = 1 << 16
"""Bytes a token or password file may hold (an OAuth access token is a few KB)."""
MAX_CONFIG_FILE = 1 << 20
"""Bytes the config file may hold: profiles and key remaps are a few KB."""


def checked_file(path: str | Path, what: str) -> Path:
    """``path`` expanded, refused (ConfigError) when group or others can write it."""
    resolved = Path(path).expanduser()
    problem = writable_by_others(resolved, what)
    if problem:
        raise ConfigError(problem)
    return resolved


def read_secret_file(path: str, what: str, warn: Warn = _ignore) -> str:
    """The token or password in a file, stripped; never empty.

    Refused when group or others can write the file; ``warn`` hears when they can read it.
    """
    resolved = checked_file(path, what)
    try:
        # Bounded: `--token-file /dev/zero` (or a config naming it) filled memory to a MemoryError.
        data = read_bounded(resolved, MAX_SECRET_FILE)
        if data is None:
            raise ConfigError(f"cannot read the {what} file {path}: it is larger than {MAX_SECRET_FILE:,} bytes")
        secret = data.decode().strip()
    except (OSError, UnicodeDecodeError) as error:
        reason = error.strerror if isinstance(error, OSError) else "it is not text"
        raise ConfigError(f"cannot read the {what} file {path}: {reason}") from None
    if not secret:
        raise ConfigError(f"the {what} file {path} is empty")
    exposed = readable_by_others(resolved, what)
    if exposed:
        warn(exposed)
    return secret


def write_private(path: Path, content: bytes, *, create_parent: bool = True) -> None:
    """Write ``content`` to ``path`` with mode 0600, atomically.

    ``create_parent`` is for this tool's own folders; a path the person typed is written
    only into a folder that exists. A target that exists and is no regular file (``/dev/null``,
    ``/dev/stdout``, a FIFO) is written into, never replaced (``file_safety.is_stream``).
    """
    import tempfile

    if is_stream(path):
        write_stream(path, content)
        return
    if create_parent:
        path.parent.mkdir(parents=True, exist_ok=True)
    descriptor, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        os.fchmod(descriptor, OWNER_ONLY)
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(content)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def check_server_url(url: str) -> None:
    """Raise ConfigError unless ``url`` is a server's root URL, e.g. https://mail.example.com."""
    wrong = ConfigError(f"{url!r} is not a server URL; write it like https://mail.example.com")
    try:
        # ValueError for a bracketed host that is no IP address (http://[x]/), and for a port
        # that is no number from 0 to 65535.
        parts = urlsplit(url)
        parts.port  # noqa: B018  (read for its check)
    except ValueError:
        raise wrong from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise wrong


@dataclass
class Profile:
    """How to reach one server: a token (inline or in ``token_file``), or a user name whose
    password is in ``password_file`` (or ``MAILADMIN_PASSWORD``) for Basic login."""

    name: str
    url: str
    token: str | None = None
    token_file: str | None = None
    read_only: bool = False
    user: str | None = None
    password_file: str | None = None
    ca_file: str | None = None
    """A private CA trusted on top of the system store, for this server."""
    insecure: bool = False
    """Skip TLS verification (a lab server); said on every connection."""
    allow_http: bool = False
    """Allow cleartext http to a host that is not loopback; said once per run."""

    def __repr__(self) -> str:  # never show the token
        return f"Profile(name={self.name!r}, url={self.url!r}, read_only={self.read_only})"

    def resolve_token(self, warn: Warn = _ignore) -> str:
        if self.token:
            return self.token
        if self.token_file:
            return read_secret_file(self.token_file, f"profile {self.name!r} token", warn)
        raise ConfigError(f"profile {self.name!r} has no token or token file")

    def credentials(self, environ: Mapping[str, str] | None = None, warn: Warn = _ignore) -> Credentials:
        """Basic when the profile names a user, else the bearer token."""
        if not self.user:
            return BearerToken(self.resolve_token(warn))
        env = os.environ if environ is None else environ
        if self.password_file:
            return BasicLogin(self.user, read_secret_file(self.password_file, "password", warn))
        if env.get(PASSWORD_ENV):
            return BasicLogin(self.user, env[PASSWORD_ENV])
        raise ConfigError(f"profile {self.name!r} names user {self.user!r} but no password file; set {PASSWORD_ENV}")

    def check(self) -> None:
        """Raise ConfigError naming what keeps this profile from being saved (forms show it inline)."""
        if not self.name.strip():
            raise ConfigError("a profile needs a name")
        check_server_url(self.url)  # caught here, not at the first connection

    def to_toml(self) -> dict[str, Any]:
        table: dict[str, Any] = {"url": self.url}
        if self.token:
            table["token"] = self.token
        if self.token_file:
            table["token_file"] = self.token_file
        if self.user:
            table["user"] = self.user
        if self.password_file:
            table["password_file"] = self.password_file
        if self.read_only:
            table["read_only"] = True
        if self.ca_file:
            table["ca_file"] = self.ca_file
        if self.insecure:
            table["insecure"] = True
        if self.allow_http:
            table["allow_http"] = True
        return table

    @classmethod
    def from_toml(cls, name: str, table: Any) -> Profile:
        if not isinstance(table, dict) or not isinstance(table.get("url"), str) or not table["url"]:
            raise ConfigError(f"profile {name!r} needs a url")
        return cls(
            name=name,
            url=table["url"],
            token=table.get("token") if isinstance(table.get("token"), str) else None,
            token_file=table.get("token_file") if isinstance(table.get("token_file"), str) else None,
            read_only=bool(table.get("read_only", False)),
            user=table.get("user") if isinstance(table.get("user"), str) else None,
            password_file=table.get("password_file") if isinstance(table.get("password_file"), str) else None,
            ca_file=table.get("ca_file") if isinstance(table.get("ca_file"), str) else None,
            insecure=table.get("insecure") is True,
            allow_http=table.get("allow_http") is True,
        )


@dataclass
class Config:
    """The whole file: profiles, the default profile's name, and key remaps."""

    profiles: dict[str, Profile] = field(default_factory=dict)
    default: str | None = None
    keys: dict[str, str] = field(default_factory=dict)
    """Binding id → key(s), e.g. ``{"app.quit": "ctrl+q"}``; read by the console."""
    offline: bool = False
    """``[dmarc] offline``: the console names no DMARC source by DNS (no lookups at all)."""
    theme: str | None = None
    """``[console] theme``: the console's theme, as last chosen in it (the palette's "Change theme")."""
    path: Path = field(default_factory=config_path)

    @classmethod
    def load(cls, path: Path | None = None) -> Config:
        path = path or config_path()
        if not path.exists():
            return cls(path=path)
        problem = writable_by_others(path, "config")
        if problem:
            raise ConfigError(problem)
        import tomllib

        try:
            raw = read_bounded(path, MAX_CONFIG_FILE)
            if raw is None:
                raise ConfigError(f"cannot read {path}: it is larger than {MAX_CONFIG_FILE:,} bytes")
            data = tomllib.loads(raw.decode())
        except OSError as error:
            raise ConfigError(f"cannot read {path}: {error.strerror or error}") from None
        except (UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
            reason = "it is not UTF-8 text" if isinstance(error, UnicodeDecodeError) else str(error)
            raise ConfigError(f"cannot read {path}: {reason}") from None
        # A hand-edited file can hold anything where a table belongs (`profiles = 5`): said as
        # one error line, never an AttributeError traceback.
        for table in ("profiles", "keys"):
            if not isinstance(data.get(table, {}), dict):
                raise ConfigError(f"cannot read {path}: `{table}` must be a table, like [{table}]")
        profiles = {
            name: Profile.from_toml(name, table) for name, table in (data.get("profiles") or {}).items()
        }
        keys = {str(k): str(v) for k, v in (data.get("keys") or {}).items()}
        default = data.get("default") if isinstance(data.get("default"), str) else None
        dmarc = data.get("dmarc")
        offline = isinstance(dmarc, dict) and dmarc.get("offline") is True
        console = data.get("console")
        theme = console.get("theme") if isinstance(console, dict) and isinstance(console.get("theme"), str) else None
        return cls(profiles=profiles, default=default, keys=keys, offline=offline, theme=theme, path=path)

    def save(self) -> None:
        document: dict[str, Any] = {}
        if self.default:
            document["default"] = self.default
        document["profiles"] = {name: p.to_toml() for name, p in sorted(self.profiles.items())}
        if self.keys:
            document["keys"] = dict(self.keys)
        if self.offline:
            document["dmarc"] = {"offline": True}
        if self.theme:
            document["console"] = {"theme": self.theme}
        import tomli_w

        write_private(self.path, tomli_w.dumps(document).encode())

    def add(self, profile: Profile, *, make_default: bool = False) -> None:
        profile.check()
        self.profiles[profile.name] = profile
        if make_default or self.default is None:
            self.default = profile.name

    def remove(self, name: str) -> None:
        if name not in self.profiles:
            raise ConfigError(f"no profile named {name!r}")
        del self.profiles[name]
        if self.default == name:
            self.default = next(iter(sorted(self.profiles)), None)

    def get(self, name: str | None = None) -> Profile:
        chosen = name or self.default
        if chosen is None:
            raise ConfigError("no profile given and no default profile; add one with `mailadmin profile add`")
        try:
            return self.profiles[chosen]
        except KeyError:
            raise ConfigError(f"no profile named {chosen!r}") from None
