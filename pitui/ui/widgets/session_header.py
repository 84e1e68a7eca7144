"""The three lines over the session view: the session's name and folder (with the live state at
the right), the file's facts, and the spend of this branch, of the whole file and of the others.

The screen hands over what to show (:class:`HeaderFacts`); the header lays it out at its width
and again whenever that width changes.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from rich.text import Text
from textual.widgets import Static

from pitui.core.counts import Counts
from pitui.core.isotime import parse_iso_ms
from pitui.core.paths import shorten_home
from pitui.core.units import format_bytes
from pitui.render.safe_text import safe_line, safe_text


@dataclass(frozen=True, slots=True)
class HeaderFacts:
    name: str | None
    cwd: str
    created: str | None  # the header's ISO time
    file_size: int
    modified: float  # seconds since the epoch
    entries: int
    counts: Counts | None  # None: still counting
    read_only: bool  # the file was deleted on disk
    writing: bool  # pi wrote to the file a moment ago
    follow: bool


def _local_time(millis: float | None) -> str:
    if millis is None:
        return "unknown"
    try:
        return datetime.fromtimestamp(millis / 1000).astimezone().strftime("%Y-%m-%d %H:%M")
    except (OverflowError, OSError, ValueError):
        return "unknown"


def _money(cost: float) -> str:
    return f"${cost:.4f}" if abs(cost) < 1 else f"${cost:,.2f}"


def title_line(facts: HeaderFacts, width: int) -> Text:
    """Name and folder at the left, the live state at the right."""
    title = Text(no_wrap=True, overflow="ellipsis")
    title.append_text(safe_line(facts.name or "(unnamed session)", style="bold"))
    title.append(f"  {shorten_home(facts.cwd) or '(no folder)'}", "dim")
    right = Text(no_wrap=True)
    if facts.read_only:
        right.append("deleted on disk: read-only  ", "bold reverse")
    if facts.writing:
        right.append("● pi is writing  ", "bold")
    right.append("follow on" if facts.follow else "follow off", "dim")
    title.truncate(max(width - right.cell_len - 2, 10), overflow="ellipsis")
    title.pad_right(width - title.cell_len - right.cell_len)
    title.append_text(right)
    return title


def facts_line(facts: HeaderFacts) -> Text:
    created = parse_iso_ms(facts.created) if facts.created else None
    counts = facts.counts
    ends = "counting branches…"
    if counts is not None:
        ends = f"{counts.leaves:,} branch end{'s' if counts.leaves != 1 else ''}"
    return Text(
        f"{format_bytes(facts.file_size)} · created {_local_time(created)} · "
        f"modified {_local_time(facts.modified * 1000)} · {facts.entries:,} entries · {ends}",
        no_wrap=True,
        overflow="ellipsis",
    )


def spend_line(counts: Counts | None) -> Text:
    spend = Text(no_wrap=True, overflow="ellipsis")
    if counts is None:
        spend.append("counting tokens and cost…", "dim")
        return spend
    branch, whole = counts.branch, counts.file
    spend.append("this branch ", "dim")
    spend.append(f"{int(branch.total_tokens):,} tok {_money(branch.cost)}")
    spend.append(" · whole file ", "dim")
    spend.append(f"{int(whole.total_tokens):,} tok {_money(whole.cost)}")
    if whole.total_tokens > branch.total_tokens:  # abandoned branches' spend
        other = int(whole.total_tokens - branch.total_tokens)
        spend.append(" · other branches ", "dim")
        spend.append(f"{other:,} tok {_money(whole.cost - branch.cost)}")
    return spend


class SessionHeader(Static):
    """Shows "Opening …", then the facts of the session, or why it cannot be read."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.facts: HeaderFacts | None = None

    def opening(self, path: str) -> None:
        self.update(Text(f"Opening {shorten_home(path)}…", style="bold"))

    def failed(self, error: str) -> None:
        self.update(safe_text(error, style="bold"))

    def show(self, facts: HeaderFacts) -> None:
        self.facts = facts
        self._lay_out()

    def on_resize(self) -> None:
        if self.facts is not None:
            self._lay_out()

    def _lay_out(self) -> None:
        facts = self.facts
        if facts is None:
            return
        width = max(self.size.width, 20)
        lines = [title_line(facts, width), facts_line(facts), spend_line(facts.counts)]
        header = Text("\n", no_wrap=True, overflow="ellipsis").join(lines)
        header.no_wrap, header.overflow = True, "ellipsis"  # one line each, cut at the edge
        self.update(header)
