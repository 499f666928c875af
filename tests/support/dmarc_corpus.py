"""What each file of the shared DMARC sample corpus must give: its figures, or why it is rejected.

The expected figures were established by reading each sample (decompressing the
.gz/.zip ones with zcat/unzip) and counting <record> elements, summing <count>,
and summing <count> over records whose <policy_evaluated> <dkim> or <spf> is
pass in any letter case; they were not taken from the parser's output.
"""

from __future__ import annotations

# file name -> (records, total messages, DMARC-pass messages), or a fragment of
# the rejection reason.
IMPORTED: dict[str, tuple[int, int, int]] = {
    "accurateplastics_empty-orgname-2286-records.xml": (2286, 2286, 0),
    "accurateplastics_invalid-utf8-byte.xml": (1, 1, 0),
    "addisonfoods.com_dkim-other-domain.xml": (1, 1, 0),
    "amazonses.com_octet-stream.xml.gz": (1, 1, 0),
    "aol_ns1-prefix-xsi.xml": (1, 1, 1),
    "comcast.net_tabs-quarantine-policy.xml": (1, 1, 1),
    "enterprise-outlook_gzip.xml.gz": (1, 1, 1),
    "enterprise-outlook_reject-spf-fail.xml": (1, 1, 0),
    "example.com_uppercase-Pass.xml": (1, 1, 1),
    "example.net_dmarcbis-v2-no-ns-np-testing-y.xml": (2, 7, 5),
    "fastmail_gzip.xml.gz": (1, 1, 0),
    "fastmail_trusted-forwarder-multi.xml": (4, 9, 1),
    "gmx_dmarc2-ns-discovery-psl.xml": (1, 1, 1),
    "google.com_borschow-com.zip": (1, 1, 0),
    "google.com_gappssmtp-dkim-unaligned.xml": (1, 2, 2),
    "google.com_ipv6-np-strict.xml": (1, 1, 1),
    "google.com_reject-spoof.xml": (1, 1, 0),
    "google.com_stalw-art.zip": (1, 1, 1),
    "gosecure.net_empty-dkim-x4-trailing-dot.xml": (1, 1, 1),
    "ikea.com_unclosed-xs-schema.xml": (1, 1, 0),
    "infonacot.gob.mx_zip.xml.zip": (1, 1, 0),
    "kddi-au.com_capitalized-Fail-empty-dkim.xml": (1, 1, 0),
    "mail.ru_gzip.xml.gz": (1, 1, 0),
    "mail.ru_single-line-reject.xml": (1, 1, 0),
    "mimecast_empty-human-result.xml": (1, 1, 1),
    "mimecast_gzip-trailing-crlf.xml.gz": (1, 1, 1),
    "outlook.com_multi-record-envelope-to.xml": (2, 3, 3),
    "protection.outlook.com_gzip.xml.gz": (1, 1, 0),
    "reporting-org_spf-hardfail-empty-dkim.xml": (1, 1, 0),
    "rfc9990-appendix_ns-generator-treewalk.xml": (1, 123, 123),
    "sample-reporter_unknown-tags-v2.xml": (1, 123, 123),
    "usssa.com_empty-auth-results.xml": (2, 2, 0),
    "veeam.com_invalid-xml-markup.xml": (1, 1, 0),
    "web.de_dmarc2-ns-testing-n.xml": (1, 1, 1),
    "yahoo_strict-alignment.xml": (1, 1, 1),
    "yahoo_trailing-tabs.xml": (1, 1, 1),
    "zoho_anonymized-dkim-pass-unaligned.xml": (3, 3, 0),
}

REJECTED: dict[str, str] = {
    "empty_zero-bytes.xml": "empty file",
    "quirky_zero-records.xml": "no <record>",
    # Its only record has an empty <header_from>, which the wire requires.
    "test-inc_empty-source-ip-count-0.xml": "no <header_from>",
}

# Samples whose XML is not well-formed: they import only through recovery, and
# the result must say so.
RECOVERED = {
    "accurateplastics_invalid-utf8-byte.xml",
    "ikea.com_unclosed-xs-schema.xml",
    "veeam.com_invalid-xml-markup.xml",
}
