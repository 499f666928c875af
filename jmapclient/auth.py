"""How the client proves who it is: a bearer token, or a user name and password (Basic).

The real server takes both (wire-notes.md): an API key (``API_...``) or OAuth token as
Bearer, or a user name with a password or an app password (``app_...``) as Basic. Its
recovery administrator can log in only with Basic. Neither form ever shows its secret
in a repr.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass


@dataclass(frozen=True)
class BearerToken:
    token: str

    def __repr__(self) -> str:
        return "BearerToken(****)"

    @property
    def header(self) -> str:
        return f"Bearer {self.token}"

    @property
    def secrets(self) -> tuple[str, ...]:
        """What a crash report or a log must mask."""
        return (self.token, self.header)

    @property
    def refused(self) -> str:
        """What a 401 means for this kind of login, in words."""
        return "refused the token (401): check or renew it"


@dataclass(frozen=True)
class BasicLogin:
    user: str
    password: str

    def __repr__(self) -> str:
        return f"BasicLogin(user={self.user!r})"

    @property
    def header(self) -> str:
        pair = f"{self.user}:{self.password}".encode()
        return "Basic " + base64.b64encode(pair).decode("ascii")

    @property
    def secrets(self) -> tuple[str, ...]:
        """What a crash report or a log must mask: the password and the header that encodes it."""
        return (self.password, self.header, self.header.removeprefix("Basic "))

    @property
    def refused(self) -> str:
        return f"refused the user name or password of {self.user!r} (401): check both"


Credentials = BearerToken | BasicLogin


def as_credentials(value: str | Credentials) -> Credentials:
    """A bare string is a bearer token, as it always was."""
    return BearerToken(value) if isinstance(value, str) else value
