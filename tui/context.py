"""What every console section is given: the client, who is connected, and what they may do.

A section never builds its own client or reads the config; the shell hands it one
:class:`ConsoleContext`. Tests build one around an in-process stub and a frozen clock.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from jmapclient.errors import MethodError, SetError

if TYPE_CHECKING:  # the client and models load with the first section, after the first frame
    from jmapclient.client import JmapClient
    from jmapclient.models.objects import Action, ObjectType

READ_ACTIONS = frozenset({"get", "query"})
"""Actions a read-only profile still allows (by the suffix of the permission name)."""


def _utc_now() -> datetime:
    return datetime.now(UTC)


@dataclass
class ConsoleContext:
    """The connection a section works with.

    ``denied`` holds permission names (``sysDirectoryCreate`` ...) the server refused with
    ``forbidden``; once learned, the action is shown disabled with the reason.
    """

    client: JmapClient
    server_label: str
    username: str
    read_only: bool = False
    profile: str = ""
    """The profile connected through, named in the header (empty: a URL given as flags, the demo)."""
    transport_warning: str = ""
    """Shown in the header for as long as the connection lasts: TLS NOT VERIFIED, CLEARTEXT HTTP."""
    notices: tuple[str, ...] = ()
    """Said once when the console opens on this connection (a token file others can read...)."""
    denied: set[str] = field(default_factory=set)
    granted: frozenset[str] | None = None
    """The login's permissions as the server told them up front (``/api/account``); None: not told."""
    now: Callable[[], datetime] = _utc_now
    dmarc_senders: tuple[str, ...] = ()
    """Shared providers the owner says send for its domains (the config's ``[dmarc] senders``)."""
    offline: bool = False
    """No DNS lookups for DMARC source names (the config's ``[dmarc] offline``, or ``demo --offline``)."""
    source_names: Any = None
    """The connection's :class:`tui.reports.source_names.SourceNames`, made on first use (tests set a fake)."""
    kept: dict[str, object] = field(default_factory=dict)
    """What a section leaves for its next visit on this connection, by the section's own key (the DMARC inbox's
    filter and sort): the shell builds a section afresh at each visit, and a hop to Directories and back lost
    what was typed there."""

    def can(self, permission: str) -> tuple[bool, str]:
        """Whether an action is allowed, and if not, the reason in words."""
        if permission in self.denied:
            return False, f"the server refused this token the {permission} permission"
        if self._read_only_refuses(permission):
            return False, "this profile is read-only"
        return True, ""

    def _read_only_refuses(self, permission: str) -> bool:
        return self.read_only and not permission.endswith(("Get", "Query"))

    def can_do(self, object_type: ObjectType, action: Action) -> tuple[bool, str]:
        """``can`` for an action on an object type, e.g. ``can_do(DIRECTORY, "create")``; the rights the
        server told up front decide first."""
        from jmapclient.rights import refusal  # with the models, after the first frame

        reason = refusal(self.granted, object_type, action)
        if reason:
            return False, reason
        return self.can(object_type.permission(action))

    def refused_outright(self, object_type: ObjectType, action: Action) -> bool:
        """Refused by the profile (read-only) or by the rights the server told up front, not by an answer
        learned since: asking the server again (:meth:`ask_again`) cannot allow it, so its key is not offered."""
        from jmapclient.rights import refusal  # with the models, after the first frame

        return bool(refusal(self.granted, object_type, action)) or self._read_only_refuses(
            object_type.permission(action))

    def ask_again(self, object_type: ObjectType, action: Action) -> bool:
        """Forget a refusal of ``action`` learned from a ``forbidden`` answer, and say whether nothing else
        refuses it now: the server is then asked again. A token's rights change on the server (a refused
        save stayed refused for the whole session, its edit lost to a restart); a read-only profile and
        the rights told up front still refuse."""
        permission = object_type.permission(action)
        if permission not in self.denied:
            return False
        self.denied.discard(permission)
        return self.can_do(object_type, action)[0]

    async def relearn_rights(self) -> None:
        """Every refusal learned from the server forgotten, and the login and its rights asked again (a reload).
        Unreachable, they stay as they were: the section's own reload then says what went wrong."""
        from jmapclient.errors import JmapError

        self.denied.clear()
        self.client.forget_session()
        try:
            session = await self.client.session()
            granted = await self.client.permissions()
        except JmapError:
            return
        self.username = session.username or self.username
        self.granted = granted

    def learn_forbidden(self, object_type: ObjectType, action: Action, error: Exception | SetError) -> bool:
        """Remember a ``forbidden`` answer to ``action``; True if it was one."""
        forbidden = (isinstance(error, MethodError) and error.forbidden) or (
            isinstance(error, SetError) and error.type == "forbidden"
        )
        if forbidden:
            self.denied.add(object_type.permission(action))
        return forbidden
