"""DMARC aggregate reports: import (file -> DmarcExternalReport wire object) and export.

Pure library code: no UI (textual) and no network (httpx). The import command
uploads what ``load_reports`` yields (``dedupe`` first, ``summarize`` after).

Modules, one job each: ``containers`` (gzip/zip/e-mail unpacking, size cap),
``xmlparse`` (defusedxml + one recovery pass), ``vocab`` (report words -> wire
enums), ``mapping`` (XML -> DmarcReport dict), ``folders`` (the files under the
paths named), ``loader`` (per-file results and the outer object), ``batch``
(duplicates, summary), ``counting`` (message totals), ``export`` (CSV/JSON rows).

Decisions worth knowing (details in the modules):
- envelopeFrom is required on the wire but optional in RFC 7489: it falls back to
  the SPF MAIL FROM domain, else the header From domain.
- A DKIM result without a selector gets selector "-" (the wire requires one and
  forbids ""); a DKIM/SPF result without a domain or with an unknown result word
  is dropped and reported; a record without header_from is skipped and reported.
- An empty org_name falls back to the domain of the contact e-mail.
- A report with no usable record is rejected (RFC 7489 requires at least one).
- Bare files: from = contact e-mail, subject = RFC 7489 7.2.1.1 form, to = {},
  receivedAt = import time; e-mails use their own From/Subject/To/Date.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from jmapclient._lazy import lazy_exports

# Names load on first use, so the CLI's parser can read DEFAULT_RETENTION without
# loading the XML and e-mail machinery.
_EXPORTS = {
    "COLUMNS": "jmapclient.dmarc.export",
    "ContainerError": "jmapclient.dmarc.errors",
    "DEFAULT_RETENTION": "jmapclient.dmarc.retention",
    "DuplicateKey": "jmapclient.dmarc.batch",
    "ImportSummary": "jmapclient.dmarc.batch",
    "MAX_DECOMPRESSED_BYTES": "jmapclient.dmarc.containers",
    "ParsedFile": "jmapclient.dmarc.loader",
    "ReportRejected": "jmapclient.dmarc.errors",
    "XmlRejected": "jmapclient.dmarc.errors",
    "dedupe": "jmapclient.dmarc.batch",
    "duplicate_key": "jmapclient.dmarc.batch",
    "export_rows": "jmapclient.dmarc.export",
    "failed_messages": "jmapclient.dmarc.counting",
    "iter_report_files": "jmapclient.dmarc.folders",
    "load_bytes": "jmapclient.dmarc.loader",
    "load_file": "jmapclient.dmarc.loader",
    "load_reports": "jmapclient.dmarc.loader",
    "pass_messages": "jmapclient.dmarc.counting",
    "record_passes": "jmapclient.dmarc.counting",
    "report_subject": "jmapclient.dmarc.loader",
    "summarize": "jmapclient.dmarc.batch",
    "total_messages": "jmapclient.dmarc.counting",
    "write_csv": "jmapclient.dmarc.export",
    "write_json": "jmapclient.dmarc.export",
}

__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, globals(), _EXPORTS)

if TYPE_CHECKING:
    from jmapclient.dmarc.batch import DuplicateKey, ImportSummary, dedupe, duplicate_key, summarize
    from jmapclient.dmarc.containers import MAX_DECOMPRESSED_BYTES
    from jmapclient.dmarc.counting import failed_messages, pass_messages, record_passes, total_messages
    from jmapclient.dmarc.errors import ContainerError, ReportRejected, XmlRejected
    from jmapclient.dmarc.export import COLUMNS, export_rows, write_csv, write_json
    from jmapclient.dmarc.folders import iter_report_files
    from jmapclient.dmarc.loader import (
        ParsedFile,
        load_bytes,
        load_file,
        load_reports,
        report_subject,
    )
    from jmapclient.dmarc.retention import DEFAULT_RETENTION
