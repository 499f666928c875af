"""Command-line ``--field`` values the CLI tests send."""

from __future__ import annotations

import json


def dmarc_fields(**overrides: str) -> list[tuple[str, str]]:
    """A valid DMARC report as ``--field`` pairs (name, value); ``overrides`` replace whole fields."""
    report = {
        "orgName": "Example Org", "email": "noreply@example.org", "reportId": "r-1",
        "dateRangeBegin": "2026-01-01T00:00:00Z", "dateRangeEnd": "2026-01-02T00:00:00+01:00",
        "policyDomain": "example.com", "policyAdkim": "relaxed", "policyAspf": "strict",
        "policyDisposition": "none", "policySubdomainDisposition": "none",
        "errors": {}, "policyFailureReportingOptions": {}, "records": {}, "extensions": {},
    }
    fields = {
        "report": json.dumps(report), "from": "noreply@example.org", "subject": "Report Domain: example.com",
        "to": "{}", "receivedAt": "2026-01-03", "expiresAt": "2026-04-03T00:00:00Z",
    }
    fields.update(overrides)
    return list(fields.items())
