"""Objects already encoded as JSON, spliced into an answer instead of decoded and encoded again.

The stub keeps each object as compact JSON. Decoding a report and encoding it again for the
answer was two thirds of the CPU a ``get`` of reports cost (issue #33), for bytes that come out
the same. A :class:`RawList` carries the encoded objects through the dispatcher; the answer is
encoded with a placeholder where each list goes, and the bytes are put in its place.
"""

from __future__ import annotations

import json
import secrets
from typing import Any

from server_stub.limits import SizedList


class RawList(SizedList):
    """A get's ``list``: each object as UTF-8 compact JSON, its size known without a walk.

    As a Python list it holds one placeholder string, unguessable (a NUL and 128 random bits:
    no stored string can make the answer splice in the wrong place); :func:`encode_answer`
    replaces its JSON by the objects. Whatever reads the objects themselves (a result reference
    into the list) calls :meth:`objects`.
    """

    def __init__(self, texts: list[bytes]) -> None:
        self.token = "\x00" + secrets.token_hex(16)
        super().__init__([self.token])
        self.texts = texts
        self.json_bytes = sum(map(len, texts)) + 1 + max(len(texts), 1)  # brackets and commas
        self._objects: list[Any] | None = None

    def objects(self) -> list[Any]:
        """The objects decoded, once."""
        if self._objects is None:
            self._objects = [json.loads(text) for text in self.texts]
        return self._objects


def plain(value: Any) -> Any:
    """``value`` with a :class:`RawList` decoded: what a JSON pointer walks."""
    return value.objects() if isinstance(value, RawList) else value


def encode_json(value: Any) -> bytes:
    """Compact UTF-8 JSON; a lone surrogate (kept from an older store) escaped, never an error."""
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    try:
        return text.encode()
    except UnicodeEncodeError:
        return json.dumps(value, separators=(",", ":")).encode()


def encode_answer(answer: dict[str, Any]) -> bytes:
    """The API answer as bytes, each method response's :class:`RawList` spliced in as stored."""
    raws = [value for response in answer.get("methodResponses", ())
            for value in response[1].values() if isinstance(value, RawList)]
    body = encode_json(answer)
    for raw in raws:
        # json.dumps writes the NUL as \u0000 whether or not it escapes non-ASCII.
        placeholder = b'"\\u0000' + raw.token[1:].encode() + b'"'
        body = body.replace(placeholder, b",".join(raw.texts), 1)
    return body
