"""``GET /api/account`` and ``GET /api/schema``: what the real server tells a client up front (wire-notes.md).

The account lists the permissions the login holds, so a client knows its rights before it is
refused; the real server never lists report create or update (it refuses those writes as its
rule). The schema is published under a hashed path, gzip JSON, so a client can cache it per server.
"""

from __future__ import annotations

import gzip
import hashlib
import json
from functools import cache
from typing import Any

from jmapclient.models.introspect import KIND_WORDS, fields_of, kind_label
from jmapclient.models.objects import OBJECT_TYPES, ObjectType
from server_stub.auth import Principal
from server_stub.profiles import ServerProfile

ACCOUNT_PATH = "/api/account"
SCHEMA_PATH = "/api/schema"
EDITION = "community"
LOCALE = "en"


def never_listed(profile: ServerProfile) -> frozenset[str]:
    """Permissions the account never lists on this profile: report writes the real server refuses."""
    if profile.reports_writable:
        return frozenset()
    reports = OBJECT_TYPES["DmarcExternalReport"]
    return frozenset(reports.permission(action) for action in ("create", "update"))


def account_resource(profile: ServerProfile, principal: Principal) -> dict[str, Any]:
    permissions = sorted(principal.permissions - never_listed(profile))
    return {"permissions": permissions, "edition": EDITION, "locale": LOCALE}


def _object_schema(object_type: ObjectType) -> dict[str, Any]:
    variants = object_type.variants or {object_type.name: object_type.annotation}
    return {
        "variants": {
            name: {
                "label": kind_label(model),
                "fields": {
                    spec.wire: {"label": spec.label, "type": KIND_WORDS.get(spec.kind, spec.kind),
                                "required": spec.required, "nullable": spec.nullable, "default": spec.default,
                                **({"enum": list(spec.choices)} if spec.choices else {})}
                    for spec in fields_of(model)
                },
            }
            for name, model in variants.items()
        }
    }


@cache
def schema_body() -> tuple[str, bytes]:
    """(hash, gzip JSON) of the schema; the hash changes exactly when the schema does."""
    document = {"objects": {name: _object_schema(t) for name, t in OBJECT_TYPES.items()}}
    raw = json.dumps(document, sort_keys=True, separators=(",", ":")).encode()
    digest = hashlib.sha256(raw).hexdigest()[:16]
    return digest, gzip.compress(raw, mtime=0)
