"""DmarcExternalReport: a received DMARC aggregate report, and its nested types.

The strings a report carries are ``Outside*`` types: the real server stores received reports
without validation, so reading accepts ``""`` (or a missing string); writing holds them to
interface.md's rules (see ``jmapclient.models._types.OutsideText``).

Web UI: Management › Reports › Inbox › DMARC.
"""

# Annotations are evaluated as the classes are declared (no `from __future__ import annotations`):
# postponed, pydantic would compile each field's annotation string when it builds the class, a
# few ms of a command's start for the classes that command loads.

from jmapclient.models._base import WireModel, spec_field
from jmapclient.models._types import (
    Boolean,
    EmailAddress,
    Float,
    Id,
    IndexList,
    IpAddr,
    OutsideDomain,
    OutsideEmail,
    OutsideString,
    Text,
    UnsignedInt,
    UTCDateTime,
    WireEnum,
    WireSet,
)


class DmarcAlignment(WireEnum):
    RELAXED = "relaxed", "Relaxed"
    STRICT = "strict", "Strict"
    UNSPECIFIED = "unspecified", "Not stated"


class DmarcDisposition(WireEnum):
    NONE = "none", "None (monitor)"
    QUARANTINE = "quarantine", "Quarantine"
    REJECT = "reject", "Reject"
    UNSPECIFIED = "unspecified", "Not stated"


class FailureReportingOption(WireEnum):
    ALL = "all", "All mechanisms fail (0)"
    ANY = "any", "Any mechanism fails (1)"
    DKIM_FAILURE = "dkimFailure", "DKIM fails (d)"
    SPF_FAILURE = "spfFailure", "SPF fails (s)"


class DmarcActionDisposition(WireEnum):
    NONE = "none"
    PASS = "pass"
    QUARANTINE = "quarantine"
    REJECT = "reject"
    UNSPECIFIED = "unspecified"


class DmarcResult(WireEnum):
    PASS = "pass"
    FAIL = "fail"
    UNSPECIFIED = "unspecified"


class DmarcPolicyOverride(WireEnum):
    FORWARDED = "Forwarded"
    SAMPLED_OUT = "SampledOut", "Sampled out"
    TRUSTED_FORWARDER = "TrustedForwarder", "Trusted forwarder"
    MAILING_LIST = "MailingList", "Mailing list"
    LOCAL_POLICY = "LocalPolicy", "Local policy"
    OTHER = "Other"
    POLICY_TEST_MODE = "PolicyTestMode", "Policy test mode"


class DkimAuthResult(WireEnum):
    NONE = "none"
    PASS = "pass"
    FAIL = "fail"
    POLICY = "policy"
    NEUTRAL = "neutral"
    TEMP_ERROR = "tempError", "temporary error"
    PERM_ERROR = "permError", "permanent error"


class SpfDomainScope(WireEnum):
    HELO = "helo", "HELO"
    MAIL_FROM = "mailFrom", "MAIL FROM"
    UNSPECIFIED = "unspecified", "Not stated"


class SpfAuthResult(WireEnum):
    NONE = "none"
    NEUTRAL = "neutral"
    PASS = "pass"
    FAIL = "fail"
    SOFT_FAIL = "softFail", "soft fail"
    TEMP_ERROR = "tempError", "temporary error"
    PERM_ERROR = "permError", "permanent error"


class DmarcDiscovery(WireEnum):
    PSL = "psl", "Public suffix list"
    TREEWALK = "treewalk", "Tree walk"
    UNSPECIFIED = "unspecified", "Not stated"


class DmarcPolicyOverrideReason(WireModel):
    override_type: DmarcPolicyOverride = spec_field("Override")
    comment: Text | None = spec_field("Comment", None)


class DmarcDkimResult(WireModel):
    domain: OutsideDomain = spec_field("Domain")
    selector: OutsideString = spec_field("Selector")
    result: DkimAuthResult = spec_field("Result")
    human_result: Text | None = spec_field("Human result", None)


class DmarcSpfResult(WireModel):
    domain: OutsideDomain = spec_field("Domain")
    scope: SpfDomainScope = spec_field("Identity checked")
    result: SpfAuthResult = spec_field("Result")
    human_result: Text | None = spec_field("Human result", None)


class DmarcExtension(WireModel):
    # The real server stores "" for a missing name or definition (wire-notes.md): read as given.
    name: OutsideString = spec_field("Extension")
    definition: OutsideString = spec_field("Definition")


class DmarcReportRecord(WireModel):
    """The results for one sending source."""

    source_ip: IpAddr | None = spec_field("Source IP", None, note="Sending server")
    count: UnsignedInt = spec_field("Messages", 0, note="Messages from this source with this result")
    evaluated_disposition: DmarcActionDisposition = spec_field("Disposition", note="Action taken")
    evaluated_dkim: DmarcResult = spec_field("DKIM", note="Result based on DKIM")
    evaluated_spf: DmarcResult = spec_field("SPF", note="Result based on SPF")
    policy_override_reasons: IndexList[DmarcPolicyOverrideReason] = spec_field(
        "Override reasons", default_factory=list
    )
    envelope_to: Text | None = spec_field("Envelope to", None, note="Envelope recipient domain")
    envelope_from: OutsideString = spec_field("Envelope from", note="Envelope sender domain")
    header_from: OutsideString = spec_field("Header from", note="Domain of the From header")
    dkim_results: IndexList[DmarcDkimResult] = spec_field("DKIM results", default_factory=list)
    spf_results: IndexList[DmarcSpfResult] = spec_field("SPF results", default_factory=list)
    extensions: IndexList[DmarcExtension] = spec_field("Extensions", default_factory=list)

    @property
    def passes_dmarc(self) -> bool:
        """DMARC passes when either aligned mechanism passes."""
        return DmarcResult.PASS in (self.evaluated_dkim, self.evaluated_spf)


class DmarcReport(WireModel):
    """The content of an aggregate report."""

    version: Float = spec_field("Format version", 1.0)
    org_name: OutsideString = spec_field("Reporter", note="Reporting organization")
    email: OutsideEmail = spec_field("Contact", note="Contact address of the reporting organization")
    extra_contact_info: Text | None = spec_field("Extra contact info", None)
    report_id: OutsideString = spec_field("Report ID", note="Unique report identifier")
    date_range_begin: UTCDateTime = spec_field("Period start")
    date_range_end: UTCDateTime = spec_field("Period end")
    errors: WireSet[Text] = spec_field("Errors", default_factory=list, note="Errors during report generation")
    policy_domain: OutsideString = spec_field("Policy domain", note="Domain the policy is published for")
    policy_version: Text | None = spec_field("Policy version", None)
    policy_adkim: DmarcAlignment = spec_field("DKIM alignment (adkim)", note="DKIM alignment mode")
    policy_aspf: DmarcAlignment = spec_field("SPF alignment (aspf)", note="SPF alignment mode")
    policy_disposition: DmarcDisposition = spec_field("Policy (p)", note="Requested handling of failing messages")
    policy_subdomain_disposition: DmarcDisposition = spec_field(
        "Subdomain policy (sp)", note="Requested handling for subdomains"
    )
    policy_testing_mode: Boolean = spec_field("Testing (t)", False)
    policy_failure_reporting_options: WireSet[FailureReportingOption] = spec_field(
        "Failure reporting (fo)", default_factory=list
    )
    records: IndexList[DmarcReportRecord] = spec_field(
        "Records", default_factory=list, note="Results grouped by source"
    )
    extensions: IndexList[DmarcExtension] = spec_field("Extensions", default_factory=list)
    generator: Text | None = spec_field("Generator", None, note="Software that generated the report")
    policy_np: DmarcDisposition = spec_field(
        "Non-existent subdomain policy (np)", DmarcDisposition.UNSPECIFIED, note="Handling for non-existent subdomains"
    )
    policy_discovery_method: DmarcDiscovery = spec_field(
        "Discovery method", DmarcDiscovery.UNSPECIFIED, note="How the policy record was discovered"
    )


class DmarcExternalReport(WireModel):
    """A DMARC aggregate report received from an external sender."""

    id: Id | None = spec_field("Id", None, server_set=True)
    report: DmarcReport = spec_field("Report")
    sender: OutsideEmail = spec_field("From", wire="from", note="Address of the report sender")
    subject: OutsideString = spec_field("Subject", note="Subject line of the report e-mail")
    to: WireSet[EmailAddress] = spec_field("To", default_factory=list, note="Recipient addresses")
    received_at: UTCDateTime = spec_field("Received", note="When the report e-mail was received")
    expires_at: UTCDateTime = spec_field("Expires", note="When the report is scheduled to be deleted")
    member_tenant_id: Id | None = spec_field("Tenant", None, enterprise=True)
