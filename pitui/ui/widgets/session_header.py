"""The three lines over the session view: the session's name and folder (with the live state at
the right), the file's facts, and the spend of this branch, of the whole file and of the others.

The screen hands over what to show (:class:`HeaderView`, the numbers from
:mod:`pitui.core.facts`, written by :mod:`pitui.core.units`); the header lays it out at its width
and again whenever that width changes.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual.widgets import Static

from pitui.core.facts import SessionFacts
from pitui.core.js import parse_iso_ms
from pitui.core.paths import shorten_home
from pitui.core.units import format_bytes, format_cost, format_count, format_local_time, plural
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
    title.append(f"  {shorten_home(shown.cwd) or '(no folder)'}", "dim")
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


def facts_line(shown: HeaderView) -> Text:
    created = parse_iso_ms(shown.created) if shown.created else None
    facts = shown.facts
    ends = plural(facts.branch_ends, "branch end") if facts is not None else "counting branches…"
    return Text(
        f"{format_bytes(shown.file_size)} · created {format_local_time(created) or 'unknown'}"
        f" · modified {format_local_time(shown.modified * 1000) or 'unknown'}"
        f" · {format_count(shown.entries)} entries · {ends}",
        no_wrap=True,
        overflow="ellipsis",
    )


def _tokens_and_cost(spend: Text, label: str, tokens: float, cost: float) -> None:
    spend.append(label, "dim")
    spend.append(f"{format_count(int(tokens))} tok {format_cost(cost)}")


def spend_line(facts: SessionFacts | None) -> Text:
    spend = Text(no_wrap=True, overflow="ellipsis")
    if facts is None:
        spend.append("counting tokens and cost…", "dim")
        return spend
    branch, whole = facts.branch, facts.file
    _tokens_and_cost(spend, "this branch ", branch.total_tokens, branch.cost)
    _tokens_and_cost(spend, " · whole file ", whole.total_tokens, whole.cost)
    if whole.total_tokens > branch.total_tokens:  # abandoned branches' spend
        other = facts.other_branches
        _tokens_and_cost(spend, " · other branches ", other.total_tokens, other.cost)
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
        lines = [title_line(shown, width), facts_line(shown), spend_line(shown.facts)]
        header = Text("\n", no_wrap=True, overflow="ellipsis").join(lines)
        header.no_wrap, header.overflow = True, "ellipsis"  # one line each, cut at the edge
        self.update(header)
