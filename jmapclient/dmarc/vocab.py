"""Translation of DMARC report words (RFC 7489, RFC 9990) to the wire enumerations.

Only the values listed in interface.md "Enumerations" may be emitted. Each
function takes the raw XML text (already stripped, any case) and returns the wire
value, or None when the word is unknown and the enumeration has no `unspecified`
member (the caller then treats the item as bad and reports it).
"""

from __future__ import annotations

UNSPECIFIED = "unspecified"

ALIGNMENT: dict[str, str] = {"r": "relaxed", "s": "strict"}

DISPOSITION: dict[str, str] = {"none": "none", "quarantine": "quarantine", "reject": "reject"}

# RFC 9990 adds `pass` as an evaluated disposition (the appendix sample uses it).
ACTION_DISPOSITION: dict[str, str] = {**DISPOSITION, "pass": "pass"}

DMARC_RESULT: dict[str, str] = {"pass": "pass", "fail": "fail"}

FAILURE_OPTION: dict[str, str] = {"0": "all", "1": "any", "d": "dkimFailure", "s": "spfFailure"}

DISCOVERY: dict[str, str] = {"psl": "psl", "treewalk": "treewalk"}

OVERRIDE: dict[str, str] = {
    "forwarded": "Forwarded",
    "sampled_out": "SampledOut",
    "trusted_forwarder": "TrustedForwarder",
    "mailing_list": "MailingList",
    "local_policy": "LocalPolicy",
    "other": "Other",
    "policy_test_mode": "PolicyTestMode",
}

DKIM_RESULT: dict[str, str] = {
    "none": "none",
    "pass": "pass",
    "fail": "fail",
    "policy": "policy",
    "neutral": "neutral",
    "temperror": "tempError",
    "permerror": "permError",
}

SPF_SCOPE: dict[str, str] = {"helo": "helo", "mfrom": "mailFrom"}

SPF_RESULT: dict[str, str] = {
    "none": "none",
    "neutral": "neutral",
    "pass": "pass",
    "fail": "fail",
    # Not in the RFC 7489 schema, but sent by some reporters; it means SPF -all.
    "hardfail": "fail",
    "softfail": "softFail",
    "temperror": "tempError",
    "permerror": "permError",
}


def _key(word: str | None) -> str:
    return (word or "").strip().lower()


def with_unspecified(table: dict[str, str], word: str | None) -> tuple[str, bool]:
    """Map ``word`` through ``table``; unknown or absent gives `unspecified`.

    The flag is True when a non-empty word was not recognised, so the caller can
    warn about it (an absent word is normal and not worth a warning).
    """
    if word in table:  # the usual case: a word already as the table writes it (None is never a key)
        return table[word], False
    key = _key(word)
    if key in table:
        return table[key], False
    return UNSPECIFIED, bool(key)


def strict(table: dict[str, str], word: str | None) -> str | None:
    """Map ``word`` through ``table``; None when absent or unknown."""
    if word in table:
        return table[word]
    return table.get(_key(word))
