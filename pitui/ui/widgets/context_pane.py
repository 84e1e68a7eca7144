"""The session view's context pane: what the model sees at the selected entry.

The screen says which entry (:meth:`ContextPane.show_entry`); the pane builds that entry's context
and draws its messages in thread workers, and shows the lines with the Line API
(:class:`ContextLines`). Only the end of a long context is drawn at first (the selected entry's
own message and a few screens before it); scrolling to the top draws the earlier messages.

Long tool output, thinking and the like are folded (``… N more lines (show all)``) until the user
asks for everything: :meth:`ContextPane.show_all` (``alt+a``, or a click on such a line). The
pane then stays unfolded while the selection moves, until asked again: the next entry's context
is mostly the same messages, and a reader who unfolded one to read it would lose their place if
it folded back under them.

Context builds read the session index without the screen's lock: such a read only ever sees the
index before or after an append, and the screen asks again whenever the selected entry's path
changes.
"""

from __future__ import annotations

import time
from bisect import bisect_right
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.strip import Strip
from textual.worker import get_current_worker

from pitui.core.context import build_session_context, estimate_context_tokens
from pitui.core.facts import model_text
from pitui.core.session import EntryMeta, Session, SessionError
from pitui.core.units import format_tokens
from pitui.export.document import custom_entries_on
from pitui.render import RenderContext, render_messages, tool_calls_by_id
from pitui.render.safe_text import one_line, safe_line, safe_text
from pitui.ui.commands import bindings_for
from pitui.ui.rendering import app_registry, drawn_by_plugin
from pitui.ui.widgets.drawn_lines import (
    DrawnLines,
    draw_back,
    joined,
    lines_budget,
    more_line,
    strips,
)

CONTEXT_INTERVAL = 0.25  # seconds between two context builds, at least
# What a folded part says (render/parts.py's markers; a folded thinking block's one line)
FOLD_MARKER = "(show all)"
FOLDED_THINKING = "∴ thinking · "


@dataclass(slots=True)
class ContextView:
    """The context pane's content for one entry. Messages are drawn (in workers) at ``width``
    columns from ``first`` to the end; the earlier ones when the user scrolls up to them."""

    uid: str
    path: list[EntryMeta]  # root → the entry, to tell later whether its context changed
    model: str
    thinking: str
    tokens: int
    messages: list[dict[str, Any]]  # everything the model sees
    sources: list[str]  # the entry each message came from
    calls: dict[str, Any]  # tool calls by id, so a tool result is drawn with its call
    first: int  # the first message drawn
    lines: list[Strip]  # the drawn lines (a "more above" line first while first > 0)
    top: int  # first line of the selected entry's own message, or the anchor's (scrolled to)
    width: int
    extensions: int = 0  # of ``messages``, extension entries (not sent to the model)
    expanded: bool = False  # drawn with nothing folded ("show all")
    #: the message scrolled into view instead of the own one (the one whose fold was clicked)
    anchor: int | None = None
    starts: list[int] = field(default_factory=list)  # the first line of each message drawn

    def message_at(self, line: int) -> int | None:
        """The message drawn on ``line`` (None: the "more above" line, or no message)."""
        index = bisect_right(self.starts, line) - 1
        return self.first + index if index >= 0 and line < len(self.lines) else None

    @property
    def own(self) -> int:
        """The index of the selected entry's own message (the end when it has none)."""
        return next((i for i, s in enumerate(self.sources) if s == self.uid), len(self.messages))


def draw_message(view: ContextView, index: int) -> list[Strip]:
    """The lines of message ``index`` of the view (any thread)."""
    one = slice(index, index + 1)
    ctx = RenderContext(width=view.width, expanded=view.expanded)
    drawn = render_messages(
        app_registry(), view.messages[one], ctx, ids=view.sources[one], tool_calls=view.calls
    )
    return strips(drawn, view.width)


def grown_from(old: ContextView | None, view: ContextView) -> bool:
    """Whether ``view`` is ``old``'s context with messages appended (pi wrote more and the
    selection followed), the selected entry's own message among the new ones: then the lines
    drawn for ``old`` stay valid and only the new messages need drawing (not when they were
    drawn at another width, or folded where these are not)."""
    if old is None or (old.width, old.expanded) != (view.width, view.expanded):
        return False
    if view.own < len(old.messages):
        return False
    count, depth = len(old.sources), len(old.path)
    return (
        view.sources[:count] == old.sources
        and view.path[:depth] == old.path
        and not any(meta.type == "context_edit" for meta in view.path[depth:])
    )


def unfolds(line: str) -> bool:
    """Whether a click on this drawn line asks for everything: it is a fold's marker."""
    return FOLD_MARKER in line or line.lstrip().startswith(FOLDED_THINKING)


def context_view(
    session: Session, uid: str, width: int, *, expanded: bool = False
) -> ContextView | None:
    """The context at entry ``uid``, nothing drawn yet (any thread; None: no such entry);
    ``expanded``: to be drawn with nothing folded."""
    meta = session.get(uid)
    if meta is None:
        return None
    path = session.path_to(meta)
    context = build_session_context(session, uid)
    tokens = estimate_context_tokens(session, context.sources)
    named = model_text(context.model.provider, context.model.model_id) if context.model else None
    messages, sources = list(context.messages), list(context.sources)
    added = 0
    for before, custom in reversed(custom_entries_on(path, sources)):
        # an extension entry where it stands: the selected one, and those a plug-in draws
        raw = session.raw(custom)
        if custom.uid == uid or drawn_by_plugin(raw):
            messages.insert(before, raw)
            sources.insert(before, custom.uid)
            added += 1
    return ContextView(uid, path, named or "no model", context.thinking_level, tokens, messages,
                       sources, dict(tool_calls_by_id(messages)), len(messages), [], 0, width,
                       added, expanded)  # fmt: skip


def draw_view(view: ContextView, old: ContextView | None, budget: int) -> None:
    """Draw the view's last messages, at least ``budget`` lines (any thread). When it is
    ``old``'s context grown, only the new messages are drawn."""
    messages, own, width = view.messages, view.own, view.width
    if view.anchor is None and grown_from(old, view) and old is not None:
        start = len(old.messages)
        lines, starts = joined([draw_message(view, i) for i in range(start, len(messages))])
        top = len(old.lines) + (starts[own - start] if own < len(messages) else len(lines))
        view.first, view.lines, view.top = old.first, old.lines + lines, top
        view.starts = old.starts + [len(old.lines) + line for line in starts]
        return
    if view.anchor is not None and view.anchor < len(messages):
        own = min(own, view.anchor)
    first, lines, starts = draw_back(partial(draw_message, view), len(messages), own, budget)
    if not messages:
        text = Text("(nothing: the model sees no messages at this point)", style="dim")
        lines = strips([text], width)
    top = starts[own - first] if own < len(messages) else len(lines)
    if first > 0:
        lines.insert(0, more_line(first, width))
        top += 1
        starts = [line + 1 for line in starts]
    view.first, view.lines, view.top, view.starts = first, lines, top, starts


class ContextLines(DrawnLines, can_focus=True):
    """The context pane's body: lines drawn in workers, shown with the Line API (see
    :class:`~pitui.ui.widgets.drawn_lines.DrawnLines`).

    Focused (tab, or a click), it scrolls with the movement keys; escape, ``L``, ``T`` and
    whatever is typed are for the tree (:class:`ForTree`): the screen hands them over. A click
    on a fold's ``(show all)`` line asks for everything (:class:`ShowAll`)."""

    BINDINGS = bindings_for("context")

    class ShowAll(Message):
        """A fold's marker was clicked, on drawn line ``line``."""

        def __init__(self, line: int) -> None:
            super().__init__()
            self.line = line

    class ForTree(Message):
        """A key meant for the tree: ``action`` is ``to_tree``, ``edit_label``,
        ``toggle_label_times``, or ``type`` (``text`` typed into the tree's search)."""

        def __init__(self, action: str, text: str = "") -> None:
            super().__init__()
            self.action = action
            self.text = text

    def action_to_tree(self) -> None:
        self.post_message(self.ForTree("to_tree"))

    def action_edit_label(self) -> None:
        self.post_message(self.ForTree("edit_label"))

    def action_toggle_label_times(self) -> None:
        self.post_message(self.ForTree("toggle_label_times"))

    def on_click(self, event: events.Click) -> None:
        index = event.y + round(self.scroll_offset.y)
        if 0 <= index < len(self._lines) and unfolds(self._lines[index].text):
            self.post_message(self.ShowAll(index))

    def on_key(self, event: events.Key) -> None:
        """Typing searches the tree, as if typed there (keys with alt or ctrl are commands)."""
        modifiers = event.key.split("+")[:-1]
        if not event.is_printable or not event.character or "alt" in modifiers:
            return
        if "ctrl" in modifiers or event.key in {"L", "T", "shift+l", "shift+t"}:
            return
        event.stop()
        event.prevent_default()
        self.post_message(self.ForTree("type", event.character))


class ContextPane(Vertical):
    """The context at the selected entry: its messages, and in the border the entry, the model,
    the thinking level and the estimated tokens."""

    class _Ready(Message):
        def __init__(self, view: ContextView | None, error: str | None = None) -> None:
            super().__init__()
            self.view = view
            self.error = error

        def can_replace(self, message: Message) -> bool:
            return isinstance(message, ContextPane._Ready)

    class _EarlierReady(Message):
        def __init__(
            self, view: ContextView, first: int, lines: list[Strip], starts: list[int]
        ) -> None:
            super().__init__()
            self.view = view
            self.first = first
            self.lines = lines
            self.starts = starts

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.shown: ContextView | None = None
        self._session: Session | None = None
        self._wanted: str | None = None  # the entry whose context was asked for last
        self._started = 0.0  # monotonic time the last context build started
        self.expanded = False  # "show all": contexts are drawn with nothing folded

    def compose(self) -> ComposeResult:
        yield ContextLines(id="context-lines")

    def on_mount(self) -> None:
        self.border_title = Text("Context")

    @property
    def lines(self) -> ContextLines:
        return self.query_one(ContextLines)

    def show_entry(self, session: Session, uid: str, *, force: bool = False) -> None:
        """Show the context at ``uid`` unless the pane already shows that exact context
        (``force``: draw it again, e.g. after the file was read again)."""
        meta = session.get(uid)
        if meta is None:
            return
        view = self.shown
        if (
            not force
            and self._session is session
            and self._wanted == uid
            and view is not None
            and view.uid == uid
            and view.expanded == self.expanded
            and view.path == session.path_to(meta)
        ):
            return
        self._session, self._wanted = session, uid
        self._build(session, uid, self._width(), self.expanded)

    def show_all(self, expanded: bool = True, *, anchor: int | None = None) -> None:
        """Draw the context with nothing folded (the ``(show all)`` markers' promise), or
        folded again; it stays so for the entries selected next. ``anchor``: the message to
        scroll into view (default: the selected entry's own)."""
        if expanded == self.expanded:
            return
        self.expanded = expanded
        self.refresh_bindings()  # the footer's key now says the other way
        session, uid = self._session, self._wanted
        if session is not None and uid is not None:
            self._build(session, uid, self._width(), expanded, anchor)

    @on(ContextLines.ShowAll)
    def _on_show_all(self, message: ContextLines.ShowAll) -> None:
        # the message whose fold was clicked stays in view, unfolded
        view = self.shown
        self.show_all(anchor=view.message_at(message.line) if view is not None else None)

    def on_resize(self) -> None:
        view, session = self.shown, self._session
        if view is not None and session is not None and self._width() != view.width:
            self.show_entry(session, view.uid, force=True)

    def _width(self) -> int:
        return max(self.lines.scrollable_content_region.width, 20)

    def _budget(self) -> int:
        return lines_budget(self.lines.scrollable_content_region.height)

    @work(thread=True, group="context", exclusive=True, exit_on_error=False)
    def _build(
        self, session: Session, uid: str, width: int, expanded: bool, anchor: int | None = None
    ) -> None:
        worker = get_current_worker()
        # let a burst of key presses settle, and build at most every CONTEXT_INTERVAL (pi may
        # be writing: the selection follows each new entry, the context need not keep up)
        time.sleep(max(0.03, self._started + CONTEXT_INTERVAL - time.monotonic()))
        if worker.is_cancelled:
            return
        self._started = time.monotonic()
        try:
            view = context_view(session, uid, width, expanded=expanded)
        except (OSError, SessionError) as exc:
            if not worker.is_cancelled:
                self.post_message(self._Ready(None, str(exc)))
            return
        if view is None or worker.is_cancelled:
            return
        view.anchor = anchor
        draw_view(view, self.shown, self._budget())
        if not worker.is_cancelled:
            self.post_message(self._Ready(view))

    @on(_Ready)
    def _on_ready(self, message: _Ready) -> None:
        view = message.view
        if view is None:
            self.border_subtitle = None
            self.lines.show(strips([safe_text(message.error or "")], 40), 0, more=False)
            return
        if view.uid != self._wanted or view.expanded != self.expanded:
            return  # the selection moved on meanwhile; its own context is on the way
        self.shown = view
        title = Text("Context at ")
        title.append(one_line(view.uid, 40), "bold")
        count = len(view.messages) - view.extensions
        title.append(f" · {count:,} message{'s' if count != 1 else ''}")
        if view.extensions:
            extra = view.extensions
            title.append(f" + {extra:,} extension entr{'y' if extra == 1 else 'ies'}")
        if view.expanded:
            title.append(" · all shown", "bold")
        self.border_title = title
        info = Text()
        info.append_text(safe_line(view.model))
        info.append(f" · thinking {view.thinking} · ~{format_tokens(view.tokens)} tok")
        self.border_subtitle = info
        self.lines.show(view.lines, view.top, more=view.first > 0)
        session = self._session
        if session is not None and view.width != self._width():
            # the pane changed width while this was drawn (a first layout, on a busy machine:
            # on_resize came before there was a view to compare): draw it again at this width
            self._build(session, view.uid, self._width(), view.expanded, view.anchor)

    @on(ContextLines.NeedEarlier)
    def _on_need_earlier(self) -> None:
        view = self.shown
        if view is not None and view.first > 0:
            self._draw_earlier(view)

    @work(thread=True, group="context-earlier", exclusive=True, exit_on_error=False)
    def _draw_earlier(self, view: ContextView) -> None:
        first, lines, starts = draw_back(
            partial(draw_message, view), view.first, view.first, self._budget()
        )
        if first > 0:
            lines.insert(0, more_line(first, view.width))
            starts = [line + 1 for line in starts]
        self.post_message(self._EarlierReady(view, first, lines, starts))

    @on(_EarlierReady)
    def _on_earlier(self, message: _EarlierReady) -> None:
        view = message.view
        if view is not self.shown or message.first >= view.first:
            return
        added = len(message.lines) - 1  # (they replace the "more above" line)
        view.lines = message.lines + view.lines[1:]
        view.top += added
        view.starts = message.starts + [line + added for line in view.starts]
        view.first = message.first
        self.lines.prepend(message.lines, more=view.first > 0)
