"""A small in-memory JMAP server for DmarcExternalReport, as an httpx transport.

Stand-in until the shared stub (branch ``stub``) lands: it follows wire-notes.md for the
two profiles the console must handle — ``spec`` (domain filter, receivedAt sort, updates
allowed) and ``stalwart`` (``unsupportedFilter`` on domain, no receivedAt sort, refuses
report updates). ``denied`` holds permissions the token lacks; ``fail`` makes every call
answer HTTP 503 to exercise error states.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx

from jmapclient.dmarc.counting import failed_messages, pass_messages
from jmapclient.dmarc.wirelists import iter_wire_list
from jmapclient.encoding import format_utc, parse_utc

API = "/api"
CAPABILITY = {"spec": "urn:service:jmap", "stalwart": "urn:stalwart:jmap"}

REPORTERS = [("google.com", "noreply-dmarc-support@google.com"), ("Yahoo", "dmarchelp@yahooinc.com"),
             ("Enterprise Outlook", "dmarcreport@microsoft.com"), ("Mail.Ru", "dmarc_support@corp.mail.ru"),
             ("Fastmail Pty Ltd", "dmarc-reports@fastmail.com")]
DOMAINS = ["example.com", "example.org", "shop.example.net"]
SOURCES = ["192.0.2.10", "192.0.2.11", "198.51.100.23", "203.0.113.77", "2001:db8::25"]


def make_report(index: int, now: datetime, rng: random.Random) -> dict[str, Any]:
    org, email = REPORTERS[index % len(REPORTERS)]
    domain = DOMAINS[index % len(DOMAINS)]
    day = (now - timedelta(days=index % 30 + 1)).replace(hour=0, minute=0, second=0, microsecond=0)
    records = {}
    for position in range(1 + index % 3):
        ip = SOURCES[(index + position) % len(SOURCES)]
        dkim, spf = rng.choice([("pass", "pass"), ("pass", "fail"), ("fail", "fail"), ("fail", "pass")])
        records[str(position)] = {
            "sourceIp": ip, "count": rng.randint(1, 40), "evaluatedDisposition": "none" if "pass" in (dkim, spf)
            else "quarantine", "evaluatedDkim": dkim, "evaluatedSpf": spf, "headerFrom": domain,
            "envelopeFrom": domain, "envelopeTo": "example.net",
            "dkimResults": {"0": {"domain": domain, "selector": "s1", "result": dkim}},
            "spfResults": {"0": {"domain": domain, "scope": "mailFrom", "result": spf}},
        }
    received = day + timedelta(days=1, hours=3)
    return {
        "report": {
            "version": 1.0, "orgName": org, "email": email, "reportId": f"{index:08d}", "dateRangeBegin":
            format_utc(day), "dateRangeEnd": format_utc(day + timedelta(seconds=86399)), "errors": {},
            "policyDomain": domain, "policyAdkim": "relaxed", "policyAspf": "relaxed", "policyDisposition":
            "quarantine", "policySubdomainDisposition": "none", "policyTestingMode": False,
            "policyFailureReportingOptions": {"any": True}, "records": records, "extensions": {},
            "generator": "fake", "policyNp": "unspecified", "policyDiscoveryMethod": "unspecified",
        },
        "from": email, "subject": f"Report Domain: {domain} Submitter: {org} Report-ID: <{index:08d}>",
        "to": {"dmarc@example.com": True}, "receivedAt": format_utc(received),
        "expiresAt": format_utc(received + timedelta(days=90 + index % 7)),
    }


@dataclass
class FakeJmap:
    profile: str = "spec"
    now: datetime = datetime(2026, 3, 15, 12, 0, tzinfo=UTC)
    reports: dict[str, dict[str, Any]] = field(default_factory=dict)
    denied: set[str] = field(default_factory=set)
    fail: bool = False
    requests: list[list[str]] = field(default_factory=list)
    next_id: int = 1

    def seed(self, count: int, seed: int = 7) -> FakeJmap:
        rng = random.Random(seed)
        for index in range(count):
            self.add(make_report(index, self.now, rng))
        return self

    def add(self, wire: dict[str, Any]) -> str:
        object_id = f"r{self.next_id:06d}"
        self.next_id += 1
        self.reports[object_id] = {"id": object_id, **wire}
        return object_id

    def client_transport(self) -> httpx.MockTransport:
        return httpx.MockTransport(self.handle)

    # --- HTTP ---------------------------------------------------------------------------

    def handle(self, request: httpx.Request) -> httpx.Response:
        if self.fail:
            return httpx.Response(503, json={"detail": "maintenance"})
        if request.method == "GET":
            capability = CAPABILITY[self.profile]
            return httpx.Response(200, json={
                "capabilities": {"urn:ietf:params:jmap:core": {"maxObjectsInGet": 500, "maxCallsInRequest": 16,
                                                               "maxObjectsInSet": 500}, capability: {}},
                "apiUrl": API, "username": "admin", "accounts": {}, "primaryAccounts": {},
            })
        body = json.loads(request.content)
        results: dict[str, dict[str, Any]] = {}
        out = []
        self.requests.append([call[0] for call in body["methodCalls"]])
        for name, arguments, call_id in body["methodCalls"]:
            try:
                answer = self.call(name, self._resolve(arguments, results))
                results[call_id] = answer
                out.append([name, answer, call_id])
            except _Error as error:
                out.append(["error", {"type": error.kind, "description": error.description}, call_id])
        return httpx.Response(200, json={"methodResponses": out, "sessionState": "s"})

    @staticmethod
    def _resolve(arguments: dict[str, Any], results: dict[str, dict[str, Any]]) -> dict[str, Any]:
        resolved = {}
        for key, value in arguments.items():
            if key.startswith("#"):
                resolved[key[1:]] = results[value["resultOf"]][value["path"].strip("/")]
            else:
                resolved[key] = value
        return resolved

    def call(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        verb = name.rsplit("/", 1)[1]
        if verb == "set":
            for kind, permission in (("create", "Create"), ("update", "Update"), ("destroy", "Destroy")):
                if arguments.get(kind) and f"sysDmarcExternalReport{permission}" in self.denied:
                    raise _Error("forbidden", f"not allowed to {kind} DmarcExternalReport")
            return self.set(arguments)
        if f"sysDmarcExternalReport{verb.capitalize()}" in self.denied:
            raise _Error("forbidden", f"not allowed to {verb} DmarcExternalReport")
        return self.query(arguments) if verb == "query" else self.get(arguments)

    # --- Methods ------------------------------------------------------------------------

    def get(self, arguments: dict[str, Any]) -> dict[str, Any]:
        ids = arguments.get("ids")
        properties = arguments.get("properties")
        found, missing = [], []
        for object_id in ids if ids is not None else list(self.reports):
            item = self.reports.get(object_id)
            if item is None:
                missing.append(object_id)
                continue
            if properties is not None:
                item = {k: v for k, v in item.items() if k in properties or k == "id"}
            found.append(item)
        return {"list": found, "notFound": missing, "state": "1"}

    def query(self, arguments: dict[str, Any]) -> dict[str, Any]:
        items = [r for r in self.reports.values() if self._matches(r, arguments.get("filter") or {})]
        for sort in reversed(arguments.get("sort") or [{"property": "id", "isAscending": False}]):
            prop = sort["property"]
            if (prop == "receivedAt" and self.profile == "stalwart") or prop not in ("id", "receivedAt", "expiresAt"):
                raise _Error("unsupportedSort", f"cannot sort by {prop}")
            items.sort(key=lambda r, p=prop: (r[p], r["id"]), reverse=not sort.get("isAscending", True))
        position = int(arguments.get("position") or 0)
        limit = min(int(arguments.get("limit") or 5000), 5000)
        answer: dict[str, Any] = {"ids": [r["id"] for r in items[position:position + limit]], "position": position,
                                  "queryState": "1"}
        if arguments.get("calculateTotal"):
            answer["total"] = len(items)
        return answer

    def _matches(self, item: dict[str, Any], condition: dict[str, Any]) -> bool:
        for key, value in condition.items():
            if key == "domain":
                if self.profile == "stalwart":
                    raise _Error("unsupportedFilter", "domain")
                if value.lower() not in item["report"]["policyDomain"].lower():
                    return False
            elif key == "text":
                haystack = json.dumps(item).lower()
                if str(value).lower() not in haystack:
                    return False
            elif key == "memberTenantId":
                if item.get("memberTenantId") != value:
                    return False
            else:
                for base, actual in (("totalFailedSessions", failed_messages(item)),
                                     ("totalSuccessfulSessions", pass_messages(item)),
                                     ("expiresAt", parse_utc(item["expiresAt"]))):
                    if key.startswith(base):
                        expected = parse_utc(value) if base == "expiresAt" else int(value)
                        if not _compare(actual, key.removeprefix(base), expected):
                            return False
                        break
                else:
                    raise _Error("unsupportedFilter", key)
        return True

    def set(self, arguments: dict[str, Any]) -> dict[str, Any]:
        answer: dict[str, Any] = {"newState": "2"}
        for key, value in (arguments.get("create") or {}).items():
            if self.profile == "stalwart":
                answer.setdefault("notCreated", {})[key] = {"type": "forbidden",
                                                            "description": "Reports cannot be created"}
                continue
            answer.setdefault("created", {})[key] = {"id": self.add(value)}
        for object_id, patch in (arguments.get("update") or {}).items():
            if self.profile == "stalwart":
                answer.setdefault("notUpdated", {})[object_id] = {"type": "forbidden",
                                                                  "description": "Reports cannot be created"}
                continue
            if object_id not in self.reports:
                answer.setdefault("notUpdated", {})[object_id] = {"type": "notFound"}
                continue
            for path, value in patch.items():
                self.reports[object_id][path] = value
            answer.setdefault("updated", {})[object_id] = None
        for object_id in arguments.get("destroy") or []:
            if self.reports.pop(object_id, None) is None:
                answer.setdefault("notDestroyed", {})[object_id] = {"type": "notFound"}
            else:
                answer.setdefault("destroyed", []).append(object_id)
        return answer


def _compare(actual: Any, suffix: str, expected: Any) -> bool:
    return {
        "": actual == expected,
        "IsGreaterThan": actual > expected,
        "IsGreaterThanOrEqual": actual >= expected,
        "IsLessThan": actual < expected,
        "IsLessThanOrEqual": actual <= expected,
    }[suffix]


class _Error(Exception):
    def __init__(self, kind: str, description: str = "") -> None:
        self.kind = kind
        self.description = description


def record_count_of(item: dict[str, Any]) -> int:
    return len(list(iter_wire_list(item["report"]["records"])))
