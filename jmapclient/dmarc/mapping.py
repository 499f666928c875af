"""Mapping of a parsed <feedback> element to a DmarcReport wire object.

The output is a plain dict that is exactly the `report` member of a
DmarcExternalReport create object (interface.md, wire-notes.md):
lists of objects are index maps, sets are ``{member: true}``, timestamps are
``YYYY-MM-DDTHH:MM:SSZ``, and absent or empty values are omitted, never sent
as "" (the server rejects empty strings).

Problems are handled at the smallest level that keeps the data honest:
an unusable auth result or override reason is dropped, an unusable record is
skipped, and a report missing a required field is rejected; each is reported.
"""

from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET
from datetime import UTC, datetime
from email.utils import parseaddr
from typing import Any

from jmapclient.dmarc import vocab
from jmapclient.dmarc.addresses import canonical_ip
from jmapclient.dmarc.errors import ReportRejected
from jmapclient.dmarc.notes import Notes
from jmapclient.dmarc.repeats import conflicting_repeat, first_conflict
from jmapclient.dmarc.wirelists import to_index_map, to_set
from jmapclient.encoding import MAX_UNSIGNED_INT as MAX_WIRE_INT
from jmapclient.encoding import plain_number

DEFAULT_VERSION = 1.0

# RFC 7489 makes the DKIM selector optional, the wire makes it required and
# forbids "". "-" cannot be a real selector (a DNS label starts with a letter or
# digit), so it marks "the reporter did not say" without inventing a selector.
MISSING_SELECTOR = "-"


# Epoch seconds beyond year 9999 cannot be written as YYYY-MM-DDTHH:MM:SSZ.
_MAX_EPOCH = 253402300799
_EMAIL = re.compile(r"^[^@\s<>]+@[^@\s<>]+$")
_SPACE = re.compile(r"\s")  # the characters str.isspace() names, found in one C scan


class RecordSkipped(Exception):
    """A record cannot be represented on the wire; the message says why."""


def utc_text(moment: datetime) -> str:
    """Format a datetime as the wire's UTCDateTime (naive values are taken as UTC)."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def text_of(parent: ET.Element | None, tag: str) -> str | None:
    """Stripped text of the first child ``tag``; None when absent or blank."""
    if parent is None:
        return None
    child = parent.find(tag)
    if child is None or child.text is None:
        return None
    value = child.text.strip()
    return value or None


def clean_domain(value: str | None) -> str | None:
    """Trim whitespace (reporters pad with tabs) and the root dot of an FQDN.

    A value with whitespace inside or a leading dot is no domain name: it is dropped
    (and the caller reports it) rather than handed to the server to reject.
    """
    if value is None:
        return None
    value = value.strip().rstrip(".").strip()
    if not value or value[0] == "." or _SPACE.search(value):
        return None
    return value


def child_texts(parent: ET.Element | None) -> dict[str, str | None]:
    """``text_of`` for every child tag at once: a record reads several from each parent.

    Like ``find``, the first child of a tag is the one read (the loop runs backwards so it is
    written last).
    """
    texts: dict[str, str | None] = {}
    if parent is not None:
        for child in reversed(parent):
            text = child.text
            texts[child.tag] = (text.strip() or None) if text else None
    return texts


def clean_email(value: str | None) -> str | None:
    """Return a bare addr-spec, accepting "<a@b>" and "Name <a@b>" forms."""
    if value is None:
        return None
    try:
        address = parseaddr(value)[1].strip()
    except RecursionError:  # thousands of nested "(" comments
        return None
    return address if _EMAIL.match(address) else None


def map_report(root: ET.Element, notes: Notes) -> dict[str, Any]:
    """Build the DmarcReport wire dict; raise ReportRejected when not possible."""
    meta = root.find("report_metadata")
    if meta is None:
        raise ReportRejected("no <report_metadata>")
    policy = root.find("policy_published")
    if policy is None:
        raise ReportRejected("no <policy_published>")
    # Two report ids, two periods or two policies: which one the report means is unknown.
    if conflict := first_conflict((root, ("record",)), (meta, ("error",)), (meta.find("date_range"), ()), (policy, ())):
        raise ReportRejected(conflict)

    email_text = text_of(meta, "email")
    email = clean_email(email_text)
    if email is None:
        problem = "missing" if email_text is None else f"invalid ({_short(email_text)})"
        raise ReportRejected(f"reporter contact <email> is {problem}")
    report_id = text_of(meta, "report_id")
    if report_id is None:
        raise ReportRejected("no <report_id>")
    policy_domain = clean_domain(text_of(policy, "domain"))
    if policy_domain is None:
        raise ReportRejected("no <domain> in <policy_published>")
    org_name = text_of(meta, "org_name")
    if org_name is None:
        # orgName is required on the wire; the contact address's domain names the
        # reporter well enough (what parsedmarc does for the same reporters).
        org_name = email.rsplit("@", 1)[1]
        notes.add(f"empty <org_name>; using the contact e-mail domain {_short(org_name)}")

    date_range = meta.find("date_range")
    begin = _epoch_to_utc(text_of(date_range, "begin"), "begin")
    end = _epoch_to_utc(text_of(date_range, "end"), "end")
    if begin > end:
        notes.add("date range begins after it ends")

    report: dict[str, Any] = {
        "version": _version(text_of(root, "version"), notes),
        "orgName": org_name,
        "email": email,
        "extraContactInfo": text_of(meta, "extra_contact_info"),
        "reportId": report_id,
        "dateRangeBegin": begin,
        "dateRangeEnd": end,
        "errors": _errors(meta),
        "policyDomain": policy_domain,
        # RFC 9990 has no policy version element; Stalwart reads <version_published>.
        "policyVersion": text_of(policy, "version_published"),
    }
    report.update(_policy(policy, notes))
    report["records"] = to_index_map(_records(root, notes))
    report["extensions"] = to_index_map(_extensions(root.find("extensions"), notes, "report"))
    report["generator"] = text_of(meta, "generator")
    return _without_none(report)


def _epoch_to_utc(value: str | None, which: str) -> str:
    if value is None:
        raise ReportRejected(f"no <date_range>/<{which}>")
    try:
        # Read as a <count> is: int() and float() also read '1_795_824_000', other scripts' digits and
        # '1.795824e9', and such a report was imported with that date without a word (the tester's).
        seconds = int(plain_number(value))
    except ValueError:
        raise ReportRejected(f"<date_range>/<{which}> is not epoch seconds: {_short(value)}") from None
    if not 0 <= seconds <= _MAX_EPOCH:
        raise ReportRejected(f"<date_range>/<{which}> is out of range: {_short(value)}")
    return utc_text(datetime.fromtimestamp(seconds, UTC))


def _version(value: str | None, notes: Notes) -> float:
    if value is None:
        return DEFAULT_VERSION
    try:
        # ASCII digits only, as every other number of a report: ``float`` read "1_0" as 10.0 and "٢" as 2.0,
        # without a word (tester101).
        version = float(plain_number(value, whole=False))
    except ValueError:
        notes.add(f"unreadable <version> {_short(value)}; using {DEFAULT_VERSION}")
        return DEFAULT_VERSION
    if math.isinf(version):
        # The wire's JSON has no infinity: the report cannot be sent as written (400 digits make one).
        raise ReportRejected(f"<version> is not a finite number: {_short(value)}")
    if math.copysign(1.0, version) < 0:  # negative, "-0" too: it would be sent as -0.0
        notes.add(f"unreadable <version> {_short(value)}; using {DEFAULT_VERSION}")
        return DEFAULT_VERSION
    return version


def _errors(meta: ET.Element) -> dict[str, bool]:
    messages = [(e.text or "").strip() for e in meta.findall("error")]
    return to_set(m for m in messages if m)


def _enum(table: dict[str, str], value: str | None, what: str, notes: Notes) -> str:
    if value in table:  # the usual case, without folding the word (None is never a key)
        return table[value]
    mapped, unknown = vocab.with_unspecified(table, value)
    if unknown:
        notes.add(f"unknown {what} {_short(value)}; using 'unspecified'")
    return mapped


def _policy(policy: ET.Element, notes: Notes) -> dict[str, Any]:
    pct_text = text_of(policy, "pct")
    pct: int | None = None
    if pct_text is not None:
        try:
            pct = int(plain_number(pct_text))
        except ValueError:
            notes.add(f"unreadable <pct> {_short(pct_text)}; ignored")
    testing = (text_of(policy, "testing") or "").lower()
    if testing not in ("", "y", "n"):
        notes.add(f"unknown <testing> {_short(testing)}; taken as 'n'")
    return {
        "policyAdkim": _enum(vocab.ALIGNMENT, text_of(policy, "adkim"), "<adkim>", notes),
        "policyAspf": _enum(vocab.ALIGNMENT, text_of(policy, "aspf"), "<aspf>", notes),
        "policyDisposition": _enum(vocab.DISPOSITION, text_of(policy, "p"), "<p>", notes),
        "policySubdomainDisposition": _enum(vocab.DISPOSITION, text_of(policy, "sp"), "<sp>", notes),
        # RFC 7489 expresses testing as sampling (pct < 100); RFC 9990 as t=y.
        "policyTestingMode": (pct is not None and pct < 100) or testing == "y",
        "policyFailureReportingOptions": to_set(_failure_options(text_of(policy, "fo"), notes)),
        "policyNp": _enum(vocab.DISPOSITION, text_of(policy, "np"), "<np>", notes),
        "policyDiscoveryMethod": _enum(
            vocab.DISCOVERY, text_of(policy, "discovery_method"), "<discovery_method>", notes
        ),
    }


def _failure_options(value: str | None, notes: Notes) -> list[str]:
    options: list[str] = []
    for word in (value or "").split(":"):
        if not word.strip():
            continue
        option = vocab.strict(vocab.FAILURE_OPTION, word)
        if option is None:
            notes.add(f"unknown <fo> option {_short(word.strip())}; ignored")
        elif option not in options:
            options.append(option)
    return options


def _records(root: ET.Element, notes: Notes) -> list[dict[str, Any]]:
    elements = root.findall("record")
    if not elements:
        # RFC 7489's schema requires at least one record; a report without any
        # says nothing about mail flow and is not worth storing.
        raise ReportRejected("report has no <record> elements")
    records: list[dict[str, Any]] = []
    reasons: list[str] = []
    for position, element in enumerate(elements, start=1):
        try:
            records.append(map_record(element, notes))
        except RecordSkipped as skipped:
            reasons.append(str(skipped))
            notes.add(f"record {position} skipped: {skipped}")
    if not records:
        raise ReportRejected(f"none of the {len(elements)} records is usable (first problem: {reasons[0]})")
    return records


def map_record(element: ET.Element, notes: Notes) -> dict[str, Any]:
    """Build one DmarcReportRecord wire dict; raise RecordSkipped when unusable."""
    row = element.find("row")
    if row is None:
        raise RecordSkipped("no <row>")
    evaluated = row.find("policy_evaluated")
    # Two counts (5 and 500) or two sources: which one the reporter meant is unknown.
    if conflict := first_conflict((element, ()), (row, ()), (element.find("identifiers"), ()),
                                  (evaluated, ("reason",))):
        raise RecordSkipped(conflict)
    identifiers = child_texts(element.find("identifiers"))
    given = identifiers.get("header_from")
    header_from = clean_domain(given)
    if header_from is None:
        # Empty is "no"; a value that is no domain (a line break in it) is said as such, quoted.
        raise RecordSkipped(f"<header_from> is not a domain: {_short(given)}" if given and given.strip()
                            else "no <header_from>")

    row_texts = child_texts(row)
    count_text = row_texts.get("count")
    if count_text is None and "count" in row_texts:
        # An empty <count> is no number: read as 0 it made a record of no messages without a word (the tester's).
        count_text = ""
    try:
        count = int(plain_number(count_text)) if count_text is not None else 0
    except ValueError:
        raise RecordSkipped(f"<count> is not a number: {_short(count_text)}") from None
    if count < 0:
        raise RecordSkipped(f"<count> is negative: {count}")
    if count > MAX_WIRE_INT:
        raise RecordSkipped(f"<count> is larger than 2^53-1: {_short(count_text)}")

    if evaluated is None:
        notes.add("record without <policy_evaluated>; results set to 'unspecified'")
    verdicts = child_texts(evaluated)
    auth = element.find("auth_results")
    dkim = _dkim_results(auth, notes)
    spf = _spf_results(auth, notes)

    # Written field by field, in the wire's order, so an absent optional field is simply not
    # written (a record is the unit a large report repeats thousands of times).
    record: dict[str, Any] = {}
    source_ip = _source_ip(row_texts.get("source_ip"), notes)
    if source_ip is not None:
        record["sourceIp"] = source_ip
    record["count"] = count
    record["evaluatedDisposition"] = _enum(
        vocab.ACTION_DISPOSITION, verdicts.get("disposition"), "disposition", notes
    )
    record["evaluatedDkim"] = _enum(vocab.DMARC_RESULT, verdicts.get("dkim"), "DKIM verdict", notes)
    record["evaluatedSpf"] = _enum(vocab.DMARC_RESULT, verdicts.get("spf"), "SPF verdict", notes)
    record["policyOverrideReasons"] = to_index_map(_override_reasons(evaluated, notes))
    given_to, given_from = identifiers.get("envelope_to"), identifiers.get("envelope_from")
    envelope_to = clean_domain(given_to)
    if envelope_to is not None:
        record["envelopeTo"] = envelope_to
    elif given_to is not None and given_to.strip():
        notes.add("<envelope_to> that is not a domain name left out")  # said, not dropped unseen (tester86)
    record["envelopeFrom"] = _envelope_from(given_from, spf, header_from)
    if given_from is not None and given_from.strip() and clean_domain(given_from) is None:
        # Stored in its place without a word, "bounce attacker.test" read as the header From's own (tester86).
        notes.add("<envelope_from> that is not a domain name: the SPF MAIL FROM domain, else the header From"
                  " domain, stored in its place")
    record["headerFrom"] = header_from
    record["dkimResults"] = to_index_map(dkim)
    record["spfResults"] = to_index_map(spf)
    record["extensions"] = to_index_map(_extensions(element.find("extensions"), notes, "record"))
    return record


def _envelope_from(envelope_from: str | None, spf: list[dict[str, Any]], header_from: str) -> str:
    """envelopeFrom is required on the wire but optional in RFC 7489 reports.

    Fallback order: the XML's <envelope_from>; else the domain of the SPF result
    for the MAIL FROM identity (scope mfrom, or no scope, since RFC 7489 SPF
    results are about MAIL FROM unless they say helo); else the header From domain,
    which is what the envelope sender is aligned against.
    """
    explicit = clean_domain(envelope_from)
    if explicit is not None:
        return explicit
    for wanted in ("mailFrom", "unspecified"):
        for result in spf:
            if result["scope"] == wanted:
                return str(result["domain"])
    return header_from


def _source_ip(value: str | None, notes: Notes) -> str | None:
    if value is None:
        return None
    canonical = canonical_ip(value)
    if canonical is None:
        notes.add(f"invalid <source_ip> {_short(value)}; left empty")
    return canonical


def _override_reasons(evaluated: ET.Element | None, notes: Notes) -> list[dict[str, Any]]:
    reasons: list[dict[str, Any]] = []
    for reason in [] if evaluated is None else evaluated.findall("reason"):
        word = text_of(reason, "type")
        kind = vocab.strict(vocab.OVERRIDE, word)
        if kind is None:
            notes.add(f"policy override reason dropped: unknown type {_short(word)}")
            continue
        reasons.append(_without_none({"overrideType": kind, "comment": text_of(reason, "comment")}))
    return reasons


def _dkim_results(auth: ET.Element | None, notes: Notes) -> list[dict[str, Any]]:
    results: list[dict[str, Any]] = []
    for texts in _auth_items(auth, "dkim", notes):
        checked = _checked_result(texts, "DKIM", vocab.DKIM_RESULT, notes)
        if checked is not None:
            domain, result = checked
            item = {"domain": domain, "selector": texts.get("selector") or MISSING_SELECTOR, "result": result}
            results.append(_with_human_result(item, texts))
    return results


def _spf_results(auth: ET.Element | None, notes: Notes) -> list[dict[str, Any]]:
    results: list[dict[str, Any]] = []
    for texts in _auth_items(auth, "spf", notes):
        checked = _checked_result(texts, "SPF", vocab.SPF_RESULT, notes)
        if checked is not None:
            domain, result = checked
            scope = _enum(vocab.SPF_SCOPE, texts.get("scope"), "SPF scope", notes)
            results.append(_with_human_result({"domain": domain, "scope": scope, "result": result}, texts))
    return results


def _auth_items(auth: ET.Element | None, tag: str, notes: Notes) -> list[dict[str, str | None]]:
    """The texts of each DKIM or SPF result; one that says two things (two results) is dropped, noted."""
    items = []
    for item in [] if auth is None else auth.findall(tag):
        conflict = conflicting_repeat(item)
        if conflict is None:
            items.append(child_texts(item))
        else:
            notes.add(f"{tag.upper()} result dropped: {conflict}")
    return items


def _checked_result(
    texts: dict[str, str | None], name: str, results_vocab: dict[str, str], notes: Notes
) -> tuple[str, str] | None:
    """A DKIM or SPF result's domain and wire result; None (noted) when either is unusable: it is dropped."""
    domain = clean_domain(texts.get("domain"))
    word = texts.get("result")
    result = vocab.strict(results_vocab, word)
    if domain is None:
        notes.add(f"{name} result dropped: no domain")
        return None
    if result is None:
        notes.add(f"{name} result for {domain} dropped: unknown result {_short(word)}")
        return None
    return domain, result


def _with_human_result(item: dict[str, Any], texts: dict[str, str | None]) -> dict[str, Any]:
    human = texts.get("human_result")
    if human is not None:
        item["humanResult"] = human
    return item


def _extensions(container: ET.Element | None, notes: Notes, where: str) -> list[dict[str, str]]:
    if container is None:
        return []
    extensions: list[dict[str, str]] = []
    for item in container.findall("extension"):
        # RFC 9990 puts name/definition in attributes; accept child elements too.
        name = (item.get("name") or text_of(item, "name") or "").strip()
        definition = (item.get("definition") or text_of(item, "definition") or "").strip()
        if not name or not definition:
            notes.add(f"{where} extension dropped: needs both a name and a definition")
            continue
        extensions.append({"name": name, "definition": definition})
    return extensions


def _short(value: str | None, keep: int = 40) -> str:
    """Quote outside text for a message, cut so a 4,000-digit number stays one readable line."""
    text = repr(value)
    return text if len(text) <= keep else f"{text[:keep]}... ({len(value or '')} characters)"


def unsendable_number(value: Any, where: str = "report") -> str | None:
    """Where a number the wire cannot carry (non-finite float, integer past 2^53-1) sits; None if none.

    The mapping checks each number as it reads it; this walk is the net under it, so no
    such value reaches the wire even from a field added later. It runs on every report, so a
    quick walk that only answers yes or no goes first; the walk that names the place runs
    when that one finds something (or a value of a kind it does not know).
    """
    if _all_sendable(value):
        return None
    return _first_unsendable(value, where)


def _all_sendable(value: Any) -> bool:
    """True when every number in the JSON-shaped ``value`` fits the wire; False when unsure."""
    if type(value) is not dict:
        return False
    pending: list[Any] = [value]
    while pending:
        container = pending.pop()
        for item in container.values() if type(container) is dict else container:
            kind = type(item)
            if kind is str or kind is bool or item is None:
                continue
            if kind is dict or kind is list or kind is tuple:
                pending.append(item)
            elif kind is int:
                if not -MAX_WIRE_INT <= item <= MAX_WIRE_INT:
                    return False
            elif kind is not float or not math.isfinite(item):
                return False
    return True


def _first_unsendable(value: Any, where: str) -> str | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return None if -MAX_WIRE_INT <= value <= MAX_WIRE_INT else f"{where} is an integer past 2^53-1"
    if isinstance(value, float):
        return None if math.isfinite(value) else f"{where} is not a finite number"
    if isinstance(value, dict):
        items: Any = value.items()
    elif isinstance(value, (list, tuple)):
        items = enumerate(value)
    else:
        return None
    for key, item in items:
        found = _first_unsendable(item, f"{where}.{key}")
        if found is not None:
            return found
    return None


def _without_none(values: dict[str, Any]) -> dict[str, Any]:
    # Absent optional fields are omitted rather than sent as null or "".
    return {k: v for k, v in values.items() if v is not None and v != ""}
