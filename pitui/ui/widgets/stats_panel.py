"""The stats panel: totals, the biggest groups, and a chart of spend per day in block characters.

The panel only draws a :class:`~pitui.core.stats.StatsReport`; the screen that holds it computes
the report in a worker. The chart is as wide as the panel: one column per day, eighth-block
resolution, days without spend drawn empty so the time axis is true.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, timedelta

from rich.console import Group, RenderableType
from rich.style import Style
from rich.table import Table
from rich.text import Text
from textual.widgets import Static

from pitui.core.stats import StatsReport, Tally
from pitui.core.units import format_cost, format_count
from pitui.render.safe_text import one_line

__all__ = ["BLOCKS", "SpendChart", "StatsPanel", "spend_chart"]

#: Column heights in eighths, empty to full.
BLOCKS = " ▁▂▃▄▅▆▇█"
CHART_HEIGHT = 6
TOP_GROUPS = 6


def _days(daily: Sequence[tuple[str, float]]) -> list[tuple[date, float]]:
    """Every day from the first to the last with spend, gaps filled with zero."""
    known: dict[date, float] = {}
    for day, cost in daily:
        try:
            when = date.fromisoformat(day)
        except ValueError:
            continue  # "(unknown)": not a day on the axis
        known[when] = known.get(when, 0.0) + cost
    if not known:
        return []
    first, last = min(known), max(known)
    return [
        (first + timedelta(days=n), known.get(first + timedelta(days=n), 0.0))
        for n in range((last - first).days + 1)
    ]


@dataclass(frozen=True, slots=True)
class SpendChart:
    rows: list[tuple[str, str]]  # (axis label, columns) from the top row down
    axis: str
    dates: str
    drawn: int  # days drawn (the last ones)
    total: int  # days from the first to the last with spend

    def lines(self) -> list[str]:
        return [label + cells for label, cells in self.rows] + [self.axis, self.dates]


def spend_chart(
    daily: Sequence[tuple[str, float]], width: int, height: int = CHART_HEIGHT
) -> SpendChart | None:
    """The chart of spend per day in ``width`` cells (axis labels included), or None without
    any day. The last days that fit are drawn; a day with any spend is at least one eighth
    high, so small days stay visible next to big ones."""
    days = _days(daily)
    if not days or height < 1:
        return None
    peak = max(cost for _, cost in days)
    top = format_cost(peak)
    label = max(len(top), len(format_cost(0.0)))
    columns = max(1, width - label - 2)
    shown = days[-columns:]
    units = [
        0 if cost <= 0 or peak <= 0 else max(1, round(cost / peak * height * 8))
        for _, cost in shown
    ]
    rows: list[tuple[str, str]] = []
    for row in range(height):
        floor = (height - 1 - row) * 8
        cells = "".join(BLOCKS[min(8, max(0, unit - floor))] for unit in units)
        prefix = f"{top:>{label}} ┤" if row == 0 else f"{'':>{label}} │"
        rows.append((prefix, cells))
    first, last = shown[0][0].isoformat(), shown[-1][0].isoformat()
    span = len(shown)
    if span >= len(first) + len(last) + 1:
        dates = first + " " * (span - len(first) - len(last)) + last
    else:
        dates = first if span == 1 else f"{first} … {last}"
    return SpendChart(
        rows=rows,
        axis=f"{format_cost(0.0):>{label}} └" + "─" * span,
        dates=" " * (label + 2) + dates,
        drawn=span,
        total=len(days),
    )


class StatsPanel(Static):
    """Draws a report (or a progress / error line) at the panel's width."""

    COMPONENT_CLASSES = {"stats-panel--bar", "stats-panel--muted"}

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.report: StatsReport | None = None
        self.status: str = "Reading sessions…"

    def show_report(self, report: StatsReport) -> None:
        self.report = report
        self.status = ""
        self.refresh(layout=True)

    def show_status(self, status: str) -> None:
        """A line shown instead of the report (progress, an error)."""
        self.report = None
        self.status = status
        self.refresh(layout=True)

    def render(self) -> RenderableType:
        muted = self.get_component_rich_style("stats-panel--muted", partial=True)
        if self.report is None:
            return Text(self.status, style=muted)
        return self.draw(self.report, max(self.content_region.width, 20))

    def draw(self, report: StatsReport, width: int) -> Group:
        muted = self.get_component_rich_style("stats-panel--muted", partial=True)
        bar = self.get_component_rich_style("stats-panel--bar", partial=True)
        parts: list[RenderableType] = [_totals(report.totals)]
        notes = []
        if report.replayed:
            notes.append(f"{format_count(report.replayed)} entries copied by forks counted once")
        if report.skipped:
            notes.append(f"{format_count(len(report.skipped))} unreadable files left out")
        if notes:
            parts.append(Text("; ".join(notes), style=muted))
        chart = spend_chart([(d, t.cost) for d, t in report.daily], width)
        parts.append(Text(""))
        if chart is not None:
            title = "Spend per day"
            if chart.drawn < chart.total:
                title += f" (the last {chart.drawn} of {chart.total} days)"
            parts.append(Text(title, style=Style(bold=True)))
            drawing = Text(no_wrap=True, overflow="crop")
            for label, cells in chart.rows:
                drawing.append(label, style=muted)
                drawing.append(cells + "\n", style=bar)
            drawing.append(chart.axis + "\n" + chart.dates, style=muted)
            parts.append(drawing)
        else:
            parts.append(Text("No spend recorded.", style=muted))
        if report.groups:
            parts.append(Text(""))
            parts.append(_groups(report, width, muted))
        return Group(*parts)


def _totals(totals: Tally) -> Text:
    text = Text()
    for number, (value, label) in enumerate(
        (
            (format_count(totals.sessions), " session" if totals.sessions == 1 else " sessions"),
            (format_count(totals.messages), " message" if totals.messages == 1 else " messages"),
            (format_count(int(totals.total_tokens)), " tokens"),
            (format_cost(totals.cost), ""),
        )
    ):
        if number:
            text.append(" · ")
        text.append(value, style=Style(bold=True))
        text.append(label)
    return text


def _groups(report: StatsReport, width: int, muted: Style) -> Table:
    table = Table(box=None, pad_edge=False, show_edge=False, expand=False, header_style="bold")
    table.add_column(f"by {report.by}", no_wrap=True, max_width=max(10, width - 40))
    table.add_column("sessions", justify="right")
    table.add_column("messages", justify="right")
    table.add_column("cost", justify="right")
    for key, tally in report.groups[:TOP_GROUPS]:
        # group names are session text (folders, model names): one safe line, never markup
        table.add_row(
            Text(one_line(key), overflow="ellipsis", no_wrap=True),
            format_count(tally.sessions),
            format_count(tally.messages),
            format_cost(tally.cost),
        )
    rest = len(report.groups) - TOP_GROUPS
    if rest > 0:
        table.add_row(Text(f"… {rest} more", style=muted), "", "", "")
    return table
