"""Builders of small synthetic DMARC reports for the mapping tests.

Each test changes one element of an otherwise valid report, so a failure
points at one mapping rule.
"""

from __future__ import annotations

from pathlib import Path

RECORD = """
  <record>
    <row>
      <source_ip>{ip}</source_ip>
      <count>{count}</count>
      <policy_evaluated>
        <disposition>{disposition}</disposition>
        <dkim>{dkim}</dkim>
        <spf>{spf}</spf>{reasons}
      </policy_evaluated>
    </row>
    <identifiers>{identifiers}
    </identifiers>
    <auth_results>{auth}
    </auth_results>{extra}
  </record>"""


def record(
    *,
    ip: str = "192.0.2.1",
    count: str = "3",
    disposition: str = "none",
    dkim: str = "pass",
    spf: str = "fail",
    reasons: str = "",
    identifiers: str = "<header_from>example.com</header_from>",
    auth: str = (
        "<dkim><domain>example.com</domain><selector>s1</selector><result>pass</result></dkim>"
        "<spf><domain>bounce.example.com</domain><scope>mfrom</scope><result>fail</result></spf>"
    ),
    extra: str = "",
) -> str:
    return RECORD.format(
        ip=ip,
        count=count,
        disposition=disposition,
        dkim=dkim,
        spf=spf,
        reasons=reasons,
        identifiers=identifiers,
        auth=auth,
        extra=extra,
    )


def feedback(
    *,
    policy: str = "<adkim>r</adkim><aspf>s</aspf><p>reject</p><sp>none</sp><pct>100</pct>",
    records: str | None = None,
    metadata_extra: str = "",
    root_attrs: str = "",
    head: str = "",
    org_name: str = "<org_name>Reporter Inc</org_name>",
    report_id: str = "<report_id>rid-1</report_id>",
    domain: str = "<domain>example.com</domain>",
    date_range: str = "<date_range><begin>1700000000</begin><end>1700086399</end></date_range>",
    email: str = "<email>dmarc@reporter.example</email>",
) -> bytes:
    body = f"""<?xml version="1.0" encoding="UTF-8"?>
<feedback{root_attrs}>{head}
  <report_metadata>
    {org_name}
    {email}
    {report_id}
    {date_range}{metadata_extra}
  </report_metadata>
  <policy_published>
    {domain}{policy}
  </policy_published>{record() if records is None else records}
</feedback>
"""
    return body.encode("utf-8")


def write_reports(folder: Path, count: int, *, prefix: str = "report") -> list[Path]:
    """``count`` report files in ``folder`` (made if missing), each with a report id of its own."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for index in range(count):
        path = folder / f"{prefix}-{index:04}.xml"
        path.write_bytes(feedback(report_id=f"<report_id>{prefix}-{index}</report_id>"))
        paths.append(path)
    return paths
