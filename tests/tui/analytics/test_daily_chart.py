"""The Daily tab's chart fits its width and keeps its axis straight; figures at the store's cap read as floors.

The tester's year at 120 columns showed only its first 110 days (the last months, where the reports were, cut
off), and a scale label of 2^42 messages pushed the top row's bars 11 columns right of the rows under them.
"""

from __future__ import annotations

from datetime import date, timedelta

from rich.console import Console
from rich.text import Text

from jmapclient.dmarc.analytics import DayStat, Overview
from jmapclient.dmarc.digest_rows import MAX_COUNT
from jmapclient.dmarc.figures import Headline
from tui.reports.chart import bar_chart, daily_chart
from tui.reports.fmt import summed
from tui.reports.insight_render import num


def year(messages: dict[int, tuple[int, int]]) -> Headline:
    """365 days from 2026-01-01; ``messages`` maps a day's index to its (messages, passed)."""
    first = date(2026, 1, 1)
    daily = [DayStat(first + timedelta(days=i), *messages.get(i, (0, 0))) for i in range(365)]
    total = sum(m for m, _ in messages.values()), sum(p for _, p in messages.values())
    return Headline(first, daily[-1].day, Overview(len(messages), *total), [], daily)


def shown(renderable: object, width: int) -> list[str]:
    console = Console(width=width, record=True, color_system=None)
    console.print(renderable)
    return console.export_text().splitlines()


def test_a_year_fits_the_width_a_few_days_a_column_and_its_last_days_are_drawn() -> None:
    headline = year({360: (100, 90), 364: (50, 50)})
    lines = shown(daily_chart(headline, 112), 112)
    assert "Messages per 4 days" in lines[0]
    assert all(len(line) <= 112 for line in lines)
    bars = [line for line in lines if "█" in line or "▁" in line]
    assert bars, "the last days' reports are drawn"
    rates = lines[lines.index(next(line for line in lines if line.startswith("DMARC pass % per 4 days"))):]
    assert "(weighted by messages; · = no report in those 4 days)" in rates[0]
    pass_rows = [line for line in rates[1:] if "█" in line]
    assert pass_rows, "the pass rate is drawn for the columns holding reports (they were all dots)"
    last_labels = lines[lines.index(next(line for line in lines if line.startswith("DMARC"))) - 2]
    assert "12-" in last_labels, f"the last column's day is labelled: {last_labels!r}"


def test_a_month_at_80_columns_is_one_cell_a_day_and_not_cut() -> None:
    first = date(2026, 3, 1)
    daily = [DayStat(first + timedelta(days=i), 10, 10) for i in range(30)]
    headline = Headline(first, daily[-1].day, Overview(30, 300, 300), [], daily)
    lines = shown(daily_chart(headline, 60), 60)
    assert "Messages per day" in lines[0]
    assert all(len(line) <= 60 for line in lines)
    assert max(line.count("█") for line in lines) == 30, "every day's bar is on screen"


def test_a_long_scale_keeps_every_row_of_the_axis_in_one_column() -> None:
    values = [float(6_597_069_767_136), 1.0, None, float(2**40)]
    lines = bar_chart(values, height=5, days=[date(2026, 3, d) for d in range(1, 5)]).plain.splitlines()
    ticks = {line.index(next(c for c in line if c in "┤│└")) for line in lines[:-1]}
    assert len(ticks) == 1, lines
    assert lines[0].lstrip().startswith("6.6T ┤"), lines[0]
    assert lines[len(lines) - 3].lstrip().startswith("0 ┤")


def test_a_summed_figure_at_the_cap_reads_as_a_floor() -> None:
    assert summed(MAX_COUNT - 1) == f"{MAX_COUNT - 1:,}"
    assert summed(MAX_COUNT) == "≥1,099,511,627,776"
    assert isinstance(num(MAX_COUNT), Text) and num(MAX_COUNT).plain == "≥1,099,511,627,776"
    assert num(6_597_069_767_096).plain == "≥6,597,069,767,096"
