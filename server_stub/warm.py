"""What a server's first create would build, built before it serves: the first request is not the slow one.

The models build their validators on first use (``defer_build``: a command touching one type does not build
them all), and the stub writes each class's walk to its stored form on first use too. A freshly started
stub paid both, with pydantic's plugin lookup, inside its first create: 20-90 ms answering the import's
probe while the client waited to send its first batch (issue #33). Each is built once a process.
"""

from __future__ import annotations

from collections.abc import Iterable
from contextlib import suppress

from jmapclient.models.objects import ObjectType
from server_stub.validation import InvalidObject, validate_incoming
from server_stub.wire_dump import prepare


def warm(object_types: Iterable[ObjectType]) -> None:
    """Build the validators and stored-form walks of ``object_types``, as a create of each would."""
    for object_type in object_types:
        with suppress(InvalidObject):
            validate_incoming(object_type, {})  # builds the validator, and words its refusal as a create would
        for model_class in object_type.variants.values() or [object_type.annotation]:
            prepare(model_class)
