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
"""The y axis's width at least; a longer scale label widens every row alike (the top row's bars sat 11 columns
right of the rows under them beside a label of 2^42 messages: the tester's)."""
PAD = " "
_UNITS = ((10**18, "E"), (10**15, "P"), (10**12, "T"), (10**9, "G"), (10**6, "M"))


def _scale_text(value: float, unit: str) -> str:
    """A scale value: whole up to 999,999, then three figures and a unit (``6.60T``), so the axis stays narrow."""
    for size, letter in _UNITS:
        if value >= size:
            return f"{value / size:.3g}{letter}{unit}"
    return f"{value:,.0f}{unit}"


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
    axis_width = axis_width_for(top, unit)
    for row in range(height - 1, -1, -1):
        label = _scale_text(top, unit) if row == height - 1 else _scale_text(0, unit) if row == 0 else None
        axis = PAD * (axis_width - 1) + "│" if label is None else label.rjust(axis_width - 2, PAD) + " ┤"
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
    out.append(PAD * (axis_width - 1) + "└" + "─" * (len(values) * width) + "\n", style="dim")
    out.append(PAD * axis_width)
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


def axis_width_for(top: float, unit: str = "") -> int:
    """The y axis's width beside a scale up to ``top``: its longest label, a space and the tick."""
    return max(AXIS_WIDTH, len(_scale_text(top, unit)) + 2)


def days_a_column(days: int, width: int | None) -> int:
    """How many days one column of a chart ``width`` cells wide shows: one, unless the period's days do not fit
    (a year at 120 columns showed its first 110 days and nothing of the last months: the tester's)."""
    if width is None or days <= 0:
        return 1
    return max(1, -(-days // _room(width)))


def _room(width: int) -> int:
    """The columns beside the widest y axis a chart of counts has (``999,999 ┤``; larger scales are shorter)."""
    return max(1, width - len("999,999 ┤"))


def daily_chart(figures: Figures | Headline, width: int | None = None) -> Group:
    """Analytics' Daily tab: messages and the pass rate per day of the period, or per few days when the period's
    days do not fit ``width`` cells (the pass rate then weighted over each column's days)."""
    series = figures.daily
    per = days_a_column(len(series), width)
    columns = [series[at:at + per] for at in range(0, len(series), per)]
    days = [column[0].day for column in columns]
    volume = [sum(d.messages for d in column) for column in columns]
    passed = [sum(d.passed for d in column) for column in columns]
    compliance = [None if not messages else 100 * ok / messages for messages, ok in zip(volume, passed, strict=True)]
    span, gap = ("day", "for that day") if per == 1 else (f"{per} days", f"in those {per} days")
    # Two cells a column while they fit, as before: 30 days at 80 columns did not, and the last days were cut.
    cells = 2 if len(columns) <= 45 and (width is None or 2 * len(columns) <= _room(width)) else 1
    return Group(
        Text(f"Messages per {span}", style="bold"),
        bar_chart(volume, height=8, style="cyan", days=days, column_width=cells),
        Text(""),
        Text(f"DMARC pass % per {span} (weighted by messages; · = no report {gap})", style="bold"),
        bar_chart(compliance, height=6, style="green", days=days, maximum=100, unit="%", column_width=cells),
    )
