"""DMARC aggregate reports: import (file -> DmarcExternalReport wire object) and export.

Pure library code: no UI (textual) and no network (httpx). The import command
uploads what ``load_reports`` yields; see README notes in each module.
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
