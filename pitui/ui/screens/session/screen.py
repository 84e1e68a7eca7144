"""The session view: the branch tree, the context at the selected entry, switching and labels.

The screen owns the :class:`~pitui.core.session.Session` (read in a worker), the undo stack and the
follow mode (:mod:`.state`), and the file as last seen on disk (:mod:`.follow`); the
:class:`~pitui.ui.widgets.branch_tree.BranchTree` draws and navigates, the
:class:`~pitui.ui.widgets.context_pane.ContextPane` builds and draws the context, the
:class:`~pitui.ui.widgets.session_header.SessionHeader` shows the facts.

Who touches the session index, and where: the index is changed only on the event loop (reading the
few appended bytes is cheap there), always under one :class:`asyncio.Lock`, so the tree, the header
and the writes never see it half-updated. Everything slow runs in threads and hands a result back:
reading or re-reading a whole file, migrating a v1/v2 file, the append itself (``os.write`` +
``fsync``), extracting a branch, and building and drawing the context pane. Every write goes
through :mod:`pitui.core.actions` (:mod:`.writes`), with the guards the command line has.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import Literal

from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.dom import DOMNode
from textual.message import Message
from textual.screen import Screen
from textual.widgets import LoadingIndicator, Static

from pitui.config import Settings
from pitui.core import edit
from pitui.core.paths import shorten_home
from pitui.core.rawlines import RawLines, read_raw_lines
from pitui.core.session import SETTLE_SECONDS, EntryMeta, NotASessionError, Session, SessionError
from pitui.core.treeview import TreeView
from pitui.core.watch import (
    FileCursor,
    SessionCreated,
    SessionDeleted,
    SessionGrew,
    SessionReplaced,
    WatchEvent,
    WatchNotice,
)
from pitui.render.safe_text import one_line
from pitui.ui.clipboard import copy_message, copy_resume_command, copy_session_path
from pitui.ui.commands import Where, bindings_for
from pitui.ui.screens.session.diffmark import DiffMark
from pitui.ui.screens.session.follow import (
    Change,
    LiveFile,
    OneFileWatcher,
    catch_up,
    head_line,
)
from pitui.ui.screens.session.places import SessionPlaces
from pitui.ui.screens.session.prune import SessionPrune
from pitui.ui.screens.session.state import SessionState, selection_at_leaf
from pitui.ui.screens.session.writes import SessionWrites
from pitui.ui.widgets.branch_tree import BranchTree
from pitui.ui.widgets.context_pane import ContextLines, ContextPane
from pitui.ui.widgets.fitting_footer import FittingFooter
from pitui.ui.widgets.raw_lines import RawLinesView, why_not
from pitui.ui.widgets.session_header import HeaderView, SessionHeader

NARROW_WIDTH = 110  # below this many columns the context pane goes under the tree
# The footer's keys, most important first (those that do not fit are left out; F1 lists all)
FOOTER_RANK = (
    "select", "to_tree", "escape", "app.show_help", "cycle_filter(1)", "edit_label", "show_all",
    "back", "leaf", "resume", "undo", "fold_or_up", "unfold_or_down", "extract", "toggle_follow",
    "toggle_label_times",
)  # fmt: skip


class SessionScreen(Screen[None]):
    COMMAND_SCOPES = ("session", "tree")
    HELP_FIRST = ("session", "tree", "context")  # F1 lists these keys first
    BINDINGS = bindings_for("session")

    class Opened(Message):
        def __init__(
            self,
            session: Session | None,
            error: str | None,
            inode: tuple[int, int] = (0, 0),
            head: bytes = b"",
            model: TreeView | None = None,
            raw: RawLines | None = None,
        ) -> None:
            super().__init__()
            self.raw = raw  # the file's lines when it is not a session
            self.session = session
            self.error = error
            self.inode = inode
            self.head = head
            self.model = model

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
        # opened at the leaf: follow new entries
        self.state = SessionState(follow=select is None)
        self.places = SessionPlaces(self)  # back/forward, the leaf keys, the panes
        self.file = LiveFile(self.path)
        self.writes = SessionWrites(self)
        self.diff_mark = DiffMark(self)
        self.pruning = SessionPrune(self)
        self.io_lock = asyncio.Lock()  # every change of the index, and every write, holds it
        self._stop_watch = asyncio.Event()
        self._settle_armed = False  # a timer will look again at a pending last line

    @property
    def follow(self) -> bool:
        return self.state.follow

    @property
    def read_only(self) -> bool:
        """The file was deleted on disk: the last content stays shown, nothing is written."""
        return self.file.read_only

    # ---------------------------------------------------------------------------- layout
    def compose(self) -> ComposeResult:
        yield SessionHeader(id="session-header")
        with Horizontal(id="session-body"):
            with Vertical(id="tree-pane"):
                yield LoadingIndicator(id="tree-loading")
                yield Static(id="tree-status", classes="hint")
            yield ContextPane(id="context-pane")
        yield FittingFooter(FOOTER_RANK)

    def on_mount(self) -> None:
        self.header.opening(self.path)
        self._open()

    def on_resize(self, event: events.Resize) -> None:
        self.set_class(event.size.width < NARROW_WIDTH, "-narrow")
        self.places.lay_out()

    @work(thread=True, group="open", exit_on_error=False)
    def _open(self) -> None:
        """Read the file and flatten its tree, off the event loop."""
        # (no gc.freeze() here: the index holds cycles, parent <-> children, and a frozen one
        # would never be freed; Session.open already keeps the collector off its new objects)
        try:
            stat = os.stat(self.path)
            session = Session.open(self.path)
            head = head_line(self.path)
        except (SessionError, OSError) as exc:
            raw = _raw_lines(self.path) if isinstance(exc, NotASessionError) else None
            self.post_message(self.Opened(None, str(exc), raw=raw))
            return
        model = TreeView(
            session,
            selected=self.initial_select,
            filter_mode=self.settings.tree_filter,
            now=lambda: datetime.fromtimestamp(self.clock()),
        )
        wanted = self.initial_select
        if wanted is not None and model.selected_uid != wanted and session.get(wanted) is not None:
            # opened on an entry the filter hides (a label on a model change, a hit in a tool
            # result under no-tools): every entry is shown, so the entry asked for is selected
            model.set_filter("all")
            model.select_uid(wanted)
        self.post_message(self.Opened(session, None, (stat.st_dev, stat.st_ino), head, model))

    @on(Opened)
    def _on_opened(self, message: Opened) -> None:
        self.query_one("#tree-loading").remove()
        if message.session is None and message.raw is not None:
            self._show_raw_lines(message.error or "", message.raw)
            return
        if message.session is None:
            self.header.failed(message.error or "")
            self.query_one("#tree-status", Static).update(
                Text("This file cannot be shown as a session. `pitui doctor FILE` says why.")
            )
            return
        session = message.session
        self.session = session
        self.file.inode = message.inode
        self.file.seen()
        tree = BranchTree(session, model=message.model, id="branch-tree")
        self.query_one("#tree-status").remove()
        self.query_one("#tree-pane").mount(tree)
        self.places.lay_out()
        if self.places.layout.panes == "context":
            self.context_lines.focus()
        else:
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

    def _show_raw_lines(self, error: str, raw: RawLines) -> None:
        """Not a session (format §14): its lines instead of the tree, the context pane hidden."""
        self.header.failed(error)
        view = RawLinesView(raw, id="raw-lines")
        self.query_one("#tree-status", Static).update(view.summary())
        self.query_one("#tree-pane").mount(view)
        self.query_one("#context-pane").display = False
        view.focus()

    def _not_a_session(self, action: str) -> bool:
        """In the raw-lines view a session key has nothing to act on: say why (True then)."""
        if self.session is not None or not self.query(RawLinesView):
            return False
        self.notify(why_not(action), severity="warning")
        return True

    @on(RawLinesView.CloseRequested)
    def _on_raw_close(self) -> None:
        self._on_close()

    def command_node(self, where: Where) -> DOMNode | None:
        """Where the palette runs a command of ``where``: the tree's on the tree (None while
        there is none: loading, or the file's raw lines), the others here."""
        if where == "tree":
            trees = self.query(BranchTree)
            return trees.first() if trees else None
        return self

    @property
    def branch_tree(self) -> BranchTree:
        return self.query_one(BranchTree)

    @property
    def context_pane(self) -> ContextPane:
        return self.query_one(ContextPane)

    @property
    def context_lines(self) -> ContextLines:
        return self.context_pane.lines

    @property
    def header(self) -> SessionHeader:
        return self.query_one(SessionHeader)

    # ---------------------------------------------------------------------------- header
    @work(group="count", exit_on_error=False)
    async def _count_then_watch(self, head: bytes) -> None:
        """Count the spend in a thread (after the first frame: it takes a while on a big file),
        then start following the file. The lock keeps the index still meanwhile."""
        session = self.session
        if session is None:
            return
        async with self.io_lock:
            await asyncio.to_thread(self.state.recount, session)
        self._render_header()
        if self.watch_enabled:
            self._watch(head)

    def _render_header(self) -> None:
        session = self.session
        if session is None:
            return
        live = self.file
        self.header.show(
            HeaderView(
                name=session.name,
                cwd=session.cwd,
                created=session.created,
                file_size=live.size,
                modified=live.mtime,
                entries=len(session.entries),
                facts=self.state.facts.facts if self.state.facts is not None else None,
                read_only=live.read_only,
                writing=live.pi_writing(),
                pending=session.pending,
                follow=self.state.follow,
            )
        )

        if session.pending and not self._settle_armed:
            # A last line without its newline is read once the file is quiet: look again then,
            # file event or not (a quiet file sends none).
            self._settle_armed = True
            self.set_timer(SETTLE_SECONDS + 0.2, self._settled)

    async def _settled(self) -> None:
        self._settle_armed = False
        async with self.io_lock:
            await self.bring_up_to_date()
        self._render_header()

    # ---------------------------------------------------------------------------- context
    @on(BranchTree.EntryHighlighted)
    def _on_highlighted(self, message: BranchTree.EntryHighlighted) -> None:
        if message.uid is not None and self.session is not None:
            if message.how != "history":
                self.state.history.visit(message.uid, jump=message.how == "jump")
            if self.places.layout.panes != "tree":  # (hidden, it catches up when shown)
                self.context_pane.show_entry(self.session, message.uid)

    # ---------------------------------------------------------------------------- places, panes
    def action_back(self) -> None:
        self.places.go_in_history(forward=False)

    def action_forward(self) -> None:
        self.places.go_in_history(forward=True)

    def action_leaf(self) -> None:
        self.places.leaf()

    def action_previous_leaf(self) -> None:
        self.places.previous_leaf()

    def action_other_pane(self) -> None:
        self.places.other_pane()

    def action_zoom(self) -> None:
        self.places.zoom()

    def action_resize_tree(self, step: int) -> None:
        self.places.resize_tree(step)

    def footer_labels(self) -> Mapping[str, str]:
        """alt+a's key says what it would do now (see widgets.footer); Follow is a mode the
        header shows, its key named as such."""
        panes = self.query(ContextPane)  # (none in a view that is not of a session)
        expanded = bool(panes) and panes.first().expanded
        return {"show_all": "Fold all" if expanded else "Show all"}

    def action_show_all(self) -> None:
        if not self._not_a_session("show_all"):
            pane = self.context_pane
            pane.show_all(not pane.expanded)

    @on(ContextLines.ForTree)
    def _for_tree(self, message: ContextLines.ForTree) -> None:
        self.places.for_tree(message.action, message.text)

    # ---------------------------------------------------------------------------- the file
    def replaced(self) -> None:
        """The index holds a new reading of the file: redraw everything from it."""
        session = self.session
        if session is None:
            return
        self.branch_tree.session_changed(replaced=True, leaf="default")
        self.state.recount(session)
        self._render_header()
        uid = self.branch_tree.selected_uid
        if uid is not None:
            self.context_pane.show_entry(session, uid, force=True)

    async def bring_up_to_date(
        self, *, follow: bool = True
    ) -> Literal["unchanged", "grew", "replaced", "gone"]:
        """Bring the index up to date with the file and redraw what changed. Lock held."""
        session = self.session
        if session is None:
            return "gone"
        change = await catch_up(session, self.file)
        self._apply(change, follow=follow)
        return change.kind

    def _apply(self, change: Change, *, follow: bool) -> None:
        if change.deleted:
            self._file_gone()
        elif change.kind == "replaced":
            self.replaced()
        elif change.kind == "grew":
            self._grown(change.new, follow=follow)
        for text, severity in change.notices:
            self.notify(text, severity=severity)

    def _grown(self, new: Sequence[EntryMeta], *, follow: bool) -> None:
        """New entries were read: into the tree in place, the selection follows if it was on the
        leaf (follow mode; not for pitui's own writes), the header's facts count them."""
        session = self.session
        if session is None:
            return
        tree = self.branch_tree
        at_leaf = follow and self.state.follow and selection_at_leaf(tree.model, tree.selected_uid)
        tree.session_changed(leaf="default")
        if at_leaf and session.leaf is not None:
            tree.select_uid(session.leaf.uid)
        self.state.count_new(session, new)
        self._render_header()
        uid = tree.selected_uid
        if uid is not None:
            self.context_pane.show_entry(session, uid)  # only if its context changed

    def _file_gone(self) -> None:
        if self.file.read_only:
            return
        self.file.read_only = True
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
        watcher = OneFileWatcher(self.path, self.settings.watch_debounce_ms)
        # start from what the index has read (no second read of a big file)
        watcher.cursors[self.path] = FileCursor(
            self.file.inode, session.end_offset, session.next_line, head
        )
        # what pi appended between reading the file and the watch taking hold
        self.set_timer(0.5, self._late_catch_up)
        async for batch in watcher.events(self._stop_watch):
            for event in batch:
                await self._on_watch_event(event)

    async def _late_catch_up(self) -> None:
        async with self.io_lock:
            await self.bring_up_to_date()

    async def _on_watch_event(self, event: WatchEvent) -> None:
        if isinstance(event, WatchNotice):
            self.notify(one_line(event.message, 200), severity="warning")
        elif isinstance(event, SessionDeleted):  # also renamed away: pi never renames files
            async with self.io_lock:
                self._file_gone()
        elif isinstance(event, SessionGrew | SessionReplaced | SessionCreated):
            async with self.io_lock:
                kind = await self.bring_up_to_date()
                if kind == "grew":
                    self.file.grew()
                    self.set_timer(edit.BUSY_SECONDS + 0.1, self._render_header)

    def action_toggle_follow(self) -> None:
        if self._not_a_session("toggle_follow"):
            return
        self.state.follow = not self.state.follow
        self._render_header()
        self.notify("Following new entries" if self.state.follow else "Not following new entries")

    # ---------------------------------------------------------------------------- writing
    @on(BranchTree.EntrySelected)
    def _on_selected(self, message: BranchTree.EntrySelected) -> None:
        meta = self.session.get(message.uid) if self.session is not None else None
        if meta is not None:
            self.writes.choose(meta)

    @on(BranchTree.LabelRequested)
    def _on_label(self, message: BranchTree.LabelRequested) -> None:
        self.writes.ask_label(message.uid, message.label)

    def action_undo(self) -> None:
        if self._not_a_session("undo"):
            return
        self.writes.undo()

    def action_prune(self) -> None:
        if self._not_a_session("prune"):
            return
        uid = self.branch_tree.selected_uid if self.session is not None else None
        if uid is not None:
            self.pruning.ask(uid)

    def action_extract(self) -> None:
        if self._not_a_session("extract"):
            return
        uid = self.branch_tree.selected_uid if self.session is not None else None
        if uid is not None:
            self.writes.extract(uid)

    # ---------------------------------------------------------------------------- branch diff
    def action_mark_entry(self) -> None:
        if not self._not_a_session("mark_entry") and self.session is not None:
            self.diff_mark.toggle(self.branch_tree.selected_uid)

    def action_diff(self) -> None:
        if not self._not_a_session("diff") and self.session is not None:
            self.diff_mark.open(self.branch_tree.selected_uid)

    # ---------------------------------------------------------------------------- resuming
    @property
    def can_resume(self) -> bool:
        return self._on_resume is not None

    def resume_now(self) -> None:
        session = self.session
        if session is not None and self._on_resume is not None:
            self._on_resume(session.path, session.cwd, session.id)

    def action_resume(self) -> None:
        if self._not_a_session("resume"):
            return
        if self._on_resume is None:
            self.notify("Resuming is not available here", severity="warning")
            return
        self.resume_now()

    # ---------------------------------------------------------------------------- clipboard
    def action_copy_message(self) -> None:
        """The selected entry's text (its message, summary, label...); in the raw-lines view,
        the selected line."""
        if self.session is None and self.query(RawLinesView):
            self.query_one(RawLinesView).copy_selected()
            return
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
        if self._not_a_session("copy_resume_command"):
            return
        session = self.session
        if session is None:
            copy_resume_command(self.app, None, "", "")
            return
        copy_resume_command(
            self.app, self.path, session.cwd, session.id, self.settings.resume_command
        )

    def open_other(self, path: str, select: str | None = None) -> None:
        """Open another session's view over this one (escape comes back here)."""
        self.app.push_screen(
            SessionScreen(
                path,
                settings=self.settings,
                select=select,
                on_resume=self._on_resume,
                watch=self.watch_enabled,
                clock=self.clock,
            )
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


def _raw_lines(path: str) -> RawLines | None:
    try:
        return read_raw_lines(path)
    except OSError:
        return None
