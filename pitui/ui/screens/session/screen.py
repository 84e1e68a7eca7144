"""The session view: the branch tree, the context at the selected entry, switching and labels.

The screen owns the :class:`~pitui.core.session.Session` (read in a worker), the undo stack and the
follow mode; the :class:`~pitui.ui.widgets.branch_tree.BranchTree` draws and navigates.

Who touches the session index, and where: the index is changed only on the event loop (reading the
few appended bytes is cheap there), always under one :class:`asyncio.Lock`, so the tree, the header
and the writes never see it half-updated. Everything slow runs in threads and hands a result back:
reading or re-reading a whole file, migrating a v1/v2 file, the append itself (``os.write`` +
``fsync``), extracting a branch, and building and drawing the context pane. (Context builds read
the index without the lock: such a read only ever sees it before or after an append, and the pane
is rebuilt whenever the selected entry's path changes.) Every write goes through
:mod:`pitui.core.edit`, exactly as the command line does it.
"""

from __future__ import annotations

import asyncio
import io
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from rich.console import Console, RenderableType
from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.geometry import Size
from textual.message import Message
from textual.screen import Screen
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.widgets import Footer, LoadingIndicator, Static
from textual.worker import get_current_worker

from pitui.config import Settings
from pitui.core import edit
from pitui.core.context import build_session_context
from pitui.core.facts import Stats
from pitui.core.js import parse_iso_ms
from pitui.core.models import dump_entry
from pitui.core.paths import shorten_home
from pitui.core.problems import ProblemKind
from pitui.core.session import EntryMeta, Session, SessionError
from pitui.core.treeview import TreeView
from pitui.core.units import format_bytes
from pitui.core.watch import (
    FileCursor,
    SessionCreated,
    SessionDeleted,
    SessionGrew,
    SessionReplaced,
    SessionWatcher,
    WatchEvent,
    WatchNotice,
)
from pitui.render import RenderContext, tool_calls_by_id
from pitui.render import render_messages as draw_messages
from pitui.render.safe_text import one_line, safe_line, safe_text
from pitui.ui.clipboard import copy_message, copy_resume_command, copy_session_path
from pitui.ui.commands import bindings_for
from pitui.ui.modals.confirm import ConfirmModal
from pitui.ui.modals.switch import SwitchChoice, SwitchModal
from pitui.ui.modals.text_input import TextInputModal
from pitui.ui.rendering import app_registry
from pitui.ui.widgets.branch_tree import BranchTree

# Lines of context drawn at a time: the pane draws messages from the selected entry's end of the
# context until it has this many screens of lines; scrolling to the top draws the earlier ones.
SCREENS_DRAWN = 3
MIN_LINES_DRAWN = 120
CONTEXT_INTERVAL = 0.25  # seconds between two context builds, at least
NARROW_WIDTH = 110  # below this many columns the context pane goes under the tree
HEAD_LIMIT = 1 << 20  # what SessionWatcher compares of a file's first line


@dataclass(frozen=True, slots=True)
class UndoStep:
    kind: Literal["label", "switch"]
    target: str | None  # label: the entry's uid; switch: the previous leaf's uid
    previous: str | None = None  # label: the previous label


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
    top: int  # first line of the selected entry's own message (scrolled into view)
    width: int


def _local_time(millis: float | None) -> str:
    if millis is None:
        return "unknown"
    try:
        return datetime.fromtimestamp(millis / 1000).astimezone().strftime("%Y-%m-%d %H:%M")
    except (OverflowError, OSError, ValueError):
        return "unknown"


def _compact(number: int) -> str:
    """1234 → 1.2k, 1234567 → 1.2M (pi's footer style)."""
    if number < 1000:
        return str(number)
    if number < 1_000_000:
        return f"{number / 1000:.1f}k" if number < 10_000 else f"{number // 1000}k"
    return f"{number / 1_000_000:.1f}M"


def _money(cost: float) -> str:
    return f"${cost:.4f}" if abs(cost) < 1 else f"${cost:,.2f}"


def _plus(a: Stats, b: Stats) -> Stats:
    by_role = dict(a.by_role)
    for role, count in b.by_role.items():
        by_role[role] = by_role.get(role, 0) + count
    return Stats(
        entries=a.entries + b.entries,
        messages=a.messages + b.messages,
        by_role=by_role,
        input_tokens=a.input_tokens + b.input_tokens,
        output_tokens=a.output_tokens + b.output_tokens,
        cache_read_tokens=a.cache_read_tokens + b.cache_read_tokens,
        cache_write_tokens=a.cache_write_tokens + b.cache_write_tokens,
        total_tokens=a.total_tokens + b.total_tokens,
        cost=a.cost + b.cost,
    )


@dataclass(frozen=True, slots=True)
class Counts:
    """What the header counts: spend of the file and of the active branch, branch ends."""

    file: Stats
    branch: Stats
    branch_leaf: EntryMeta | None  # the leaf ``branch`` was counted to
    leaves: int
    roots: int
    ids: int


def count_session(session: Session) -> Counts:
    """Count from scratch (any thread, while the index does not change)."""
    return Counts(
        session.stats(),
        session.stats(session.branch()),
        session.leaf,
        sum(1 for meta in session.entries if not meta.children),
        len(session.roots),
        len(session.by_id),
    )


def count_growth(counts: Counts, session: Session, new: Sequence[EntryMeta]) -> Counts:
    """The counts after ``new`` entries were appended, without walking the whole file."""
    with_ids = sum(1 for meta in new if meta.id is not None)
    if len(session.roots) < counts.roots or len(session.by_id) != counts.ids + with_ids:
        return count_session(session)  # an orphan was adopted or an id repeated: relinked
    fresh = {id(meta) for meta in new}
    leaves = counts.leaves + sum(1 for meta in new if not meta.children)
    parents = {id(p): p for m in new if (p := m.parent) is not None and id(p) not in fresh}
    for parent in parents.values():
        if all(id(child) in fresh for child in parent.children or ()):
            leaves -= 1  # it was a branch end until now
    walked: list[EntryMeta] = []
    node = session.leaf
    while node is not None and node is not counts.branch_leaf:
        walked.append(node)
        node = node.parent
    if node is not None or counts.branch_leaf is None:
        branch = _plus(counts.branch, session.stats(walked))
    else:  # the leaf moved to another branch
        branch = session.stats(session.branch())
    return Counts(_plus(counts.file, session.stats(new)), branch, session.leaf, leaves,
                  len(session.roots), len(session.by_id))  # fmt: skip


def _usage_tokens(meta: EntryMeta) -> int | None:
    usage = meta.usage
    if meta.role != "assistant" or usage is None:
        return None
    numbers = [u if type(u) in (int, float) else 0 for u in usage]
    return int(numbers[0] + numbers[1] + numbers[2] + numbers[3])


def estimate_context_tokens(session: Session, sources: Sequence[str]) -> int:
    """Tokens the model would see with the context made of ``sources`` (entry uids, in context
    order): the last assistant ``usage`` (input + output + cache read + cache write of that reply)
    plus ~4 bytes a token for what follows it. A reply older than the latest compaction in the
    context measured the context before it was compacted, so it does not count."""
    metas = [m for m in (session.get(uid) for uid in sources) if m is not None]
    compacted = max((m.line for m in metas if m.type == "compaction"), default=-1)
    tail = 0
    for meta in reversed(metas):
        tokens = _usage_tokens(meta)
        if tokens is not None and meta.line > compacted:
            return tokens + tail // 4
        tail += meta.length
    return tail // 4


def resume_position(session: Session) -> EntryMeta | None:
    """Where pi continues when it opens the file: the leaf, seen through the entries that do not
    change the context (labels and pitui's own switch markers)."""
    node = session.leaf
    while node is not None and (
        node.type == "label"
        or (node.type == "custom" and node.custom_type == edit.MARKER_CUSTOM_TYPE)
    ):
        node = node.parent
    return node


def render_lines(
    renderables: Sequence[RenderableType], width: int
) -> tuple[list[Strip], list[int]]:
    """Draw renderables into lines at ``width`` (any thread); also the first line of each."""
    console = Console(
        width=width,
        file=io.StringIO(),
        force_terminal=True,
        color_system="truecolor",
        legacy_windows=False,
        markup=False,
        highlight=False,
        emoji=False,
        soft_wrap=False,
    )
    options = console.options.update_width(width)
    strips: list[Strip] = []
    starts: list[int] = []
    for renderable in renderables:
        starts.append(len(strips))
        strips.extend(Strip(line) for line in console.render_lines(renderable, options, pad=False))
    return strips, starts


def draw_message(view: ContextView, index: int) -> list[Strip]:
    """The lines of message ``index`` of the view (any thread)."""
    one = slice(index, index + 1)
    ctx = RenderContext(width=view.width)
    drawn = draw_messages(
        app_registry(), view.messages[one], ctx, ids=view.sources[one], tool_calls=view.calls
    )
    return render_lines(drawn, view.width)[0]


def _joined(blocks: list[list[Strip]]) -> tuple[list[Strip], list[int]]:
    out: list[Strip] = []
    starts: list[int] = []
    for lines in blocks:
        starts.append(len(out))
        out.extend(lines)
    return out, starts


def draw_back(
    view: ContextView, stop: int, keep: int, budget: int
) -> tuple[int, list[Strip], list[int]]:
    """Draw messages backwards from ``stop`` (exclusive) until there are ``budget`` lines and the
    message ``keep`` is drawn. Returns the first message drawn, its lines, each message's start."""
    blocks: list[list[Strip]] = []
    total = 0
    index = stop
    while index > 0 and (total < budget or index > keep):
        index -= 1
        blocks.append(draw_message(view, index))
        total += len(blocks[-1])
    blocks.reverse()
    return (index, *_joined(blocks))


def grown_from(old: ContextView | None, view: ContextView, own: int) -> bool:
    """Whether ``view`` is ``old``'s context with messages appended (pi wrote more and the
    selection followed), the selected entry's own message among the new ones: then the lines
    drawn for ``old`` stay valid and only the new messages need drawing."""
    if old is None or old.width != view.width or own < len(old.messages):
        return False
    count, depth = len(old.sources), len(old.path)
    return (
        view.sources[:count] == old.sources
        and view.path[:depth] == old.path
        and not any(meta.type == "context_edit" for meta in view.path[depth:])
    )


def more_line(count: int, width: int) -> Strip:
    text = Text(f"↑ {count:,} earlier message{'s' if count != 1 else ''}: scroll up to show",
                style="dim italic")  # fmt: skip
    return render_lines([text], width)[0][0]


def _head_line(path: str) -> bytes:
    with open(path, "rb") as handle:
        data = handle.read(HEAD_LIMIT)
    end = data.find(b"\n")
    return data if end < 0 else data[:end]


def _migrated(path: str) -> Session:
    """Rewrite a v1/v2 file as version 3 (atomic) and return its new index (worker thread)."""
    session = Session.open(path)
    edit.migrate_file(session)
    return session


class _OneFileWatcher(SessionWatcher):
    """A SessionWatcher over the file's folder that reads only the one file shown (the folder
    holds the project's other sessions, which pi may be writing too)."""

    def __init__(self, path: str, debounce_ms: int) -> None:
        super().__init__(os.path.dirname(path), debounce_ms=debounce_ms)
        self.path = path

    def process(self, paths: Any) -> list[WatchEvent]:
        return super().process([p for p in paths if p == self.path])


class ContextLines(ScrollView, can_focus=True):
    """The context pane's body: lines drawn in workers, shown with the Line API. Scrolling to the
    top while earlier messages are not drawn yet asks for them (:class:`NeedEarlier`)."""

    class NeedEarlier(Message):
        pass

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._lines: list[Strip] = []
        self._top = 0
        self._more = False  # earlier messages are not drawn
        self._asked = False

    def show(self, lines: list[Strip], top: int, *, more: bool) -> None:
        """Show ``lines`` scrolled so that line ``top`` is in view (as high as it can go)."""
        self._lines = lines
        self._top = top
        self._more, self._asked = more, False
        self.virtual_size = Size(self.scrollable_content_region.width, len(lines))
        self._anchor()
        self.call_after_refresh(self._anchor)  # again once the layout knows the new size
        self.refresh()

    def prepend(self, lines: list[Strip], *, more: bool) -> None:
        """Earlier lines arrived: they replace the first ("more above") line; the view stays."""
        added = len(lines) - 1
        self._lines = lines + self._lines[1:]
        self._top += added
        self._more, self._asked = more, False
        self.virtual_size = Size(self.scrollable_content_region.width, len(self._lines))
        self.scroll_to(y=self.scroll_y + added, animate=False, immediate=True)
        self.refresh()

    def _anchor(self) -> None:
        height = self.scrollable_content_region.height
        self.scroll_to(y=min(self._top, max(0, len(self._lines) - height)), animate=False,
                       immediate=True)  # fmt: skip
        self._check_more()

    def on_resize(self) -> None:
        self._anchor()

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        self._check_more()

    def _check_more(self) -> None:
        if self._more and not self._asked and round(self.scroll_y) == 0 and self._lines:
            self._asked = True
            self.post_message(self.NeedEarlier())

    @property
    def plain_lines(self) -> list[str]:
        return [strip.text for strip in self._lines]

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        base = self.rich_style
        index = y + round(self.scroll_offset.y)
        if 0 <= index < len(self._lines):
            return self._lines[index].crop_extend(0, width, base).apply_style(base)
        return Strip.blank(width, base)


def _call_if(ok: bool | None, then: Callable[[], object]) -> None:
    if ok:
        then()


class SessionScreen(Screen[None]):
    COMMAND_SCOPES = ("session", "tree")
    BINDINGS = bindings_for("session")

    class Opened(Message):
        def __init__(
            self,
            session: Session | None,
            error: str | None,
            inode: tuple[int, int] = (0, 0),
            head: bytes = b"",
            model: TreeView | None = None,
        ) -> None:
            super().__init__()
            self.session = session
            self.error = error
            self.inode = inode
            self.head = head
            self.model = model

    class ContextReady(Message):
        def __init__(self, view: ContextView | None, error: str | None = None) -> None:
            super().__init__()
            self.view = view
            self.error = error

        def can_replace(self, message: Message) -> bool:
            return isinstance(message, SessionScreen.ContextReady)

    class EarlierReady(Message):
        def __init__(self, view: ContextView, first: int, lines: list[Strip]) -> None:
            super().__init__()
            self.view = view
            self.first = first
            self.lines = lines

    def __init__(
        self,
        path: str,
        *,
        settings: Settings,
        select: str | None = None,
        standalone: bool = False,
        on_resume: Callable[[str, str, str], None] | None = None,
        watch: bool = True,
        clock: Callable[[], float] = time.time,
    ) -> None:
        super().__init__()
        self.path = os.path.abspath(path)
        self.settings = settings
        self.initial_select = select
        self.standalone = standalone
        self._on_resume = on_resume
        self.watch_enabled = watch and settings.watch
        self.clock = clock
        self.session: Session | None = None
        self.undo: list[UndoStep] = []
        self.follow = select is None  # opened at the leaf: follow new entries
        self.read_only = False  # the file was deleted on disk: keep the last content
        self.live_events = 0  # file changes handled (tests and benchmarks wait on it)
        self._io = asyncio.Lock()  # every change of the index, and every write, holds it
        self._stop_watch = asyncio.Event()
        self._inode: tuple[int, int] = (0, 0)
        self._file_size = 0
        self._mtime = 0.0
        self._grew_at = 0.0  # monotonic time the file last grew (pi is writing)
        self._last_write: edit.FileState | None = None
        self._counts: Counts | None = None  # None: still counting
        self._shown: ContextView | None = None
        self._context_wanted: str | None = None
        self._context_started = 0.0  # monotonic time the last context build started

    # ---------------------------------------------------------------------------- layout
    def compose(self) -> ComposeResult:
        yield Static(id="session-header")
        with Horizontal(id="session-body"):
            with Vertical(id="tree-pane"):
                yield LoadingIndicator(id="tree-loading")
                yield Static(id="tree-status", classes="hint")
            with Vertical(id="context-pane"):
                yield ContextLines(id="context-lines")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#session-header", Static).update(
            Text(f"Opening {shorten_home(self.path)}…", style="bold")
        )
        self.query_one("#context-pane").border_title = Text("Context")
        self._open()

    def on_resize(self, event: events.Resize) -> None:
        self.set_class(event.size.width < NARROW_WIDTH, "-narrow")
        view = self._shown
        if view is not None and self._context_width() != view.width:
            self._request_context(view.uid, force=True)

    @work(thread=True, group="open", exit_on_error=False)
    def _open(self) -> None:
        """Read the file, flatten its tree and count its spend, all off the event loop."""
        # (no gc.freeze() here: the index holds cycles, parent <-> children, and a frozen one
        # would never be freed; Session.open already keeps the collector off its new objects)
        try:
            stat = os.stat(self.path)
            session = Session.open(self.path)
            head = _head_line(self.path)
        except (SessionError, OSError) as exc:
            self.post_message(self.Opened(None, str(exc)))
            return
        model = TreeView(
            session,
            selected=self.initial_select,
            filter_mode=self.settings.tree_filter,
            now=lambda: datetime.fromtimestamp(self.clock()),
        )
        self.post_message(self.Opened(session, None, (stat.st_dev, stat.st_ino), head, model))

    @on(Opened)
    def _on_opened(self, message: Opened) -> None:
        self.query_one("#tree-loading").remove()
        if message.session is None:
            self.query_one("#session-header", Static).update(
                safe_text(message.error or "", style="bold")
            )
            self.query_one("#tree-status", Static).update(
                Text("This file cannot be shown as a session. `pitui doctor FILE` says why.")
            )
            return
        session = message.session
        self.session = session
        self._inode = message.inode
        self._stat_file()
        tree = BranchTree(session, model=message.model, id="branch-tree")
        self.query_one("#tree-status").remove()
        self.query_one("#tree-pane").mount(tree)
        tree.focus()
        self._render_header()
        if session.problems:
            first = session.problems[0]
            more = f" (+{len(session.problems) - 1} more)" if len(session.problems) > 1 else ""
            self.notify(
                one_line(f"{first.format(shorten_home(self.path))}{more}", 200),
                title="Read with problems",
                severity="warning",
                timeout=6,
            )
        self._count_then_watch(message.head)

    @property
    def branch_tree(self) -> BranchTree:
        return self.query_one(BranchTree)

    @property
    def context_lines(self) -> ContextLines:
        return self.query_one(ContextLines)

    # ---------------------------------------------------------------------------- header
    def _stat_file(self) -> None:
        try:
            stat = os.stat(self.path)
        except OSError:
            return
        self._file_size, self._mtime = stat.st_size, stat.st_mtime

    def _recount(self) -> None:
        """Counts and spend from scratch (after a reload)."""
        if self.session is not None:
            self._counts = count_session(self.session)

    def _count_new(self, new: Sequence[EntryMeta]) -> None:
        if self.session is not None and self._counts is not None:
            self._counts = count_growth(self._counts, self.session, new)

    @work(group="count", exit_on_error=False)
    async def _count_then_watch(self, head: bytes) -> None:
        """Count the spend in a thread (after the first frame: it takes a while on a big file),
        then start following the file. The lock keeps the index still meanwhile."""
        session = self.session
        if session is None:
            return
        async with self._io:
            self._counts = await asyncio.to_thread(count_session, session)
        self._render_header()
        if self.watch_enabled:
            self._watch(head)

    def _render_header(self) -> None:
        session = self.session
        if session is None:
            return
        width = max(self.size.width - 2, 20)
        title = Text(no_wrap=True, overflow="ellipsis")
        title.append_text(safe_line(session.name or "(unnamed session)", style="bold"))
        title.append(f"  {shorten_home(session.cwd) or '(no folder)'}", "dim")
        right = Text(no_wrap=True)
        if self.read_only:
            right.append("deleted on disk: read-only  ", "bold reverse")
        if time.monotonic() - self._grew_at < edit.BUSY_SECONDS:
            right.append("● pi is writing  ", "bold")
        right.append("follow on" if self.follow else "follow off", "dim")
        title.truncate(max(width - right.cell_len - 2, 10), overflow="ellipsis")
        title.pad_right(width - title.cell_len - right.cell_len)
        title.append_text(right)
        created = parse_iso_ms(session.created) if session.created else None
        counts = self._counts
        ends = "counting branches…"
        if counts is not None:
            ends = f"{counts.leaves:,} branch end{'s' if counts.leaves != 1 else ''}"
        facts = Text(
            f"{format_bytes(self._file_size)} · created {_local_time(created)} · "
            f"modified {_local_time(self._mtime * 1000)} · {len(session.entries):,} entries · "
            f"{ends}",
            no_wrap=True,
            overflow="ellipsis",
        )
        spend = Text(no_wrap=True, overflow="ellipsis")
        if counts is None:
            spend.append("counting tokens and cost…", "dim")
        else:
            branch, whole = counts.branch, counts.file
            spend.append("this branch ", "dim")
            spend.append(f"{int(branch.total_tokens):,} tok {_money(branch.cost)}")
            spend.append(" · whole file ", "dim")
            spend.append(f"{int(whole.total_tokens):,} tok {_money(whole.cost)}")
            if whole.total_tokens > branch.total_tokens:  # abandoned branches' spend
                other = int(whole.total_tokens - branch.total_tokens)
                spend.append(" · other branches ", "dim")
                spend.append(f"{other:,} tok {_money(whole.cost - branch.cost)}")
        header = Text("\n", no_wrap=True, overflow="ellipsis").join([title, facts, spend])
        header.no_wrap, header.overflow = True, "ellipsis"  # one line each, cut at the edge
        self.query_one("#session-header", Static).update(header)

    # ---------------------------------------------------------------------------- context
    @on(BranchTree.EntryHighlighted)
    def _on_highlighted(self, message: BranchTree.EntryHighlighted) -> None:
        if message.uid is not None and self.session is not None:
            self._request_context(message.uid)

    def _context_width(self) -> int:
        return max(self.context_lines.scrollable_content_region.width, 20)

    def _request_context(self, uid: str, *, force: bool = False) -> None:
        """Build the context pane for ``uid`` unless it already shows that exact context."""
        session = self.session
        meta = session.get(uid) if session is not None else None
        if session is None or meta is None:
            return
        view = self._shown
        if (
            not force
            and self._context_wanted == uid
            and view is not None
            and view.uid == uid
            and view.path == session.path_to(meta)
        ):
            return
        self._context_wanted = uid
        self._build_context(uid, self._context_width())

    @work(thread=True, group="context", exclusive=True, exit_on_error=False)
    def _build_context(self, uid: str, width: int) -> None:
        session = self.session
        if session is None:
            return
        worker = get_current_worker()
        # let a burst of key presses settle, and build at most every CONTEXT_INTERVAL (pi may
        # be writing: the selection follows each new entry, the context need not keep up)
        time.sleep(max(0.03, self._context_started + CONTEXT_INTERVAL - time.monotonic()))
        if worker.is_cancelled:
            return
        self._context_started = time.monotonic()
        meta = session.get(uid)
        if meta is None:
            return
        try:
            path = session.path_to(meta)
            context = build_session_context(session, uid)
            tokens = estimate_context_tokens(session, context.sources)
        except (OSError, SessionError) as exc:
            if not worker.is_cancelled:
                self.post_message(self.ContextReady(None, str(exc)))
            return
        if worker.is_cancelled:
            return
        model = (
            f"{context.model.provider}/{context.model.model_id}" if context.model else "no model"
        )
        messages, sources = context.messages, context.sources
        own = next((i for i, source in enumerate(sources) if source == uid), len(messages))
        calls = dict(tool_calls_by_id(messages))
        view = ContextView(uid, path, model, context.thinking_level, tokens, messages, sources,
                           calls, len(messages), [], 0, width)  # fmt: skip
        old = self._shown
        if grown_from(old, view, own) and old is not None:
            # the same context with more at the end: draw only what is new
            start = len(old.messages)
            lines, starts = _joined([draw_message(view, i) for i in range(start, len(messages))])
            top = len(old.lines) + (starts[own - start] if own < len(messages) else len(lines))
            view.first, view.lines, view.top = old.first, old.lines + lines, top
        else:
            budget = max(self._context_height() * SCREENS_DRAWN, MIN_LINES_DRAWN)
            first, lines, starts = draw_back(view, len(messages), own, budget)
            if not messages:
                text = Text("(nothing: the model sees no messages at this point)", style="dim")
                lines = render_lines([text], width)[0]
            top = starts[own - first] if own < len(messages) else len(lines)
            if first > 0:
                lines.insert(0, more_line(first, width))
                top += 1
            view.first, view.lines, view.top = first, lines, top
        if not worker.is_cancelled:
            self.post_message(self.ContextReady(view))

    def _context_height(self) -> int:
        return max(self.context_lines.scrollable_content_region.height, 10)

    @on(ContextReady)
    def _on_context(self, message: ContextReady) -> None:
        pane = self.query_one("#context-pane")
        view = message.view
        if view is None:
            pane.border_subtitle = None
            lines = render_lines([safe_text(message.error or "")], 40)[0]
            self.context_lines.show(lines, 0, more=False)
            return
        if view.uid != self._context_wanted:
            return  # the selection moved on meanwhile; its own context is on the way
        self._shown = view
        title = Text("Context at ")
        title.append(one_line(view.uid, 40), "bold")
        count = len(view.messages)
        title.append(f" · {count:,} message{'s' if count != 1 else ''}")
        pane.border_title = title
        info = Text()
        info.append_text(safe_line(view.model))
        info.append(f" · thinking {view.thinking} · ~{_compact(view.tokens)} tok")
        pane.border_subtitle = info
        self.context_lines.show(view.lines, view.top, more=view.first > 0)

    @on(ContextLines.NeedEarlier)
    def _on_need_earlier(self) -> None:
        view = self._shown
        if view is not None and view.first > 0:
            self._draw_earlier(view)

    @work(thread=True, group="context-earlier", exclusive=True, exit_on_error=False)
    def _draw_earlier(self, view: ContextView) -> None:
        budget = max(self._context_height() * SCREENS_DRAWN, MIN_LINES_DRAWN)
        first, lines, _ = draw_back(view, view.first, view.first, budget)
        if first > 0:
            lines.insert(0, more_line(first, view.width))
        self.post_message(self.EarlierReady(view, first, lines))

    @on(EarlierReady)
    def _on_earlier(self, message: EarlierReady) -> None:
        view = message.view
        if view is not self._shown or message.first >= view.first:
            return
        view.lines = message.lines + view.lines[1:]
        view.top += len(message.lines) - 1
        view.first = message.first
        self.context_lines.prepend(message.lines, more=view.first > 0)

    # ---------------------------------------------------------------------------- the file
    def _install(self, fresh: Session) -> None:
        """Take over a freshly read index of the file (reloaded or migrated). Lock held."""
        if self.session is not None:
            self.session.replace_with(fresh)
            self._replaced()

    def _replaced(self) -> None:
        """The index holds a new reading of the file: redraw everything from it."""
        try:
            stat = os.stat(self.path)
            self._inode = (stat.st_dev, stat.st_ino)
        except OSError:
            pass
        self._stat_file()
        self.branch_tree.session_changed(replaced=True, leaf="default")
        self._recount()
        self._render_header()
        uid = self.branch_tree.selected_uid
        if uid is not None:
            self._request_context(uid, force=True)

    async def _catch_up(
        self, *, follow: bool = True
    ) -> Literal["unchanged", "grew", "replaced", "gone"]:
        """Bring the index up to date with the file. Lock held.

        Appended bytes are read here on the event loop (a few lines); a replaced file is read
        whole in a thread, then installed."""
        session = self.session
        if session is None:
            return "gone"
        try:
            stat = os.stat(self.path)
        except FileNotFoundError:
            self._file_gone()
            return "gone"
        except OSError as exc:
            self.notify(one_line(f"Cannot read the session file: {exc}", 300), severity="error")
            return "gone"
        if self.read_only:  # it came back
            self.read_only = False
            self.notify("The session file is back on disk")
            return await self._reload(notice=None)
        if (stat.st_dev, stat.st_ino) != self._inode or stat.st_size < session.end_offset:
            return await self._reload()
        try:
            result = session.refresh()
        except SessionError as exc:
            self.notify(one_line(f"Cannot read the session file: {exc}", 300), severity="error")
            return "unchanged"
        if result.kind == "replaced":  # rewritten in place (same inode, first line changed)
            self._replaced()
            self.notify("The session file was replaced on disk and has been reloaded")
            return "replaced"
        self._stat_file()
        if result.kind == "grew":
            self._grown(result.new, follow=follow)
            return "grew"
        return "unchanged"

    async def _reload(
        self, notice: str | None = "The session file was replaced on disk and has been reloaded"
    ) -> Literal["replaced", "gone"]:
        try:
            fresh = await asyncio.to_thread(Session.open, self.path)
        except (SessionError, OSError) as exc:
            self.notify(one_line(f"Reload failed: {exc}", 300), severity="error")
            return "gone"
        self._install(fresh)
        if notice:
            self.notify(notice)
        return "replaced"

    def _grown(self, new: Sequence[EntryMeta], *, follow: bool) -> None:
        """New entries were read: into the tree in place, the selection follows if it was on the
        leaf (follow mode; not for pitui's own writes), the header counts them."""
        session = self.session
        if session is None:
            return
        tree = self.branch_tree
        at_leaf = follow and self.follow and self._selection_at_leaf()
        tree.session_changed(leaf="default")
        if at_leaf and session.leaf is not None:
            tree.select_uid(session.leaf.uid)
        self._count_new(new)
        self._render_header()
        uid = tree.selected_uid
        if uid is not None:
            self._request_context(uid)  # only if its context changed

    def _selection_at_leaf(self) -> bool:
        """Whether the selected row is the leaf (or, when the leaf is hidden, its nearest visible
        ancestor: where the tree puts the selection for the leaf)."""
        tree = self.branch_tree
        model = tree.model
        selected = tree.selected_uid
        node = model.leaf
        while node is not None and selected is not None:
            if model.index_of(node.uid) is not None:
                return node.uid == selected
            node = node.parent
        return False

    def _file_gone(self) -> None:
        if self.read_only:
            return
        self.read_only = True
        self._render_header()
        self.notify(
            "The session file was deleted on disk; showing what was read (read-only)",
            severity="warning",
            timeout=8,
        )

    # ---------------------------------------------------------------------------- live
    @work(group="watch", exclusive=True, exit_on_error=False)
    async def _watch(self, head: bytes) -> None:
        session = self.session
        if session is None:
            return
        watcher = _OneFileWatcher(self.path, self.settings.watch_debounce_ms)
        # start from what the index has read (no second read of a big file)
        watcher.cursors[self.path] = FileCursor(
            self._inode, session.end_offset, session.next_line, head
        )
        # what pi appended between reading the file and the watch taking hold
        self.set_timer(0.5, self._late_catch_up)
        async for batch in watcher.events(self._stop_watch):
            for event in batch:
                await self._on_watch_event(event)

    async def _late_catch_up(self) -> None:
        async with self._io:
            await self._catch_up()

    async def _on_watch_event(self, event: WatchEvent) -> None:
        if isinstance(event, WatchNotice):
            self.notify(one_line(event.message, 200), severity="warning")
        elif isinstance(event, SessionDeleted):  # also renamed away: pi never renames files
            async with self._io:
                self._file_gone()
        elif isinstance(event, SessionGrew | SessionReplaced | SessionCreated):
            async with self._io:
                kind = await self._catch_up()
                if kind == "grew":
                    self._grew_at = time.monotonic()
                    self.set_timer(edit.BUSY_SECONDS + 0.1, self._render_header)
        self.live_events += 1

    def action_toggle_follow(self) -> None:
        self.follow = not self.follow
        self._render_header()
        self.notify("Following new entries" if self.follow else "Not following new entries")

    # ---------------------------------------------------------------------------- writing
    async def _append(
        self,
        failure: str,
        build: Callable[[Session], list[dict[str, Any]]],
        *,
        force: bool,
        retry: Callable[[], object],
    ) -> bool:
        """Append what ``build`` makes from the up-to-date index; False if nothing was written
        (the user was told why, or asked whether to write to a busy file)."""
        if self.read_only:
            self.notify(
                f"{failure}: the file was deleted on disk; pitui does not write to it",
                severity="error",
            )
            return False
        async with self._io:
            session = self.session
            if session is None or await self._catch_up(follow=False) == "gone" or self.read_only:
                if self.read_only:
                    self.notify(f"{failure}: the file was deleted on disk", severity="error")
                return False
            # the file as pitui itself left it is not "busy", however fresh its time
            own = self._last_write is not None and _file_state(self.path) == self._last_write
            try:
                edit.check_writable(session, force=force or own, clock=self.clock())
                if any(p.kind is ProblemKind.VERSION_TRAP for p in session.problems):
                    raise edit.WriteError(
                        "the file has no format version but already holds a tree; pi would "
                        "linearize it (pitui label/switch --force writes anyway)"
                    )
            except edit.FileBusyError as exc:
                self._confirm_busy(str(exc), retry)
                return False
            except edit.WriteError as exc:
                self.notify(one_line(f"{failure}: {exc}", 300), severity="error")
                return False
            if session.original_version < 3:
                try:
                    fresh = await asyncio.to_thread(_migrated, self.path)
                except (edit.WriteError, SessionError, OSError) as exc:
                    self.notify(one_line(f"{failure}: {exc}", 300), severity="error")
                    return False
                self._install(fresh)
                self.notify("The file was migrated to format version 3 first, as pi does")
            try:
                entries = build(session)
                lines = [dump_entry(entry) for entry in entries]
                expect = edit.FileState(self._inode, session.end_offset)
                self._last_write = await asyncio.to_thread(
                    edit.append_lines, session.path, lines, expect
                )
            except edit.WriteError as exc:  # also: pi appended in between (nothing written)
                self.notify(one_line(f"{failure}: {exc}", 300), severity="error")
                await self._catch_up(follow=False)
                return False
            await self._catch_up(follow=False)
            return True

    def _confirm_busy(self, reason: str, retry: Callable[[], object]) -> None:
        body = Text(reason + "\n\nWrite anyway?")
        self.app.push_screen(
            ConfirmModal(
                "pi may be writing this session", body, confirm_label="Write anyway", danger=False
            ),
            callback=lambda ok: _call_if(ok, retry),
        )

    # ---------------------------------------------------------------------------- switching
    @on(BranchTree.EntrySelected)
    def _on_selected(self, message: BranchTree.EntrySelected) -> None:
        session = self.session
        meta = session.get(message.uid) if session is not None else None
        if session is None or meta is None:
            return
        try:
            new_leaf, editor_text = edit.resume_point(session, meta)
        except OSError as exc:
            self.notify(one_line(f"Cannot read the entry: {exc}", 300), severity="error")
            return
        if meta is session.leaf or new_leaf is resume_position(session):
            self.notify("Already at this point")
            return
        model = self.branch_tree.model

        def describe(entry: EntryMeta) -> str:
            text = " ".join("".join(part.text for part in model.entry_text(entry)).split())
            return text if len(text) <= 150 else text[:149] + "…"

        self.app.push_screen(
            SwitchModal(
                describe(meta),
                describe(new_leaf) if new_leaf is not None else None,
                editor_text,
                same=new_leaf is meta,
            ),
            callback=lambda choice: self._switch_chosen(new_leaf, choice),
        )

    def _switch_chosen(self, new_leaf: EntryMeta | None, choice: SwitchChoice | None) -> None:
        target = new_leaf.uid if new_leaf is not None else None
        if choice == "switch":
            self._write_switch(target, None)
        elif choice == "summary":
            self.app.push_screen(
                TextInputModal(
                    "Branch summary",
                    hint="What was the abandoned branch about? It goes into the model's context. "
                    "Enter to switch (empty: no summary) · Esc to cancel",
                    allow_empty=True,
                ),
                callback=lambda text: self._summary_typed(target, text),
            )

    def _summary_typed(self, target: str | None, text: str | None) -> None:
        if text is not None:  # None: cancelled; "": switch without a summary
            self._write_switch(target, text or None)

    @work(group="write", exit_on_error=False)
    async def _write_switch(
        self, target: str | None, summary: str | None, force: bool = False, undoing: bool = False
    ) -> None:
        session = self.session
        if session is None:
            return
        previous = session.leaf.uid if session.leaf is not None else None

        def build(session: Session) -> list[dict[str, Any]]:
            new_leaf = session.get(target) if target is not None else None
            if target is not None and new_leaf is None:
                raise edit.WriteError(f"entry {target} is no longer in the file")
            return edit.switch_entries(session, new_leaf, summary=summary, clock=self.clock())

        written = await self._append(
            "Not switched",
            build,
            force=force,
            retry=lambda: self._write_switch(target, summary, True, undoing),
        )
        if not written:
            return
        if undoing:
            self.notify("Switch undone: pi will continue where it was")
            return
        self.undo.append(UndoStep("switch", previous))
        if target is not None:
            self.branch_tree.select_uid(target)
        self.notify("Switched: pi will continue from here")
        if self._on_resume is not None:
            self.app.push_screen(
                ConfirmModal(
                    "Resume pi now?",
                    Text("Start pi on this branch now? (Esc: stay here)"),
                    confirm_label="Resume",
                    danger=False,
                ),
                callback=lambda ok: _call_if(ok, self._resume_now),
            )

    def _resume_now(self) -> None:
        session = self.session
        if session is not None and self._on_resume is not None:
            self._on_resume(session.path, session.cwd, session.id)

    def action_resume(self) -> None:
        if self._on_resume is None:
            self.notify("Resuming is not available here", severity="warning")
            return
        self._resume_now()

    # ---------------------------------------------------------------------------- labels
    @on(BranchTree.LabelRequested)
    def _on_label(self, message: BranchTree.LabelRequested) -> None:
        session = self.session
        meta = session.get(message.uid) if session is not None else None
        if meta is not None and meta.id is None:
            self.notify("This entry has no id, so it cannot carry a label", severity="warning")
            return
        self.app.push_screen(
            TextInputModal(
                "Label (empty to remove)",
                value=message.label or "",
                hint="Enter to save · Esc/Ctrl+C to cancel",
                allow_empty=True,
            ),
            callback=lambda text: self._start_label(message.uid, text),
        )

    def _start_label(self, uid: str, text: str | None) -> None:
        if text is not None:  # "" clears the label; None is a cancel
            self._write_label(uid, text)

    @work(group="write", exit_on_error=False)
    async def _write_label(
        self, uid: str, label: str, force: bool = False, undoing: bool = False
    ) -> None:
        previous: list[str | None] = []

        def build(session: Session) -> list[dict[str, Any]]:
            target = session.get(uid)
            if target is None or target.id is None:
                raise edit.WriteError(f"entry {uid} is no longer in the file")
            previous.append(session.labels.get(target.id))
            return [edit.label_entry(session, target, label or None, clock=self.clock())]

        written = await self._append(
            "Label not saved",
            build,
            force=force,
            retry=lambda: self._write_label(uid, label, True, undoing),
        )
        if written and not undoing:
            self.undo.append(UndoStep("label", uid, previous[0] if previous else None))
        elif written:
            self.notify("Label change undone")

    # ---------------------------------------------------------------------------- undo, extract
    def action_undo(self) -> None:
        if not self.undo:
            self.notify("Nothing to undo")
            return
        step = self.undo.pop()
        if step.kind == "label" and step.target is not None:
            self._write_label(step.target, step.previous or "", undoing=True)
        elif step.kind == "switch":
            self._write_switch(step.target, None, undoing=True)

    def action_extract(self) -> None:
        uid = self.branch_tree.selected_uid if self.session is not None else None
        if uid is not None:
            self._extract(uid)

    @work(group="write", exit_on_error=False)
    async def _extract(self, uid: str) -> None:
        async with self._io:
            session = self.session
            meta = session.get(uid) if session is not None else None
            if session is None or meta is None:
                return
            try:
                extracted = await asyncio.to_thread(edit.extract_branch, session, meta)
            except (edit.WriteError, SessionError, OSError) as exc:
                self.notify(one_line(f"Not extracted: {exc}", 300), severity="error")
                return
        self.notify(
            one_line(f"Branch saved as a new session: {shorten_home(extracted.path)}", 300),
            timeout=8,
        )

    # ---------------------------------------------------------------------------- clipboard
    def action_copy_message(self) -> None:
        """The selected entry's text (its message, summary, label...)."""
        session = self.session
        uid = self.branch_tree.selected_uid if session is not None else None
        meta = session.get(uid) if session is not None and uid is not None else None
        if session is None or meta is None:
            copy_message(self.app, None)
            return
        try:
            raw = session.raw(meta)
        except OSError as exc:
            self.notify(one_line(f"Cannot read the entry: {exc}", 300), severity="error")
            return
        copy_message(self.app, raw)

    def action_doctor(self) -> None:
        from pitui.ui.screens.doctor import DoctorScreen

        self.app.push_screen(DoctorScreen(self.path))

    def action_copy_path(self) -> None:
        copy_session_path(self.app, self.path)

    def action_copy_resume_command(self) -> None:
        session = self.session
        if session is None:
            copy_resume_command(self.app, None, "", "")
            return
        copy_resume_command(
            self.app, self.path, session.cwd, session.id, self.settings.resume_command
        )

    # ---------------------------------------------------------------------------- leaving
    @on(BranchTree.CloseRequested)
    def _on_close(self) -> None:
        if self.standalone:
            self.app.exit(None)
        else:
            self.dismiss(None)

    def on_unmount(self) -> None:
        self._stop_watch.set()
        if self.session is not None:
            self.session.close()


def _file_state(path: str) -> edit.FileState | None:
    try:
        return edit.file_state(path)
    except OSError:
        return None
