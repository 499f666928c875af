"""DMARC aggregate reports: import (file -> DmarcExternalReport wire object) and export.

Pure library code: no UI (textual) and no network (httpx). The import command
uploads what ``load_reports`` yields (``dedupe`` first, ``summarize`` after).

Modules, one job each: ``containers`` (gzip/zip/e-mail unpacking, size cap),
``xmlparse`` (defusedxml + one recovery pass), ``vocab`` (report words -> wire
enums), ``mapping`` (XML -> DmarcReport dict), ``loader`` (per-file results and
the outer object), ``batch`` (duplicates, summary), ``counting`` (message totals),
``export`` (CSV/JSON rows).

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

from jmapclient.dmarc.batch import DuplicateKey, ImportSummary, dedupe, duplicate_key, summarize
from jmapclient.dmarc.containers import MAX_DECOMPRESSED_BYTES
from jmapclient.dmarc.counting import (
    failed_messages,
    pass_messages,
    record_passes,
    total_messages,
)
from jmapclient.dmarc.errors import ContainerError, ReportRejected, XmlRejected
from jmapclient.dmarc.export import COLUMNS, export_rows, write_csv, write_json
from jmapclient.dmarc.loader import (
    DEFAULT_RETENTION,
    ParsedFile,
    iter_report_files,
    load_bytes,
    load_file,
    load_reports,
    report_subject,
)

__all__ = [
    "COLUMNS",
    "DEFAULT_RETENTION",
    "MAX_DECOMPRESSED_BYTES",
    "ContainerError",
    "DuplicateKey",
    "ImportSummary",
    "ParsedFile",
    "ReportRejected",
    "XmlRejected",
    "dedupe",
    "duplicate_key",
    "export_rows",
    "failed_messages",
    "iter_report_files",
    "load_bytes",
    "load_file",
    "load_reports",
    "pass_messages",
    "record_passes",
    "report_subject",
    "summarize",
    "total_messages",
    "write_csv",
    "write_json",
]
