"""The drill-down reads declared labels, never wire names (issue 16)."""

from __future__ import annotations

from jmapclient.models.dmarc import DmarcPolicyOverrideReason, DmarcSpfResult
from tui.reports.detail import field_text


def test_spf_scope_reads_mail_from() -> None:
    result = DmarcSpfResult.model_validate({"domain": "a.example", "scope": "mailFrom", "result": "softFail"})
    assert (field_text(result, "scope"), field_text(result, "result")) == ("MAIL FROM", "soft fail")


def test_override_type_reads_in_words() -> None:
    reason = DmarcPolicyOverrideReason.model_validate({"overrideType": "SampledOut"})
    assert field_text(reason, "overrideType") == "Sampled out"
