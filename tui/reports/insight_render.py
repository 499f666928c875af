"""How the console shows DMARC insight: judged sources in rows, and the advice per policy domain.

Pure rendering, no widgets: the analytics view and a report's records fill their tables
with these. Everything a report or DNS wrote (IPs, PTR names, domains, the verdict's
evidence, which quotes them) goes through :mod:`tui.widgets.outside`: never markup,
hidden characters shown.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich import box
from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from jmapclient.counted import counted
from jmapclient.display import domain_text
from jmapclient.dmarc.analytics import format_rate, pass_rate
from jmapclient.dmarc.insight.advice import DomainAdvice, Verdict, shown_domains
from jmapclient.dmarc.insight.judge import JudgedRecord, JudgedSource, SourceClass, group_by_service
from jmapclient.dmarc.insight.names import NameStatus, SourceName
from tui.reports import fmt
from tui.reports.source_names import name_words
from tui.widgets import outside

CLASS_STYLE = {
    SourceClass.ALIGNED: "green",
    SourceClass.MISALIGNED: "yellow",
    SourceClass.FORWARDED: "cyan",
    SourceClass.VIA_PROVIDER: "magenta",
    SourceClass.UNKNOWN: "bold red",
}
VERDICT_STYLE = {
    Verdict.READY: "bold green",
    Verdict.NOT_READY: "bold yellow",
    Verdict.TOO_LITTLE_DATA: "bold",
    Verdict.ENFORCED: "bold green",
}
NEW_MARK = "new"
SOURCE_COLUMNS = ("Source IP", "Policy domain", "Class", "Messages", "DMARC pass", "New", "Name (PTR)", "Service",
                  "Base domain", "Reason")
NAME_COLUMNS = ("name", "base", "service")
"""The columns a late name fills in (keys of the Sources table)."""
Cells = tuple[Text, ...]
BLANK_INSIGHT: Cells = (Text(""),) * 4
"""A record's insight cells when its report could not be judged."""
SOURCE_KEYS = ("ip", "domain", "class", "messages", "rate", "new", "name", "service", "base", "reason")
"""The columns' keys, in the order of :data:`SOURCE_COLUMNS`; a service group's row fills the same ones."""


def class_text(klass: SourceClass) -> Text:
    return Text(str(klass), style=CLASS_STYLE[klass])


def name_cells(name: SourceName | None, service: str) -> tuple[Text, Text, Text]:
    """Name, base domain and service cells; the service from the name wins over the judged one."""
    if name is None:
        return Text("–", style="dim"), Text(""), outside.cut(service)
    named = name.service.name if name.service is not None else service
    style = "" if name.ptr else "dim"
    return outside.cut(name_words(name), style), outside.cut(name.base or ""), outside.cut(named)


def record_cells(judged: JudgedRecord) -> Cells:
    """A report record's service and class (shown beside its count), then its source name and the reason.

    A name not looked up yet is left blank: the records view never looks up, it shows what is known.
    """
    name = judged.name
    pending = name is None or name.status is NameStatus.PENDING
    ptr = Text("") if pending else name_cells(name, "")[0]
    service = judged.service
    return (outside.cut(service.name if service is not None else ""), class_text(judged.judgement.klass), ptr,
            outside.cut(judged.judgement.reason))


def group_cells(service: str, counts: Sequence[int], width: int) -> Cells:
    """A service's heading row in a report's records: its name, then its messages under the count."""
    heading = (outside.cut(service, "bold"), Text(f"{sum(counts):,}", style="bold"))
    return heading + (Text(""),) * (width - len(heading))


def source_key(source: JudgedSource) -> str:
    return f"{source.policy_domain}\x00{source.ip}"


def group_row(service: str, sources: Sequence[JudgedSource]) -> tuple[Text, ...]:
    messages = sum(s.messages for s in sources)
    passed = sum(s.passed for s in sources)
    count = counted(len(sources), "source")
    return (outside.cut(service, "bold"), Text(count, style="dim"), Text(""), num(messages, "bold"),
            rate(pass_rate(passed, messages)), Text(""), Text(""), Text(""), Text(""), Text(""))


def source_row(source: JudgedSource, name: SourceName | None) -> tuple[Text, ...]:
    ptr, base, service = name_cells(name if source.ip else None, source.group)  # no address: nothing looked up
    return (outside.cut(source.shown_ip), outside.cut(domain_text(source.policy_domain)), class_text(source.klass),
            num(source.messages), rate(pass_rate(source.passed, source.messages)),
            Text(NEW_MARK, style="bold magenta") if source.new else Text(""), ptr, service, base,
            outside.cut(source.reason))


def grouped(sources: Sequence[JudgedSource]) -> list[tuple[str, list[JudgedSource]]]:
    """The Sources tab's order: by service, the busiest group first, unknown last."""
    return group_by_service(sources)


def advice_block(advice: DomainAdvice) -> RenderableType:
    """One policy domain: its policy over the period, what the next step affects, the verdict."""
    head = Text.assemble(
        outside.cut(domain_text(advice.domain), "bold"),
        f"  {advice.first:%Y-%m-%d} to {advice.last:%Y-%m-%d}: {counted(advice.reports, 'report')}, "
        f"{counted(advice.messages, 'message')}, DMARC pass {format_rate(pass_rate(advice.passed, advice.messages))}")
    lines: list[RenderableType] = [head]
    for policy in advice.policies:
        current = " (latest)" if advice.current is not None and policy.words() == advice.current.words() else ""
        lines.append(Text.assemble("  Published: ", outside.cut(policy.words(), "bold"),
                                   f" in {counted(policy.reports, 'report')}{current}"))
    if advice.current is None:  # no report counted: the policy published is not known
        lines.append(Text("  Next step: unknown (no report of the period counted)"))
    elif advice.next_step is None:
        lines.append(Text("  Next step: none (already p=reject)"))
    else:
        share = pass_rate(advice.affected, advice.messages)
        lines.append(Text(f"  Next step p={advice.next_step} would act on {advice.affected:,} messages "
                          f"({format_rate(share)}), those failing DMARC:"))
    lines.append(_class_table(advice))
    # The summary quotes reports (IPs, reporters): one line, a line break in them shown as \n.
    verdict = Text.assemble(("  " + str(advice.verdict).capitalize() + ": ", VERDICT_STYLE[advice.verdict]),
                            outside.whole(advice.summary))
    lines.append(verdict)
    new = advice.new_sources
    if new:
        shown = ", ".join(s.shown_ip for s in new[:5]) + (f" and {len(new) - 5} more" if len(new) > 5 else "")
        lines.append(Text.assemble(("  New in this period: ", "magenta"), outside.whole(shown)))
    lines.append(Text(""))
    return Group(*lines)


def _class_table(advice: DomainAdvice) -> Table:
    table = Table(box=box.SIMPLE_HEAD, padding=(0, 1), show_edge=False)
    for title, justify in (("Source class", "left"), ("Messages", "right"), ("Failing DMARC", "right"),
                           ("Share of all mail affected", "right")):
        table.add_column(title, justify=justify)  # type: ignore[arg-type]
    for klass, share in advice.by_class.items():
        table.add_row(class_text(klass), f"{share.messages:,}", f"{share.failing:,}",
                      format_rate(pass_rate(share.failing, advice.messages)))
    if not advice.by_class:
        table.add_row(Text("no records", style="dim"), "", "", "")
    return table


def advice_group(advices: list[DomainAdvice]) -> RenderableType:
    """The advice of the busiest domains (:func:`shown_domains`: thousands of blocks took minutes to draw, on the
    loop the keys wait for), and a line counting the others."""
    if not advices:
        return Text("No reports in this period: too little data to advise.")
    told = shown_domains(advices)
    more = told.more()
    return Group(*(advice_block(a) for a in told.shown),
                 *([Text(f"{more}: `mailadmin dmarc-advice --json` lists every domain")] if more else []))


def num(value: int, style: str = "") -> Text:
    """A count the analytics summed (:func:`fmt.summed`: one at the store's cap is a floor)."""
    return Text(fmt.summed(value), style=style, justify="right")


def rate(value: float | None) -> Text:
    return Text(format_rate(value), style=fmt.rate_style(value), justify="right")
