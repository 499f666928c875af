"""Named connection profiles and key bindings, in one TOML file shared by CLI and console.

The file lives in the user config directory (``MAILADMIN_CONFIG`` overrides the path,
for tests and scripts). It may hold tokens, so it is written with mode 0600, through a
temporary file that is renamed into place, so a crash never leaves half a file.
"""

from __future__ import annotations

import io
import os
import re
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any, BinaryIO
from urllib.parse import urlsplit

from jmapclient.auth import BasicLogin, BearerToken, Credentials
from jmapclient.file_safety import (
    NotAFile,
    NotAPath,
    handed_over,
    is_stream,
    local_path,
    make_private_folder,
    naming,
    naming_target,
    own_file_at,
    owned_by_another,
    read_bounded,
    read_regular,
    readable_by_others,
    stored_file_problem,
    untrusted_folder,
    writable_by_others,
    write_stream,
)

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

    field: str | None = None
    """The :class:`Profile` attribute the error is about, when it is about one (:func:`concerning`): a form puts
    the keyboard in that field's box, not in the first one."""


@contextmanager
def concerning(field: str) -> Iterator[None]:
    """Mark a ConfigError raised inside as about the profile's ``field`` (unless a check inside named one)."""
    try:
        yield
    except ConfigError as error:
        error.field = error.field or field
        raise


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
    """``path`` parsed (``file_safety.local_path``), refused (ConfigError) when it cannot be a path, when
    it is no stored file (a FIFO or device would be waited on), when group or others can write it, or when
    another user owns it (root's is a system file, and a pipe the shell handed over is the person's choice)."""
    try:
        resolved = path.expanduser() if isinstance(path, Path) else local_path(path)
    except NotAPath as error:
        raise ConfigError(f"cannot use the {what} file {str(path)!r}: {error}") from None
    problem = writable_by_others(resolved, what) or (
        None if handed_over(resolved) else owned_by_another(resolved, what, root_too=True))
    if problem:
        raise ConfigError(problem)
    kind = stored_file_problem(resolved)
    if kind:
        raise ConfigError(f"refusing the {what} file {resolved}: {kind}")
    return resolved


BOM = "\ufeff"
"""Notepad's byte order mark at the start of a UTF-8 file: not part of a secret."""


def trimmed(value: str) -> str:
    """``value`` without the white space around it (a BOM too): the one rule for every secret and server URL
    a person gives, wherever from. ``echo TOKEN > file`` adds a line break, a copy from a web page adds spaces,
    ``$(cat file)`` in the environment keeps what the file had; none of it was ever part of the value."""
    return value.strip().removeprefix(BOM).strip()


def _one_word(text: str) -> bool:
    """Whether ``text`` holds no white space and no control character (a token, a URL)."""
    return text.isprintable() and not any(character.isspace() for character in text)


def _token_problem(token: str) -> str | None:
    """Why ``token`` (trimmed) cannot be a bearer token, in words that never quote it; None when it can be.

    An HTTP header carries ASCII only: a space or a line break inside failed as "Illegal header value" quoting
    the whole token (and counted as a network failure), a character past ASCII crashed the encoding with a
    traceback. A token is one word of letters, digits and punctuation (RFC 6750's token68 and more).
    """
    if not token:
        return "it is empty"
    if not token.isascii():
        return ("it holds a character outside ASCII (a smart quote or a non-breaking space, pasted from a web "
                "page?); a token is letters, digits and punctuation only")
    if not _one_word(token):
        return ("it holds white space or a control character inside it (a space, a tab, a second line); "
                "a token is one word, given alone")
    return None


def checked_token(token: str, source: str) -> str:
    """``token`` trimmed (:func:`trimmed`), from ``source`` (``--token``, ``MAILADMIN_TOKEN``, a file, a profile),
    before any is sent; ConfigError naming the source when what is left cannot be a token (:func:`_token_problem`).
    The one rule of every token, wherever it comes from."""
    kept = trimmed(token)
    problem = _token_problem(kept)
    if problem:
        raise ConfigError(f"cannot use {source}: {problem}")
    return kept


def checked_user(user: str, source: str) -> str:
    """``user`` as Basic login sends it, from ``source`` (``--user``, ``MAILADMIN_USER``, a profile); ConfigError
    when it cannot be sent as typed. Basic joins the name and the password with a colon, so a name holding one
    logs in as another name with another password (RFC 7617, 2); a control character is no part of a name.
    Never trimmed: a name is sent as written, or refused."""
    if ":" in user:
        raise ConfigError(f"cannot use {source}: a user name for Basic login cannot hold a colon (:)")
    if not user.isprintable():
        raise ConfigError(f"cannot use {source}: the user name holds a control character (a tab, a line break)")
    return user


def read_secret_file(path: str, what: str, warn: Warn = _ignore) -> str:
    """The token or password in a file, trimmed (:func:`trimmed`); never empty, never with a control character.

    Refused when group or others can write the file, or when it is no stored file; ``warn`` hears
    when others can read it. No error quotes what the file holds: it is a secret, however damaged.
    """
    resolved = checked_file(path, what)
    try:
        # Bounded: `--token-file /dev/zero` (or a config naming it) filled memory to a MemoryError.
        data = read_bounded(resolved, MAX_SECRET_FILE)
        if data is None:
            raise ConfigError(f"cannot read the {what} file {path}: it is larger than {MAX_SECRET_FILE:,} bytes")
        secret = trimmed(data.decode())
    except (OSError, UnicodeDecodeError) as error:
        reason = error.strerror if isinstance(error, OSError) else "it is not text"
        raise ConfigError(f"cannot read the {what} file {path}: {reason}") from None
    if not secret:
        raise ConfigError(f"the {what} file {path} is empty")
    if not secret.isprintable():
        # A NUL byte or a line break inside: the HTTP header's error quoted the whole token.
        raise ConfigError(f"cannot use the {what} file {path}: it holds a control character (a NUL byte, a tab or "
                          "a second line); it must hold the secret alone, on one line")
    exposed = readable_by_others(resolved, what)
    if exposed:
        warn(exposed)
    return secret


def read_token_file(path: str, warn: Warn = _ignore, what: str = "token") -> str:
    """The bearer token in a file (:func:`read_secret_file`), held to the rule every token is held to."""
    return checked_token(read_secret_file(path, what, warn), f"the {what} file {path}")


def _read_text(path: Path, *, follow: bool = True) -> str:
    """The config file's text: a regular file (a symlink to one followed if ``follow``), bounded; else ConfigError."""
    try:
        raw = read_regular(path, MAX_CONFIG_FILE, follow=follow)
        if raw is None:
            raise ConfigError(f"cannot read {path}: it is larger than {MAX_CONFIG_FILE:,} bytes")
        return raw.decode()
    except NotAFile as refusal:
        raise ConfigError(f"cannot read {path}: {refusal}") from None
    except OSError as error:
        raise ConfigError(f"cannot read {path}: {error.strerror or error}") from None
    except UnicodeDecodeError:
        raise ConfigError(f"cannot read {path}: it is not UTF-8 text") from None


def _checked_text(path: Path, *, follow: bool = True) -> str:
    """The config file's text, refused (ConfigError) when group or others can write it: they could swap in
    their own server, token or CA. The one check, made when the file is read at start, when the console
    reads it again, and under each save's lock (the console saved over a file made 0666 after it started).

    ``follow``: a link at ``path`` is read through only when it is the person's own, by the rule a save
    writes through it (:func:`~jmapclient.file_safety.own_file_at`); a planted one was read and used without
    a word, sending the person's token where it said (tester81). Without ``follow`` any link is refused.
    """
    problem = writable_by_others(path, "config")
    if problem:
        raise ConfigError(problem)
    target = _own_config(path) if follow else path
    _refuse_not_own(target)
    return _read_text(target, follow=False)


def _refuse_not_own(path: Path) -> None:
    """ConfigError unless the config at ``path`` is the person's alone: a file another user owns (root's too, for
    anyone else: the file is the person's own, which a save rewrites), or one in a folder another user owns or group
    or others can write (they could put their own file in its place at any time) is refused, as a planted link is.
    A file not made yet is checked for its folder only: a save would make it there. A regular file planted with
    their server and the person's own token file was read and used, and a save merged into it (the tester's).
    """
    problem = untrusted_folder(path.parent, "config")
    if problem:
        raise ConfigError(f"refusing the config file {path}: {problem}")
    problem = owned_by_another(path, "config")
    if problem:
        raise ConfigError(problem)


def _own_config(path: Path) -> Path:
    """The file a read of the config at ``path`` takes (:func:`~jmapclient.file_safety.own_file_at`); ConfigError
    naming ``path`` for a link that is not the person's own."""
    try:
        return own_file_at(path)
    except OSError as refusal:
        raise ConfigError(f"cannot read {path}: {refusal.strerror or refusal}") from None


def _parse(path: Path, text: str) -> dict[str, Any]:
    import tomllib

    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"cannot read {path}: {error}") from None


def write_private(path: Path, content: bytes, *, create_parent: bool = True) -> None:
    """Write ``content`` to ``path`` with mode 0600, atomically.

    ``create_parent`` is for this tool's own folders; a path the person typed is written
    only into a folder that exists. A target that exists and is no regular file (``/dev/null``,
    ``/dev/stdout``, a FIFO) is written into, never replaced (``file_safety.is_stream``).
    """
    with open_private(path, create_parent=create_parent) as handle:
        handle.write(content)


@contextmanager
def open_private(path: Path, *, create_parent: bool = True) -> Iterator[BinaryIO]:
    """A file to write ``path`` through, as :func:`write_private` writes it, a piece at a time.

    A regular file is written into a new 0600 file beside it, which replaces it only once all is
    written (an export of 100,000 reports need not be held whole in memory); on an error the new
    file goes and ``path`` is as it was. A stream target is collected and written at the end.
    """
    import tempfile

    if is_stream(path):
        buffer = io.BytesIO()
        yield buffer
        with naming_target(path):
            write_stream(path, buffer.getvalue())
        return
    if create_parent:
        make_private_folder(path.parent)
    try:
        descriptor, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    except OSError as error:
        # Its error names the new file beside the target ("cannot use /proc/.version.m2phhj69"), a name the
        # person never gave: the target is named instead (the tester's).
        raise OSError(error.errno, error.strerror, str(path)) from error
    try:
        os.fchmod(descriptor, OWNER_ONLY)
        with os.fdopen(descriptor, "wb") as handle:
            yield handle
        os.replace(temporary, path)
    except OSError as error:
        Path(temporary).unlink(missing_ok=True)
        raise naming(error, path) from error
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def server_url(given: str) -> str:
    """``given`` trimmed (:func:`trimmed`), once it is a server's root URL, e.g. https://mail.example.com;
    ConfigError otherwise. The one check of ``--url``, ``MAILADMIN_URL``, a profile's URL and the profile form's.

    White space or a control character inside is refused: ``urlsplit`` drops a line break or a tab from
    inside a URL without a word, and a space at the start only on newer Pythons (3.11.4+); a space at the
    end went into the path. So " https://x " passed here and failed at the first request, as a network error.
    """
    url = trimmed(given)
    if "@" in url:
        # user:pass@ would replace the token and be echoed in every error: refused, and never repeated
        # (anywhere in the URL: a password holding "/" moves the @ out of what urlsplit calls the host).
        # Worded for the CLI and the profile form alike: the form has no flags to name.
        raise ConfigError("that is not a server URL: it holds a user name or password (before an @); write it "
                          "like https://mail.example.com, and give the login on its own: a user name with a "
                          "password file, or a token")
    wrong = ConfigError(f"{url!r} is not a server URL; write it like https://mail.example.com")
    if not _one_word(url):
        raise wrong
    try:
        # ValueError for a bracketed host that is no IP address (http://[x]/), and for a port
        # that is no number from 0 to 65535.
        parts = urlsplit(url)
        parts.port  # noqa: B018  (read for its check)
    except ValueError:
        raise wrong from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise wrong
    return url


def profile_name(name: str) -> str:
    """``name`` as profiles are named and looked up: trimmed (:func:`trimmed`, as URLs and tokens are), in Unicode's
    composed form (NFC). "prod " and "prod", or "café" typed as e + a combining accent and as é, were two profiles
    listed alike, pointing at different servers: a script's ``--profile "$NAME"`` with a space reached the other."""
    import unicodedata

    return unicodedata.normalize("NFC", trimmed(name))


def check_profile_name(name: str) -> None:
    """Raise ConfigError unless ``name`` can name a profile: not blank, shown as typed."""
    from jmapclient.display import safe_text

    if not name.strip():
        raise ConfigError("a profile needs a name")
    if safe_text(name) != name:
        # A name is typed by the admin: one holding an escape sequence changed the terminal's colours
        # wherever it was shown raw. Refused, said as it would be shown (escaped).
        raise ConfigError(f"the profile name '{safe_text(name)}' holds a control or invisible character; "
                          "give it a name without one")


class ProfileChanged(ConfigError):
    """The profile an edit saves was changed in the file since it was read (by another program): nothing saved."""

    def __init__(self, name: str, path: Path, read: Mapping[str, Any], held: Mapping[str, Any]) -> None:
        self.changed = changed_profile_keys(read, held)
        super().__init__(f"profile {name!r} was changed in {path} since it was read (by another program):"
                         f" {self.changed}; nothing saved")


def changed_profile_keys(read: Mapping[str, Any], held: Mapping[str, Any]) -> str:
    """The keys of a profile's table that differ, each with the value held now (a token never shown)."""
    from jmapclient.display import safe_text

    said = []
    order = [*(spec.name for spec in fields(Profile)), *read, *held]  # the form's order, then unknown keys
    for key in sorted({*read, *held}, key=order.index):
        if read.get(key) == held.get(key):
            continue
        value = held.get(key)
        if key == "token" or value is None:
            said.append(f"{key} ({'now none' if value is None else 'changed'})")
        elif isinstance(value, bool):
            said.append(f"{key} (now {'on' if value else 'off'})")
        else:
            said.append(f"{key} (now {safe_text(str(value), max_len=60)})")
    return ", ".join(said)


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
    read_from: Path | None = field(default=None, compare=False, repr=False)
    """The config file this profile was read from (None: made in this process); never saved in it."""

    def __repr__(self) -> str:  # never show the token
        return f"Profile(name={self.name!r}, url={self.url!r}, read_only={self.read_only})"

    def resolve_token(self, warn: Warn = _ignore) -> str:
        """The token this profile logs in with, held to every token's rule; ``warn`` hears when the file it is
        in (this config file, or its token file) can be read by group or others."""
        if self.token:
            if exposed := self.token_exposed():
                warn(exposed)
            return checked_token(self.token, self.token_source)
        if self.token_file:
            return read_token_file(self.token_file, warn, f"profile {self.name!r} token")
        raise ConfigError(f"profile {self.name!r} has no token or token file")

    @property
    def token_source(self) -> str:
        """The stored token, as an error names it (never its value)."""
        return f"the token of profile {self.name!r}"

    def token_exposed(self) -> str | None:
        """The warning when this profile stores its token in a config file group or others can read
        (a token file's own warning, worded for the config file), or None."""
        if not self.token or self.read_from is None:
            return None
        return readable_by_others(self.read_from, "config")

    def credentials(self, environ: Mapping[str, str] | None = None, warn: Warn = _ignore) -> Credentials:
        """Basic when the profile names a user, else the bearer token."""
        if not self.user:
            return BearerToken(self.resolve_token(warn))
        env = os.environ if environ is None else environ
        checked_user(self.user, f"the user of profile {self.name!r}")
        if self.password_file:
            return BasicLogin(self.user, read_secret_file(self.password_file, "password", warn))
        if env.get(PASSWORD_ENV):
            return BasicLogin(self.user, env[PASSWORD_ENV])
        raise ConfigError(f"profile {self.name!r} names user {self.user!r} but no password file; set {PASSWORD_ENV}")

    def check_files(self, warn: Warn = _ignore) -> None:
        """Read now the token and password files this profile reads at each connection: a missing file or a bad
        mode is said when it is saved, by ``profile add`` and the console's form alike (the form saved files that
        did not exist: tester83). ConfigError names the field (:func:`concerning`)."""
        if self.token_file:
            with concerning("token_file"):
                read_token_file(self.token_file, warn)
        if self.password_file:
            with concerning("password_file"):
                read_secret_file(self.password_file, "password", warn)

    def checked(self) -> Profile:
        """This profile as it is saved: its URL and token trimmed, each checked as ``--url`` and ``--token`` are
        (caught here, not at the first connection); ConfigError naming what keeps it from being saved (forms show it
        inline)."""
        name = profile_name(self.name)
        with concerning("name"):
            check_profile_name(name)
        with concerning("url"):
            url = server_url(self.url)
        with concerning("token"):
            token = checked_token(self.token, self.token_source) if self.token else None
        if self.user:
            with concerning("user"):
                checked_user(self.user, f"the user of profile {self.name!r}")
        return replace(self, name=name, url=url, token=token)

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
    def from_toml(cls, name: str, table: Any, read_from: Path | None = None) -> Profile:
        """The profile ``name`` the file's ``table`` describes; ConfigError saying why when this version cannot read
        it (in words that do not name it: :attr:`Config.profile_refusals` does)."""
        if not isinstance(table, dict) or not isinstance(table.get("url"), str) or not table["url"]:
            raise ConfigError('it has no url (a line like url = "https://mail.example.com")')
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
            read_from=read_from,
        )


BINDING_ID = re.compile(r"[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)+")
"""A binding id as the console declares them: ``app.quit``, ``directories.create``."""
KEY_NAME = re.compile(r"[A-Za-z0-9_]+(\+[A-Za-z0-9_]+)*")
"""A key as Textual names it: ``n``, ``ctrl+q``, ``f1``, ``question_mark``, ``shift+tab``."""
MAX_KEY_REMAPS = 200
"""Remaps read: the console declares about fifty bindings."""


def checked_key_remaps(table: Mapping[Any, Any]) -> tuple[dict[str, str], list[str]]:
    """The ``[keys]`` remaps whose spelling can be a binding id and key names, and one line per refusal.

    Unchecked, junk reached the console: escapes in a key went to the terminal raw through the
    footer. Whether the id exists and the key is free is the console's to check
    (``tui.key_remaps``); each refusal names the remap, as safe text.
    """
    from jmapclient.display import safe_text

    accepted: dict[str, str] = {}
    refused: list[str] = []
    for number, (binding, keys) in enumerate(table.items()):
        shown = f"[keys] {safe_text(binding, max_len=60)} = {safe_text(keys, max_len=60)}"
        if number >= MAX_KEY_REMAPS:
            refused.append(f"{shown}: refused, more than {MAX_KEY_REMAPS} remaps")
        elif not isinstance(binding, str) or not BINDING_ID.fullmatch(binding):
            refused.append(f"{shown}: refused, not a binding id (like app.quit; `?` in the console lists them)")
        elif not isinstance(keys, str) or not keys.strip():
            refused.append(f"{shown}: refused, the keys must be a string like \"ctrl+q\" or \"n,insert\"")
        elif not all(KEY_NAME.fullmatch(part.strip()) for part in keys.split(",")):
            refused.append(f"{shown}: refused, not key names (letters, digits, _ and + only, like ctrl+q or f2)")
        else:
            accepted[binding] = ",".join(part.strip() for part in keys.split(","))
    return accepted, refused


@dataclass(frozen=True)
class UnreadableProfile:
    """A profile table this version cannot read: a newer version's (``urls = [...]``), or mistyped."""

    reason: str
    """Why (:meth:`Profile.from_toml`'s words): ``it has no url (...)``."""
    table: Any
    """The table as the file holds it: a save compares it, and leaves it as it is unless it is removed or replaced."""


@dataclass
class Config:
    """The whole file: profiles, the default profile's name, and key remaps."""

    profiles: dict[str, Profile] = field(default_factory=dict)
    default: str | None = None
    keys: dict[str, str] = field(default_factory=dict)
    """Binding id → key(s), e.g. ``{"app.quit": "ctrl+q"}``; read by the console."""
    offline: bool = False
    """``[dmarc] offline``: the console names no DMARC source by DNS (no lookups at all)."""
    senders: tuple[str, ...] = ()
    """``[dmarc] senders``: shared providers (base domains) the owner says send for its domains."""
    theme: str | None = None
    """``[console] theme``: the console's theme, as last chosen in it (the palette's "Change theme")."""
    path: Path = field(default_factory=config_path)

    key_refusals: list[str] = field(default_factory=list)
    """One line per ``[keys]`` remap refused when the file was read (the console shows them)."""
    unreadable: dict[str, UnreadableProfile] = field(default_factory=dict)
    """Profiles the file holds that this version cannot read, by name: skipped, so that the others can be used (one
    written by a newer version blocked every command, ``profile remove`` of it too); left in the file as they are,
    and removed or replaced whole by name (:meth:`remove`, :meth:`add`). :attr:`profile_refusals` says them."""
    _loaded: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)
    """What the file held when read (or last saved), as plain data: a save writes only the differences."""
    _renamed: dict[str, str] = field(default_factory=dict, repr=False, compare=False)
    """New name → old name of each profile renamed since then (``config_write.merge`` moves its table)."""
    _whole: set[str] = field(default_factory=set, repr=False, compare=False)
    """Profiles a save writes whole, over what the file holds (:meth:`put` with ``over``), not merged key by key."""

    @classmethod
    def load(cls, path: Path | None = None) -> Config:
        path = path or config_path()
        if not os.path.lexists(path):  # a link to nothing is no missing file: refused as reading it says
            return cls(path=path)
        return cls._from_plain(_parse(path, _checked_text(path)), path)

    @classmethod
    def _from_plain(cls, data: dict[str, Any], path: Path) -> Config:
        # A hand-edited file can hold anything where a table belongs (`profiles = 5`): said as
        # one error line, never an AttributeError traceback.
        for table in ("profiles", "keys"):
            if not isinstance(data.get(table, {}), dict):
                raise ConfigError(f"cannot read {path}: `{table}` must be a table, like [{table}]")
        profiles: dict[str, Profile] = {}
        unreadable: dict[str, UnreadableProfile] = {}
        for name, table in (data.get("profiles") or {}).items():
            try:
                profiles[name] = Profile.from_toml(name, table, path)
            except ConfigError as error:
                unreadable[name] = UnreadableProfile(str(error), table)
        keys, refused = checked_key_remaps(data.get("keys") or {})
        default = data.get("default") if isinstance(data.get("default"), str) else None
        dmarc = data.get("dmarc")
        offline = isinstance(dmarc, dict) and dmarc.get("offline") is True
        listed = dmarc.get("senders") if isinstance(dmarc, dict) else None
        senders = tuple(str(d) for d in listed if isinstance(d, str)) if isinstance(listed, list) else ()
        console = data.get("console")
        theme = console.get("theme") if isinstance(console, dict) and isinstance(console.get("theme"), str) else None
        config = cls(profiles=profiles, default=default, keys=keys, offline=offline, senders=senders, theme=theme,
                     path=path, key_refusals=refused, unreadable=unreadable)
        config._loaded = config._plain()
        config._loaded["keys"] = {str(k): v for k, v in (data.get("keys") or {}).items()}  # refused ones stay
        return config

    def _plain(self) -> dict[str, Any]:
        """This config as the file would hold it: what :meth:`save` compares with :attr:`_loaded`."""
        return {
            "default": self.default,
            "profiles": {**{name: p.to_toml() for name, p in self.profiles.items()},
                         **{name: skipped.table for name, skipped in self.unreadable.items()}},  # kept as they are
            "keys": {**self._loaded.get("keys", {}), **self.keys},  # a refused remap is not erased by a save
            "dmarc": {**({"offline": True} if self.offline else {}),
                      **({"senders": list(self.senders)} if self.senders else {})},
            "console": {"theme": self.theme} if self.theme else {},
        }

    def save(self, *, expect: Callable[[Config], None] | None = None) -> None:
        """Write what changed since this config was read, into the file as it is on disk now.

        Under a lock, re-read; apply only this config's own changes (``config_write.merge``:
        comments, order and unknown keys kept); write atomically, 0600. Then this config holds the
        merged file: a profile another writer added meanwhile shows up. ``expect`` sees the file as it
        is now, under the lock, and raises ConfigError to save nothing. A symbolic link at the path is
        written through only when it is the person's own (:func:`~jmapclient.file_safety.own_file_at`), else
        refused (OSError). OSError when it cannot be written; ConfigError when
        the file on disk cannot be read or must not be used.
        """
        import tomlkit

        from jmapclient.config_write import locked, merge

        with naming_target(self.path):  # every OSError names a file: "another mailadmin is saving it" did not
            target = own_file_at(self.path)  # before a folder or a lock is made for it
            _refuse_not_own(target)  # nor in a folder others can put their own file in (checked again under the lock)
            make_private_folder(target.parent)
            with locked(target):
                document = self._on_disk("save", at=target, follow=False)  # a link swapped in meanwhile: refused
                if expect is not None:
                    expect(Config._from_plain(document.unwrap(), self.path))
                merge(document, self._loaded, self._plain(), renamed=self._renamed, whole=self._whole)
                # A table removed or moved leaves its blank lines behind: at the file's start (the default
                # removed) or its end (a renamed profile's table). Only there: inside, they may be a value's.
                content = tomlkit.dumps(document).strip("\n")
                content = f"{content}\n" if content else ""
                write_private(target, content.encode(), create_parent=False)
        self._take(Config._from_plain(_parse(self.path, content), self.path))

    def refresh(self) -> None:
        """Take in the file as it is now, this config's own unsaved changes kept on top: a profile another
        process added shows up, one it removed goes. ConfigError when the file cannot be used now.

        The console reads the file once at start; its connection screen listed that copy for hours.
        """
        from jmapclient.config_write import merge

        document = self._on_disk("read")
        on_disk = Config._from_plain(document.unwrap(), self.path)
        merge(document, self._loaded, self._plain())
        self._take(Config._from_plain(document.unwrap(), self.path))
        self._loaded = on_disk._loaded

    def _on_disk(self, doing: str, *, at: Path | None = None, follow: bool = True) -> Any:
        """The file as it is now (checked as at start), as a tomlkit document; empty when there is none.
        ``at``: the file itself when the config's path is the person's own link to it."""
        import tomlkit

        path = at or self.path
        text = _checked_text(path, follow=follow) if os.path.lexists(path) else ""
        try:
            return tomlkit.parse(text)
        except tomlkit.exceptions.ParseError as error:
            raise ConfigError(f"cannot {doing} {self.path}: the file on disk is not TOML now ({error})") from None

    def _take(self, other: Config) -> None:
        """Hold what ``other`` holds (the file as saved or read, with its changes): its path stays this one's."""
        self.profiles, self.default, self.keys = other.profiles, other.default, other.keys
        self.unreadable = other.unreadable
        self.offline, self.senders, self.theme = other.offline, other.senders, other.theme
        self._loaded, self._renamed, self._whole = other._loaded, other._renamed, set()

    def apply(self, change: Callable[[Config], None], *, expect: Callable[[Config], None] | None = None) -> None:
        """Make ``change`` on a copy and save it (``expect`` as for :meth:`save`); this config takes the
        result only once saved. A save refused leaves it as it was: the console's list showed a profile
        added or removed that the file did not hold, and the next save wrote it."""
        import copy

        trial = copy.deepcopy(self)
        change(trial)
        trial.save(expect=expect)
        self._take(trial)

    def put(self, profile: Profile, *, replacing: str | None = None, over: bool = False) -> None:
        """Save ``profile`` as a new profile, or in place of the one named ``replacing`` (an edit, perhaps
        renamed), checked against the file as it is now: ConfigError when its name is taken there, or
        when the profile edited was removed from it meanwhile (not brought back without a word);
        :class:`ProfileChanged` when it was changed there since this config read it, unless ``over``: then
        the profile is written whole, over what the file holds."""
        profile = replace(profile, name=profile_name(profile.name))  # as it is saved (:meth:`add`)

        def change(config: Config) -> None:
            # Renamed, the default stays the default: removing it first moved the default to another
            # profile, and `mailadmin` with no --profile then connected elsewhere.
            default, was_default = config.default, replacing is not None and config.default == replacing
            if replacing is not None and replacing != profile.name:
                config.remove(replacing)
                config._renamed[profile.name] = replacing
            config.add(profile, make_default=was_default, whole=over)
            if replacing is not None:  # an edit, renamed or not, is no new profile: the default stays as it was
                config.default = profile.name if was_default else default

        def expect(now: Config) -> None:
            if replacing is not None and replacing not in now.profiles:
                raise ConfigError(f"profile {replacing!r} was removed from {self.path} meanwhile (by another "
                                  "program); nothing saved, so it is not brought back: add it again to keep it")
            if now.named(profile.name) not in (None, replacing):  # spelled otherwise too ("prod " for "prod")
                raise ConfigError(f"there is already a profile named {profile.name!r}")
            if replacing is not None and not over:
                # Merged key by key, an edit of the URL kept the token file another program had put in meanwhile:
                # the profile then sent one server's admin token to another (the tester's).
                read = self._loaded.get("profiles", {}).get(replacing, {})
                held = now._loaded.get("profiles", {}).get(replacing, {})
                if read != held:
                    raise ProfileChanged(replacing, self.path, read, held)

        self.apply(change, expect=expect)

    def add(self, profile: Profile, *, make_default: bool = False, whole: bool = False) -> None:
        """Add ``profile``, or put it in place of the one of its name. ``whole``: a save writes its table whole, so
        that the keys this version does not know go with the profile replaced (``profile add`` over one: its
        ``client_cert`` and ``proxy`` were the old server's); without it a save changes only the keys it knows."""
        profile = profile.checked()  # trimmed as it is checked: " https://x " saved as typed failed at each use
        existing = self.named(profile.name)
        if existing is not None and existing != profile.name:  # the same name spelled otherwise in the file: replaced
            make_default = make_default or self.default == existing
            self.profiles.pop(existing, None)
            self.unreadable.pop(existing, None)
        new = existing is None
        self.unreadable.pop(profile.name, None)  # replaced by one this version can read
        self.profiles[profile.name] = profile
        if whole:
            self._whole.add(profile.name)
        # The first profile added is the default; one saved into a file of profiles that names none leaves it so,
        # and so does one replaced (an edit from the console, `profile add` over the only one, wrote
        # `default = "<name>"` unasked: commands without --profile that had failed then connected).
        if make_default or (new and self.default is None and len(self.profiles) + len(self.unreadable) == 1):
            self.default = profile.name

    def remove(self, name: str) -> None:
        """Remove the profile ``name`` names (:meth:`named`, the file's exact spelling first)."""
        key = self.named(name, exact=True)
        if key is None:
            raise ConfigError(f"no profile named {name!r}")
        self.profiles.pop(key, None)
        self.unreadable.pop(key, None)  # a profile this version cannot read is removed all the same
        if self.default == key:
            # None, not another profile: one picked for the person sent the next `mailadmin delete` without
            # --profile to a server they had not chosen, and nothing said so.
            self.default = None

    def make_default(self, name: str) -> None:
        self.default = self.get(name).name

    def get(self, name: str | None = None) -> Profile:
        chosen = name or self.default
        if chosen is None:
            raise ConfigError("no profile given and no default profile; name one with `mailadmin profile default "
                              "NAME`, or add one with `mailadmin profile add`")
        key = self.named(chosen, exact=name is None)  # the default as the file spells it
        if key is None:
            raise ConfigError(f"no profile named {chosen!r}")
        if key in self.unreadable:
            raise ConfigError(f"cannot use profile {key!r} in {self.path}: {self.unreadable[key].reason}; "
                              f"{_way_out(key)}")
        return self.profiles[key]

    def named(self, name: str, *, exact: bool = False) -> str | None:
        """The name in the file of the profile ``name`` names, readable or not (:attr:`unreadable`); None when none.

        Compared as :func:`profile_name` makes names (a file written by hand or by an older version may spell one
        " prod" or in decomposed form). ``exact``: the file's own spelling first (``profile remove`` of one of two
        that differ only so). Two or more that differ only so are refused (ConfigError): the one a typed name
        reaches would be a guess, and they may point at different servers.
        """
        known = [*self.profiles, *self.unreadable]
        if exact and name in known:
            return name
        wanted = profile_name(name)
        found = [key for key in known if profile_name(key) == wanted]
        if len(found) > 1:
            raise ConfigError(f"profiles {', '.join(map(repr, found))} in {self.path} differ only by white space "
                              "around their names or by their Unicode form; remove all but one with `mailadmin "
                              "profile remove NAME`, NAME spelled as the file spells it")
        return found[0] if found else None

    @property
    def profile_refusals(self) -> list[str]:
        """One warning line per profile skipped because this version cannot read it (:attr:`unreadable`), naming
        the file and the way out; using it is an error in the same words (:meth:`get`)."""
        return [f"profile {name!r} in {self.path} is skipped: {skipped.reason}; {_way_out(name)}"
                for name, skipped in self.unreadable.items()]


def _way_out(name: str) -> str:
    """What to do about a profile this version cannot read."""
    import shlex

    from jmapclient.display import safe_text

    return ("a newer version's, or mistyped? Fix it there, or remove it with "
            f"`mailadmin profile remove {safe_text(shlex.quote(name))}`")
