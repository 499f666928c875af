"""A column chart drawn with block characters, one column per day.

Textual's Sparkline squeezes data into the widget width and has no axes; a daily
chart needs days on the x axis and a scale on the y axis, so it is drawn here.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date

from rich.console import Group
from rich.text import Text

from jmapclient.dmarc.digest_store import Figures
from jmapclient.dmarc.figures import Headline

BLOCKS = " ▁▂▃▄▅▆▇█"
NO_DATA = "·"
AXIS_WIDTH = 8
PAD = " "


def _scale_label(value: float, unit: str) -> str:
    text = f"{value:,.0f}{unit}"
    return text.rjust(AXIS_WIDTH - 2, PAD) + " ┤"


def bar_chart(
    values: Sequence[float | None],
    *,
    height: int,
    days: Sequence[date],
    style: str = "",
    maximum: float | None = None,
    unit: str = "",
    column_width: int | None = None,
) -> Text:
    """Rows of block characters; None marks a day without data (a dot on the baseline)."""
    if not values:
        return Text("no days in the period")
    known = [v for v in values if v is not None]
    top = maximum if maximum is not None else max(known, default=0)
    top = top or 1
    width = column_width or (2 if len(values) <= 45 else 1)
    out = Text(no_wrap=True, overflow="crop")  # a folded chart would be unreadable
    for row in range(height - 1, -1, -1):
        axis = _scale_label(top, unit) if row == height - 1 else (
            _scale_label(0, unit) if row == 0 else PAD * (AXIS_WIDTH - 1) + "│")
        out.append(axis, style="dim")
        for value in values:
            if value is None:
                cell = NO_DATA if row == 0 else " "
                out.append(cell.ljust(width), style="dim")
                continue
            filled = value / top * height - row
            if filled >= 1:
                char = BLOCKS[-1]
            elif filled > 0:
                char = BLOCKS[max(1, round(filled * 8))]
            else:
                char = " "
            out.append((char * (width - 1 if width > 1 else 1)).ljust(width), style=style)
        out.append("\n")
    out.append(PAD * (AXIS_WIDTH - 1) + "└" + "─" * (len(values) * width) + "\n", style="dim")
    out.append(PAD * AXIS_WIDTH)
    out.append(_axis_labels(days, width), style="dim")
    return out


def _axis_labels(days: Sequence[date], width: int) -> str:
    """First, middle and last day under the chart, each under its column."""
    span = len(days) * width
    line = [" "] * max(span, 1)
    if not days:
        return ""
    for index in sorted({0, len(days) // 2, len(days) - 1}):
        text = f"{days[index]:%m-%d}"
        start = min(index * width, max(0, span - len(text)))
        if any(c != " " for c in line[max(0, start - 1):start + len(text) + 1]):
            continue
        line[start:start + len(text)] = list(text)
    return "".join(line).rstrip()


def daily_chart(figures: Figures | Headline) -> Group:
    """Analytics' Daily tab: messages and the pass rate per day of the period."""
    series = figures.daily
    days = [d.day for d in series]
    volume = [d.messages for d in series]
    compliance = [None if d.rate is None else d.rate * 100 for d in series]
    return Group(
        Text("Messages per day", style="bold"),
        bar_chart(volume, height=8, style="cyan", days=days),
        Text(""),
        Text("DMARC pass % per day (weighted by messages; · = no report for that day)", style="bold"),
        bar_chart(compliance, height=6, style="green", days=days, maximum=100, unit="%"),
    )
