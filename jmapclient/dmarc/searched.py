"""What the real server's ``text`` condition searches in a DMARC report (wire-notes.md).

The reporter's e-mail, the policy domain, each record's envelope-to, envelope-from and
header-from, the DKIM and SPF domains, and the sender. Declared once: the stub indexes these
texts, and the importer asks for a report by the ones that belong to the report itself.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from jmapclient.encoding import list_from_wire
from jmapclient.models import WireModel
from jmapclient.models.dmarc import DmarcDkimResult, DmarcExternalReport, DmarcReport, DmarcReportRecord, DmarcSpfResult


def wire_name(model: type[WireModel], name: str) -> str:
    """The wire name ``model`` declares for its field ``name``: stored JSON is read by it."""
    field_info = model.model_fields[name]
    return field_info.alias or name


_wire = wire_name


_SENDER, _REPORT = _wire(DmarcExternalReport, "sender"), _wire(DmarcExternalReport, "report")
_EMAIL, _POLICY_DOMAIN, _RECORDS = (_wire(DmarcReport, name) for name in ("email", "policy_domain", "records"))
_RECORD_TEXTS = tuple(_wire(DmarcReportRecord, name) for name in ("envelope_to", "envelope_from", "header_from"))
_DKIM, _SPF = _wire(DmarcReportRecord, "dkim_results"), _wire(DmarcReportRecord, "spf_results")
_DKIM_DOMAIN, _SPF_DOMAIN = _wire(DmarcDkimResult, "domain"), _wire(DmarcSpfResult, "domain")


def searched_texts(stored: Mapping[str, Any], *, sender: bool = True) -> Iterator[Any]:
    """The searched values of a report in its stored wire form (None or "" where unset).

    ``sender`` False leaves out the e-mail's sender: the same report may come in two e-mails.
    """
    report = stored[_REPORT]
    yield report[_EMAIL]
    yield report[_POLICY_DOMAIN]
    if sender:
        yield stored[_SENDER]
    for record in list_from_wire(report[_RECORDS]):
        for key in _RECORD_TEXTS:
            yield record.get(key)
        for dkim in list_from_wire(record[_DKIM]):
            yield dkim[_DKIM_DOMAIN]
        for spf in list_from_wire(record[_SPF]):
            yield spf[_SPF_DOMAIN]
