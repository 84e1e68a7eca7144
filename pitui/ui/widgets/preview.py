"""The picker's preview pane: what a session is, then the last messages of its active branch.

The file is read in a worker (a 200 MB session takes a moment); the newest request wins. For a
full-text hit the messages are those leading to the hit's entry instead of the active branch.
Extension entries (``custom``) on that branch stand between the messages where they are in the
file, drawn by the renderer registry: what a plug-in draws shows here as in the export.
Everything shown from the file goes through :mod:`pitui.render.safe_text` or the renderer registry.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.message import Message
from textual.widgets import Static
from textual.worker import get_current_worker

from pitui.core.facts import last_activity_ms, model_text, session_facts
from pitui.core.paths import shorten_home
from pitui.core.units import (
    UNKNOWN_TIME,
    format_bytes,
    format_cost,
    format_count,
    format_local_time,
)
from pitui.render.safe_text import safe_line, safe_text
from pitui.ui.widgets.fit import cut_start

PREVIEW_MESSAGES = 12
PATH_FACTS = frozenset({"folder", "file", "forked from"})  # cut at their start: the end matters


class PathEnd:
    """A path (already safe text) that keeps its end when the width is short: ``…/x.jsonl``."""

    def __init__(self, path: str) -> None:
        self.path = path

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield Text(cut_start(self.path, options.max_width), no_wrap=True, end="")

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        return Measurement(1, cell_len(self.path))


@dataclass(frozen=True, slots=True)
class PreviewData:
    path: str
    entry_id: str | None
    facts: list[tuple[str, str]]
    labels: list[tuple[str, str]]
    messages: list[dict[str, Any]]  # context messages and the branch's extension entries
    problems: int
    error: str | None = None
    note: str | None = None  # what the messages are, when not the active branch's last ones


def load_preview(path: str, entry_id: str | None = None) -> PreviewData:
    """Everything the pane shows, read from the file (blocking: run it in a worker)."""
    from pitui.core.context import build_session_context
    from pitui.core.session import Session, SessionError
    from pitui.export.document import extension_entries

    try:
        size = os.stat(path).st_size
        with Session.open(path) as session:
            hit = session.get(entry_id) if entry_id is not None else None
            context = build_session_context(session)
            shown, leaf = context, session.leaf
            note = None
            if hit is not None:
                shown, leaf = build_session_context(session, hit.uid), hit
                note = "the conversation up to the matching entry"
            elif entry_id is not None:
                note = "the matching entry is gone from the file; showing the active branch"
            known = session_facts(session)
            branch, whole = known.branch, known.file
            model = context.model and model_text(context.model.provider, context.model.model_id)
            facts = [
                ("name", session.name or "(unnamed)"),
                ("folder", shorten_home(session.cwd) if session.cwd else "(none)"),
                ("created", format_local_time(known.created_ms) or UNKNOWN_TIME),
                ("last activity", format_local_time(last_activity_ms(session)) or UNKNOWN_TIME),
                (
                    "messages",
                    f"{format_count(branch.messages)} on the branch · "
                    f"{format_count(whole.messages)} in the file",
                ),
                (
                    "branches",
                    f"{format_count(known.branch_ends)} · {format_count(known.entries)} entries · "
                    f"{format_bytes(size)}",
                ),
                ("model", f"{model or 'none'} · thinking {context.thinking_level}"),
                (
                    "tokens",
                    f"{format_count(int(branch.total_tokens))} branch · "
                    f"{format_count(int(whole.total_tokens))} file",
                ),
                ("cost", f"{format_cost(branch.cost)} branch · {format_cost(whole.cost)} file"),
                ("id", session.id),
                ("file", shorten_home(path)),
            ]
            if session.parent_session:
                facts.append(("forked from", shorten_home(session.parent_session)))
            labels = list(session.labels.items())
            extensions = extension_entries(session, session.path_to(leaf), shown.sources)
            messages = with_extensions(shown.messages, extensions)
            return PreviewData(
                path,
                entry_id,
                facts,
                labels,
                messages[-PREVIEW_MESSAGES:],
                len(session.problems),
                note=note,
            )
    except (SessionError, OSError) as exc:
        return PreviewData(path, entry_id, [], [], [], 0, error=str(exc))


def with_extensions(
    messages: Sequence[dict[str, Any]], extensions: Sequence[tuple[int, dict[str, Any]]]
) -> list[dict[str, Any]]:
    """``messages`` with each extension entry after the ``before`` messages that precede it."""
    out: list[dict[str, Any]] = []
    pending = list(extensions)
    for index, message in enumerate(messages):
        while pending and pending[0][0] <= index:
            out.append(pending.pop(0)[1])
        out.append(message)
    out.extend(raw for _, raw in pending)
    return out


class SessionPreview(Vertical, can_focus=False):
    """Shows :class:`PreviewData` for the selected session."""

    class Loaded(Message):
        def __init__(self, data: PreviewData, body: list[RenderableType]) -> None:
            super().__init__()
            self.data = data
            self.body = body  # the messages, drawn

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._target: tuple[str, str | None] | bool | None = False  # False: nothing shown yet
        self.loaded: PreviewData | None = None  # what is shown now (tests wait for it)
        self.expanded = False  # "show all": nothing folded (until another session is shown)

    def compose(self) -> ComposeResult:
        yield Static(id="preview-facts")
        with VerticalScroll(id="preview-scroll", can_focus=False):
            yield Static(id="preview-messages")

    @property
    def target(self) -> tuple[str, str | None] | None:
        """The (path, entry id) shown or being loaded."""
        return self._target if isinstance(self._target, tuple) else None

    def show(self, path: str | None, *, entry_id: str | None = None, force: bool = False) -> None:
        """Show ``path`` (at ``entry_id`` for a full-text hit); ``force`` re-reads the file."""
        if not self.display:
            self._target = False  # hidden: nothing is read; shown again, it loads
            self.loaded = None
            return
        target = (path, entry_id) if path is not None else None
        if target == self._target and not force:
            return
        self._target = target
        if path is None:
            self.loaded = None
            self.query_one("#preview-facts", Static).update(
                Text("No session selected", style="dim")
            )
            self.query_one("#preview-messages", Static).update("")
            return
        if not force:
            self.loaded = None
            self.expanded = False
            self.query_one("#preview-facts", Static).update(Text("Loading…", style="dim"))
            self.query_one("#preview-messages", Static).update("")
        self._load(path, entry_id, self.expanded)

    def show_all(self, expanded: bool = True) -> None:
        """Draw the messages unfolded (the ``… (show all)`` markers' promise), or folded again."""
        target = self.target
        if target is None or expanded == self.expanded:
            return
        self.expanded = expanded
        self._load(*target, expanded)

    def on_click(self) -> None:
        self.show_all()

    @work(thread=True, exclusive=True, group="preview", exit_on_error=False)
    def _load(self, path: str, entry_id: str | None, expanded: bool) -> None:
        worker = get_current_worker()
        data = load_preview(path, entry_id)
        if worker.is_cancelled:
            return
        # drawn here too: the renderers (and the models they import the first time) would
        # otherwise hold the event loop
        from pitui.ui.rendering import render_messages

        body: list[RenderableType] = []
        if data.error is None:
            if data.note:
                body.append(Text(data.note, style="italic"))
            width = max(self.size.width - 3, 20)
            body.extend(render_messages(data.messages, width=width, expanded=expanded))
            if not data.messages:
                body.append(Text("(no messages on this branch)", style="dim"))
        if not worker.is_cancelled:
            self.post_message(self.Loaded(data, body))

    def on_session_preview_loaded(self, message: SessionPreview.Loaded) -> None:
        data = message.data
        if (data.path, data.entry_id) != self._target:
            return
        self.loaded = data
        facts = self.query_one("#preview-facts", Static)
        messages = self.query_one("#preview-messages", Static)
        if data.error is not None:
            facts.update(safe_text(data.error, style="bold"))
            messages.update("")
            return
        facts.update(self._facts(data))
        messages.update(Group(*message.body))
        # the last messages are what matter: stay at the end while the new content is laid out
        self.query_one("#preview-scroll", VerticalScroll).anchor()

    def _facts(self, data: PreviewData) -> RenderableType:
        table = Table.grid(padding=(0, 1))
        table.add_column(style="dim", no_wrap=True)
        table.add_column(ratio=1)
        for key, value in data.facts:
            line = safe_line(value)
            table.add_row(key, PathEnd(line.plain) if key in PATH_FACTS else line)
        if data.labels:
            labels = Text()
            for index, (target, label) in enumerate(data.labels):
                if index:
                    labels.append("  ")
                labels.append_text(safe_line(f"[{label}]", style="bold"))
                labels.append(" ")  # (apart: safe_line trims a leading space)
                labels.append_text(safe_line(target, style="dim"))
            table.add_row("labels", labels)
        if data.problems:
            table.add_row(
                "problems", Text(f"{data.problems} (pitui inspect FILE lists them)", style="bold")
            )
        return table
