"""The three lines over the session view: the session's name and folder (with the live state at
the right), the file's facts, and the spend of this branch, of the whole file and of the others.

The screen hands over what to show (:class:`HeaderView`, the numbers from
:mod:`pitui.core.facts`, written by :mod:`pitui.core.units`); the header lays it out at its width
and again whenever that width changes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from rich.text import Text
from textual.widgets import Static

from pitui.core.facts import SessionFacts
from pitui.core.js import parse_iso_ms
from pitui.core.paths import shorten_home
from pitui.core.units import (
    format_bytes,
    format_cost,
    format_count,
    format_local_time,
    format_tokens,
    plural,
)
from pitui.render.safe_text import safe_line, safe_text


@dataclass(frozen=True, slots=True)
class HeaderView:
    name: str | None
    cwd: str
    created: str | None  # the header's ISO time
    file_size: int
    modified: float  # seconds since the epoch
    entries: int
    facts: SessionFacts | None  # the counts and the spend; None: still counting
    read_only: bool  # the file was deleted on disk
    writing: bool  # pi wrote to the file a moment ago
    follow: bool
    pending: int = 0  # bytes of a last line without its newline, read once the file is quiet


def title_line(shown: HeaderView, width: int) -> Text:
    """Name and folder at the left, the live state at the right."""
    title = Text(no_wrap=True, overflow="ellipsis")
    title.append_text(safe_line(shown.name or "(unnamed session)", style="bold"))
    title.append_text(safe_line(f"  {shorten_home(shown.cwd) or '(no folder)'}", style="dim"))
    right = Text(no_wrap=True)
    if shown.read_only:
        right.append("deleted on disk: read-only  ", "bold reverse")
    if shown.writing:
        right.append("● pi is writing  ", "bold")
    if shown.pending:
        right.append("● last line still being written  ", "bold")
    right.append("follow on" if shown.follow else "follow off", "dim")
    title.truncate(max(width - right.cell_len - 2, 10), overflow="ellipsis")
    title.pad_right(width - title.cell_len - right.cell_len)
    title.append_text(right)
    return title


def facts_line(shown: HeaderView, width: int) -> Text:
    """Size, times, entries and branch ends; on a narrow header the times go first (modified,
    then created), so the counts stay whole rather than the line being cut at its end."""
    created = parse_iso_ms(shown.created) if shown.created else None
    facts = shown.facts
    ends = plural(facts.branch_ends, "branch end") if facts is not None else "counting branches…"
    size = format_bytes(shown.file_size)
    counts = f"{format_count(shown.entries)} entries · {ends}"
    created_part = f"created {format_local_time(created) or 'unknown'}"
    modified_part = f"modified {format_local_time(shown.modified * 1000) or 'unknown'}"
    for parts in (
        (size, created_part, modified_part, counts),
        (size, created_part, counts),
        (size, counts),
    ):
        line = " · ".join(parts)
        if len(line) <= width:
            break
    return Text(line, no_wrap=True, overflow="ellipsis")


def _tokens_and_cost(spend: Text, label: str, tokens: float, cost: float, *, short: bool) -> None:
    spend.append(label, "dim")
    count = format_tokens(tokens) if short else format_count(int(tokens))
    spend.append(f"{count} tok {format_cost(cost)}")


_SPEND_LABELS: Final = (
    ("this branch ", " · whole file ", " · other branches "),
    ("branch ", " · file ", " · others "),  # a narrow header: shorter names, tokens as 12.3k
)


def spend_line(facts: SessionFacts | None, width: int) -> Text:
    spend = Text(no_wrap=True, overflow="ellipsis")
    if facts is None:
        spend.append("counting tokens and cost…", "dim")
        return spend
    branch, whole, other = facts.branch, facts.file, facts.other_branches
    for short, labels in enumerate(_SPEND_LABELS):
        spend = Text(no_wrap=True, overflow="ellipsis")
        for label, spent in zip(labels, (branch, whole, other), strict=True):
            if spent is other and whole.total_tokens <= branch.total_tokens:
                break  # no abandoned branches' spend
            _tokens_and_cost(spend, label, spent.total_tokens, spent.cost, short=bool(short))
        if spend.cell_len <= width:
            break
    return spend


class SessionHeader(Static):
    """Shows "Opening …", then the facts of the session, or why it cannot be read."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.shown: HeaderView | None = None

    def opening(self, path: str) -> None:
        self.update(Text(f"Opening {shorten_home(path)}…", style="bold"))

    def failed(self, error: str) -> None:
        self.update(safe_text(error, style="bold"))

    def show(self, shown: HeaderView) -> None:
        self.shown = shown
        self._lay_out()

    def on_resize(self) -> None:
        self._lay_out()

    def _lay_out(self) -> None:
        shown = self.shown
        if shown is None:
            return
        width = max(self.size.width, 20)
        lines = [title_line(shown, width), facts_line(shown, width), spend_line(shown.facts, width)]
        header = Text("\n", no_wrap=True, overflow="ellipsis").join(lines)
        header.no_wrap, header.overflow = True, "ellipsis"  # one line each, cut at the edge
        self.update(header)
