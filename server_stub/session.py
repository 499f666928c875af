"""The JMAP session resource (RFC 8620 §2) the stub advertises."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from jmapclient.session import CORE_CAPABILITY
from server_stub.auth import Principal
from server_stub.methods.context import ACCOUNT_ID, MAX_OBJECTS_IN_GET, MAX_OBJECTS_IN_SET
from server_stub.profiles import ServerProfile
from server_stub.protocol import MAX_CALLS_IN_REQUEST, MAX_SIZE_REQUEST
from server_stub.schema import COLLATIONS

SESSION_PATH = "/jmap/session"
WELL_KNOWN_PATH = "/.well-known/jmap"

CORE_LIMITS: dict[str, Any] = {
    "maxSizeUpload": 50_000_000,
    "maxConcurrentUpload": 4,
    "maxSizeRequest": MAX_SIZE_REQUEST,
    "maxConcurrentRequests": 4,
    "maxCallsInRequest": MAX_CALLS_IN_REQUEST,
    "maxObjectsInGet": MAX_OBJECTS_IN_GET,
    "maxObjectsInSet": MAX_OBJECTS_IN_SET,
    "collationAlgorithms": list(COLLATIONS),
}


def session_resource(profile: ServerProfile, principal: Principal, base_url: str) -> dict[str, Any]:
    management: dict[str, Any] = {}
    capabilities: dict[str, Any] = {CORE_CAPABILITY: dict(CORE_LIMITS)}
    if profile.capability_in_session:
        capabilities[profile.capability] = management
    writable = any(p.endswith(("Create", "Update", "Destroy")) for p in principal.permissions)
    resource: dict[str, Any] = {
        "capabilities": capabilities,
        "accounts": {
            ACCOUNT_ID: {
                "name": principal.username,
                "isPersonal": True,
                "isReadOnly": not writable,
                "accountCapabilities": {profile.capability: management},
            }
        },
        # The real server names no core primary account (wire-notes.md); the spec profile names both.
        "primaryAccounts": {**({CORE_CAPABILITY: ACCOUNT_ID} if profile.capability_in_session else {}),
                            profile.capability: ACCOUNT_ID},
        "username": principal.username,
        "apiUrl": base_url + profile.api_path,
        "downloadUrl": base_url + "/jmap/download/{accountId}/{blobId}/{name}?accept={type}",
        "uploadUrl": base_url + "/jmap/upload/{accountId}/",
        "eventSourceUrl": base_url + "/jmap/eventsource/?types={types}&closeafter={closeafter}&ping={ping}",
    }
    # The state changes exactly when the resource would (RFC 8620 §2): hash its content.
    resource["state"] = hashlib.sha256(json.dumps(resource, sort_keys=True).encode()).hexdigest()[:16]
    return resource


def anonymous_session(profile: ServerProfile, base_url: str) -> dict[str, Any]:
    """The real server's session for a request without credentials: 200, no accounts, no user."""
    resource = session_resource(profile, ANONYMOUS, base_url)
    resource.update({"accounts": {}, "primaryAccounts": {}, "username": ""})
    resource["state"] = hashlib.sha256(json.dumps(resource, sort_keys=True).encode()).hexdigest()[:16]
    return resource


ANONYMOUS = Principal("", frozenset())
