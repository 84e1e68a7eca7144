"""The picker's preview pane: what a session is, then the last messages of its active branch.

The file is read and the messages drawn into lines in a worker (a 200 MB session takes a
moment, and Rich holds the event loop while it draws); the newest request wins and an older
one's result is dropped. The event loop only shows the lines on screen (Line API,
:mod:`pitui.ui.widgets.drawn_lines`): the last messages first, the earlier ones drawn when the
user scrolls up to them. For a
full-text hit the messages are those leading to the hit's entry instead of the active branch.
Extension entries (``custom``) on that branch stand between the messages where they are in the
file, drawn by the renderer registry: what a plug-in draws shows here as in the export.
Everything shown from the file goes through :mod:`pitui.render.safe_text` or the renderer registry.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, RenderableType, RenderResult
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.strip import Strip
from textual.timer import Timer
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
from pitui.ui.widgets.drawn_lines import DrawnLines, draw_back, lines_budget, more_line, strips
from pitui.ui.widgets.fit import cut_start

PREVIEW_MESSAGES = 12
LOADING_AFTER = 0.15  # seconds: a session not drawn by then says "Loading…"
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


Block = Text | dict[str, Any]  # a line of its own, or a message for the renderers


@dataclass(slots=True)
class PreviewView:
    """The messages part of the preview for one :class:`PreviewData`, drawn (in workers) at
    ``width`` columns from block ``first`` to the end; the earlier blocks when the user scrolls
    up to them."""

    data: PreviewData
    width: int
    expanded: bool
    blocks: list[Block]  # what is drawn, in order: the note, the messages (or "no messages")
    calls: dict[str, Any]  # tool calls by id, so a tool result is drawn with its call
    first: int = 0  # the first block drawn
    lines: list[Strip] = field(default_factory=list)  # a "more above" line first while first > 0

    @property
    def key(self) -> tuple[str, str | None]:
        return self.data.path, self.data.entry_id

    def draw(self, index: int) -> list[Strip]:
        """The lines of block ``index`` (any thread)."""
        # (imported here: the renderers import pi's models and Markdown, which the first frame
        # does not need)
        from pitui.render import RenderContext, render_messages
        from pitui.ui.rendering import app_registry

        block = self.blocks[index]
        if isinstance(block, Text):
            return strips([block], self.width)
        ctx = RenderContext(width=self.width, expanded=self.expanded)
        drawn = render_messages(app_registry(), [block], ctx, tool_calls=self.calls)
        return strips(drawn, self.width)


def preview_view(data: PreviewData, width: int, expanded: bool) -> PreviewView:
    """The blocks to draw for ``data``, nothing drawn yet (any thread)."""
    from pitui.render import tool_calls_by_id

    blocks: list[Block] = []
    if data.error is None:
        if data.note:
            blocks.append(Text(data.note, style="italic"))
        blocks.extend(data.messages)
        if not data.messages:
            blocks.append(Text("(no messages on this branch)", style="dim"))
    calls = dict(tool_calls_by_id(data.messages))
    return PreviewView(data, width, expanded, blocks, calls, first=len(blocks))


def draw_earlier(
    view: PreviewView, budget: int, cancelled: Callable[[], bool] = lambda: False
) -> tuple[int, list[Strip]]:
    """Blocks before ``view.first`` drawn backwards until ``budget`` lines (any thread): the new
    first block, and the lines (with a "more above" line first while blocks are left above)."""
    first, lines, _ = draw_back(view.draw, view.first, view.first, budget, cancelled)
    if first > 0:
        lines.insert(0, more_line(first, view.width))
    return first, lines


class PreviewLines(DrawnLines):
    """The preview's messages: drawn in workers, shown with the Line API."""


class SessionPreview(Vertical, can_focus=False):
    """Shows :class:`PreviewData` for the selected session: the file is read and the last
    messages drawn in a worker; the event loop only shows the lines on screen."""

    class _Drawn(Message):
        def __init__(self, view: PreviewView) -> None:
            super().__init__()
            self.view = view

    class _EarlierDrawn(Message):
        def __init__(self, view: PreviewView, first: int, lines: list[Strip]) -> None:
            super().__init__()
            self.view = view
            self.first = first
            self.lines = lines

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._target: tuple[str, str | None] | bool | None = False  # False: nothing shown yet
        self.loaded: PreviewData | None = None  # the target's data, once drawn (tests wait for it)
        self.shown: PreviewView | None = None  # its drawn lines
        self.expanded = False  # "show all": nothing folded (until another session is shown)
        self._loading_timer: Timer | None = None

    def compose(self) -> ComposeResult:
        yield Static(id="preview-facts")
        yield PreviewLines(id="preview-lines")

    @property
    def lines(self) -> PreviewLines:
        return self.query_one(PreviewLines)

    @property
    def text(self) -> str:
        """The messages drawn, as plain text (all lines drawn, on screen or not)."""
        return "\n".join(line.rstrip() for line in self.lines.plain_lines)

    @property
    def target(self) -> tuple[str, str | None] | None:
        """The (path, entry id) shown or being loaded."""
        return self._target if isinstance(self._target, tuple) else None

    def show(self, path: str | None, *, entry_id: str | None = None, force: bool = False) -> None:
        """Show ``path`` (at ``entry_id`` for a full-text hit); ``force`` re-reads the file."""
        if not self.display:
            self._target = False  # hidden: nothing is read; shown again, it loads
            self.loaded = self.shown = None
            return
        target = (path, entry_id) if path is not None else None
        if target == self._target and not force:
            return
        self._target = target
        if path is None:
            self.workers.cancel_group(self, "preview")
            self._stop_loading_timer()
            self.loaded = self.shown = None
            self.query_one("#preview-facts", Static).update(
                Text("No session selected", style="dim")
            )
            self.lines.show([], 0, more=False)
            return
        if not force:
            self.loaded = self.shown = None
            self.expanded = False
            # what was shown stays until this is drawn (most take a frame or two: a "Loading…"
            # frame between would cost a repaint); a slow one says it is loading
            self._stop_loading_timer()
            self._loading_timer = self.set_timer(LOADING_AFTER, self._show_loading)
        self._load(path, entry_id, self.expanded, self._width(), self._budget())

    def interrupt(self) -> None:
        """Typing resumed: a session being read or drawn is left (the keys' rows come first);
        it is read again when shown again."""
        if self.target is not None and self.loaded is None:
            self.workers.cancel_group(self, "preview")
            self._target = False

    def _show_loading(self) -> None:
        self._loading_timer = None
        if self.loaded is None and self.target is not None:
            self.query_one("#preview-facts", Static).update(Text("Loading…", style="dim"))
            self.lines.show([], 0, more=False)

    def _stop_loading_timer(self) -> None:
        if self._loading_timer is not None:
            self._loading_timer.stop()
            self._loading_timer = None

    def show_all(self, expanded: bool = True) -> None:
        """Draw the messages unfolded (the ``… (show all)`` markers' promise), or folded again."""
        target = self.target
        if target is None or expanded == self.expanded:
            return
        self.expanded = expanded
        shown = self.shown
        if shown is not None and shown.key == target:
            self._draw(shown.data, expanded, self._width(), self._budget())
        else:
            self._load(*target, expanded, self._width(), self._budget())

    def on_click(self) -> None:
        self.show_all()

    def on_resize(self) -> None:
        shown = self.shown
        if shown is not None and shown.width != self._width():
            self._draw(shown.data, shown.expanded, self._width(), self._budget())

    def _width(self) -> int:
        return max(self.lines.scrollable_content_region.width, 20)

    def _budget(self) -> int:
        return lines_budget(self.lines.scrollable_content_region.height)

    @work(thread=True, exclusive=True, group="preview", exit_on_error=False)
    def _load(
        self, path: str, entry_id: str | None, expanded: bool, width: int, budget: int
    ) -> None:
        worker = get_current_worker()
        data = load_preview(path, entry_id)
        if not worker.is_cancelled:
            self._drawn(data, expanded, width, budget, lambda: worker.is_cancelled)

    @work(thread=True, exclusive=True, group="preview", exit_on_error=False)
    def _draw(self, data: PreviewData, expanded: bool, width: int, budget: int) -> None:
        worker = get_current_worker()
        self._drawn(data, expanded, width, budget, lambda: worker.is_cancelled)

    def _drawn(
        self,
        data: PreviewData,
        expanded: bool,
        width: int,
        budget: int,
        cancelled: Callable[[], bool],
    ) -> None:
        """Draw ``data``'s last messages and post them, unless a newer request came (any
        thread: the renderers, and the models they import the first time, would otherwise
        hold the event loop)."""
        view = preview_view(data, width, expanded)
        view.first, view.lines = draw_earlier(view, budget, cancelled)
        if not cancelled():
            self.post_message(self._Drawn(view))

    @on(_Drawn)
    def _on_drawn(self, message: _Drawn) -> None:
        view = message.view
        data = view.data
        if view.key != self._target or view.expanded != self.expanded:
            return  # made for another session (or fold): the newer one is on its way
        self._stop_loading_timer()
        self.loaded, self.shown = data, view
        facts = self.query_one("#preview-facts", Static)
        if data.error is not None:
            facts.update(safe_text(data.error, style="bold"))
        else:
            facts.update(self._facts(data))
        # the last messages are what matter: shown scrolled to the end
        self.lines.show(view.lines, len(view.lines), more=view.first > 0)

    @on(PreviewLines.NeedEarlier)
    def _on_need_earlier(self) -> None:
        view = self.shown
        if view is not None and view.first > 0:
            self._draw_earlier(view, self._budget())

    @work(thread=True, exclusive=True, group="preview-earlier", exit_on_error=False)
    def _draw_earlier(self, view: PreviewView, budget: int) -> None:
        worker = get_current_worker()
        first, lines = draw_earlier(view, budget, lambda: worker.is_cancelled)
        if not worker.is_cancelled:
            self.post_message(self._EarlierDrawn(view, first, lines))

    @on(_EarlierDrawn)
    def _on_earlier(self, message: _EarlierDrawn) -> None:
        view = message.view
        if view is not self.shown or message.first >= view.first:
            return
        view.lines = message.lines + view.lines[1:]
        view.first = message.first
        self.lines.prepend(message.lines, more=view.first > 0)

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
