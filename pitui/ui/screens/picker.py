"""The session picker: pi's ``/resume``, full screen, with a preview (ui-behaviour §2).

The screen owns the state (scope caches, query, sort, filters, selection, undo stack) and decides;
loading, filtering, deleting, renaming and previewing run in workers that call the core and post
results back. While it is open it follows the sessions folder (:mod:`pitui.core.watch`): changed
sessions are re-read through the catalog (which keeps the store's index current), the selected
session stays selected and the query stays.
"""

from __future__ import annotations

import asyncio
import os
import threading
import time
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, NamedTuple

from rich.style import Style
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Footer, Input, Static
from textual.worker import Worker, WorkerState, get_current_worker

from pitui.core import trash
from pitui.core.js import js_trim
from pitui.core.paths import shorten_home
from pitui.core.search import Row, has_name
from pitui.core.search import display_title as core_display_title
from pitui.render.safe_text import one_line
from pitui.ui.catalog import Catalog, FullTextHit, PickerItem, Scope, SortMode, sort_items
from pitui.ui.clipboard import copy_resume_command, copy_session_path
from pitui.ui.commands import COMMANDS, bindings_for, effective_keys
from pitui.ui.modals.confirm import ConfirmModal
from pitui.ui.modals.text_input import TextInputModal
from pitui.ui.widgets.preview import SessionPreview
from pitui.ui.widgets.search_input import SearchInput
from pitui.ui.widgets.session_list import ListRow, SessionList

if TYPE_CHECKING:
    # (imported when watching starts, after the first frame)
    from pitui.core.watch import WatchEvent

SORT_LABELS: dict[SortMode, str] = {
    "threaded": "Threaded",
    "recent": "Recent",
    "relevance": "Fuzzy",
}
SORT_CYCLE: tuple[SortMode, ...] = ("threaded", "recent", "relevance")
FULL_TEXT_PREFIX = "fts:"
StatusKind = Literal["info", "error", "load-error"]
STATUS_SECONDS: dict[StatusKind, float] = {"info": 2.0, "error": 3.0, "load-error": 4.0}
DELETE_HINT = "Delete session? [Enter] confirm · [Esc/Ctrl+C] cancel"

LIVE_SECONDS = 8.0  # a session whose file grew this recently is marked live
REFRESH_INTERVAL = 0.5  # at most one live re-read of the listing per this many seconds,
REFRESH_COST_FACTOR = 4.0  # nor more often than 4 times as long as the last re-read took
PARTIAL_INTERVAL = 0.25  # while a scope first loads, the rows read so far are shown after this,
PARTIAL_INTERVAL_MAX = 4.0  # then ever less often (the interval doubles up to this)
PROGRESS_INTERVAL = 0.1  # "Loading n/N" is updated at most this often
FIRST_PAINT_WAIT = 0.5  # a load pauses (at most this long) until its first rows are drawn
IN_PLACE_ROWS = 500  # up to this many sessions (and no search) are filtered on the event loop
FULL_TEXT_DELAY = 0.15  # full-text queries wait for typing to pause
AGE_TICK = 30.0  # ages ("5m") are redrawn this often
OWN_WRITE_SECONDS = 3.0  # our own appends (rename) do not make a session "live"


def display_title(item: PickerItem) -> str:
    """The name when it has one, else the first message (control characters → spaces, trimmed)."""
    return core_display_title(item.name, item.first_message)


def find_match(text: str, query: str) -> tuple[int, int] | None:
    """Where the first word of a full-text query occurs in ``text`` (case-insensitive)."""
    lowered = text.lower()
    for word in query.replace('"', " ").split():
        at = lowered.find(word.lower())
        if at >= 0:
            return at, at + len(word)
    return None


@dataclass(slots=True)
class ScopeState:
    items: Sequence[PickerItem] = ()
    loaded: bool = False
    running: bool = False  # a load of this scope is in a worker
    quiet: bool = False  # that load is a live refresh: no "Loading" in the header
    rerun: bool = False  # files changed during that load: load again when it ends
    stale: bool = False  # files changed while another scope was shown: re-read when shown
    started: float = 0.0  # when the running load started (monotonic)
    generation: int = 0
    progress: tuple[int, int] | None = None

    @property
    def loading(self) -> bool:
        """What the header shows as ``Loading n/N``."""
        return self.running and not self.quiet


FileKey = tuple[int, int, int]  # (size, mtime_ns, inode)


class FilterRequest(NamedTuple):
    """What the visible rows are made from: the state when they were asked for."""

    scope: Scope
    items: Sequence[PickerItem]
    query: str
    mode: SortMode
    named: bool
    show_path: bool
    keep: str | None  # the session to keep selected (data changed under the user)

    @property
    def key(self) -> tuple[object, ...]:
        """Equal for requests that give the same rows."""
        return (self.scope, self.query, self.mode, self.named, self.show_path, id(self.items))


@dataclass(slots=True)
class UndoStep:
    kind: Literal["delete", "rename"]
    path: str
    previous_name: str | None = None
    trashed: trash.TrashedItem | None = None
    after: FileKey | None = None  # the file as our rename left it


@dataclass(slots=True)
class PickerState:
    scope: Scope = "current"
    sort: SortMode = "threaded"
    named_only: bool = False
    show_path: bool = False
    query: str = ""
    scopes: dict[Scope, ScopeState] = field(
        default_factory=lambda: {"current": ScopeState(), "all": ScopeState()}
    )
    undo: list[UndoStep] = field(default_factory=list)


def _file_key(path: str) -> FileKey | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_size, st.st_mtime_ns, st.st_ino)


def _call_if(ok: bool | None, then: Callable[[], object]) -> None:
    if ok:
        then()


def _first_key(command_id: str, keymap: dict[str, str]) -> str:
    command = next(c for c in COMMANDS if c.id == command_id)
    return effective_keys(command, keymap).split(",")[0].strip()


class PickerScreen(Screen[None]):
    COMMAND_SCOPES = ("picker",)
    BINDINGS = bindings_for("picker")

    class ScopeLoaded(Message):
        def __init__(
            self,
            scope: Scope,
            generation: int,
            items: Sequence[PickerItem],
            error: str | None,
        ) -> None:
            super().__init__()
            self.scope = scope
            self.generation = generation
            self.items = items
            self.error = error

    class ScopePartial(Message):
        """Sessions read so far by a first load (newest first), to paint before it ends."""

        def __init__(self, scope: Scope, generation: int, items: Sequence[PickerItem]) -> None:
            super().__init__()
            self.scope = scope
            self.generation = generation
            self.items = items

        def can_replace(self, message: Message) -> bool:
            return isinstance(message, PickerScreen.ScopePartial) and message.scope == self.scope

    class ScopeProgress(Message):
        def __init__(self, scope: Scope, generation: int, loaded: int, total: int) -> None:
            super().__init__()
            self.scope = scope
            self.generation = generation
            self.loaded = loaded
            self.total = total

        def can_replace(self, message: Message) -> bool:
            return isinstance(message, PickerScreen.ScopeProgress) and message.scope == self.scope

    class Filtered(Message):
        def __init__(
            self,
            key: tuple[object, ...],
            items: list[PickerItem],
            rows: list[ListRow],
            keep: str | None,
        ) -> None:
            super().__init__()
            self.key = key
            self.items = items
            self.rows = rows
            self.keep = keep

    class HitsFound(Message):
        def __init__(self, query: str, scope: Scope, hits: Sequence[FullTextHit]) -> None:
            super().__init__()
            self.query = query
            self.scope = scope
            self.hits = hits

    class IndexProgress(Message):
        def __init__(self, done: int, total: int) -> None:
            super().__init__()
            self.done = done
            self.total = total

        def can_replace(self, message: Message) -> bool:
            return isinstance(message, PickerScreen.IndexProgress)

    def __init__(
        self,
        catalog: Catalog,
        *,
        cwd: str,
        scope: Scope = "current",
        sort: SortMode = "threaded",
        named_only: bool = False,
        show_path: bool = False,
        current_session: str | None = None,
        clock: Callable[[], float] = time.time,
        on_resume: Callable[[PickerItem], None] | None = None,
        on_open: Callable[[PickerItem, str | None], None] | None = None,
        watch: bool | None = None,
        watch_debounce_ms: int | None = None,
    ) -> None:
        """``watch=None`` follows the app's options (``AppOptions.watch`` and
        ``Settings.watch``) when run by :class:`~pitui.ui.app.PituiApp`, else watches."""
        super().__init__()
        self.catalog = catalog
        self.cwd = cwd
        self.state = PickerState(scope=scope, sort=sort, named_only=named_only, show_path=show_path)
        self.current_session = current_session
        self.clock = clock
        self._on_resume = on_resume
        self._on_open = on_open
        self._watch_option = watch
        self._debounce_option = watch_debounce_ms
        self._visible: list[PickerItem] = []
        self._hits: list[FullTextHit] = []
        self._status_timer: Timer | None = None
        self._fts_timer: Timer | None = None
        self._refresh_timer: Timer | None = None
        self._live_timer: Timer | None = None
        self._last_refresh = 0.0
        self._refresh_cost = 0.0  # seconds the last live re-read took
        self._filter_lock = threading.Lock()
        self._cancel = threading.Event()  # set when the screen goes: loads stop early
        self._rows_painted = threading.Event()  # set once the first rows were drawn
        self._stop_watch: asyncio.Event | None = None
        self._watch_pending: int | None = None  # the debounce of a watch not started yet
        self._live: dict[str, float] = {}  # path → monotonic time its live mark ends
        self._own_writes: dict[str, float] = {}  # path → until when its events are ours
        self._touched: set[str] = set()  # paths changed on disk since the last refresh
        self._indexing: tuple[int, int] | None = None
        self._keep_after_load: str | None = None  # select this session when the reload lands
        self.watching = False

    # ---------------------------------------------------------------------------- layout
    def compose(self) -> ComposeResult:
        with Vertical(id="picker"):
            with Horizontal(id="picker-header"):
                yield Static(id="picker-title")
                yield Static(id="picker-modes")
            yield Static(id="picker-hint-1", classes="hint")
            yield Static(id="picker-hint-2", classes="hint")
            with Horizontal(id="picker-search-row"):
                yield Static("> ", id="picker-prompt")
                yield SearchInput(placeholder="type to search", id="picker-search")
            with Horizontal(id="picker-body"):
                with Vertical(id="picker-left"):
                    yield SessionList(clock=self.clock, id="picker-list")
                    yield Static(id="picker-position")
                yield SessionPreview(id="picker-preview")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(SearchInput).focus()
        self.session_list.set_rows([], empty_text="  Loading sessions…")
        self._render_header()
        self._render_hints()
        self.watch(self.app, "theme", lambda _theme: self._render_header(), init=False)
        early = self.catalog.first_page(self.state.scope)  # (before the load takes it)
        self._load(self.state.scope)
        if early and not self.scope_state.loaded:
            # read ahead before the app started: the first frame shows them (the load goes on)
            self.scope_state.items = sort_items(early)
            self.refilter()
        self.set_interval(AGE_TICK, self.session_list.refresh)
        enabled, debounce = self._watch_settings()
        if enabled:
            # setting up the watch (importing watchfiles, a watch on every folder) holds the
            # event loop and the GIL: it starts once the first rows are drawn, or the load ends
            self._watch_pending = debounce

    def on_unmount(self) -> None:
        self._cancel.set()
        if self._stop_watch is not None:
            self._stop_watch.set()

    def on_screen_resume(self) -> None:
        # back from the session view: the file may have changed there (branch switch, labels)
        item = self.selected_item
        if item is not None and self.is_mounted:
            self.query_one(SessionPreview).show(item.path, entry_id=self.selected_entry, force=True)
            if not self.watching and self.scope_state.loaded:
                self._load(self.state.scope, force=True, quiet=True)

    @property
    def session_list(self) -> SessionList:
        return self.query_one(SessionList)

    @property
    def search(self) -> SearchInput:
        return self.query_one(SearchInput)

    def _watch_settings(self) -> tuple[bool, int]:
        debounce = self._debounce_option
        if self._watch_option is not None:
            return self._watch_option, debounce or 150
        from pitui.ui.app import PituiApp  # here: the app module imports this one

        app = self.app
        if isinstance(app, PituiApp):
            settings = app.options.settings
            return (
                app.options.watch and settings.watch,
                debounce or settings.watch_debounce_ms,
            )
        return True, debounce or 150

    # ----------------------------------------------------------------------------- loading
    @property
    def scope_state(self) -> ScopeState:
        return self.state.scopes[self.state.scope]

    def _load(self, scope: Scope, *, force: bool = False, quiet: bool = False) -> None:
        """Load ``scope`` unless it is cached; never two loads of one scope at once (ui §2.3,
        U16): a forced load during a running one runs again after it."""
        state = self.state.scopes[scope]
        if state.running:
            if force:
                state.rerun = True
            return
        if state.loaded and not force:
            return
        state.running, state.quiet, state.rerun, state.progress = True, quiet, False, None
        state.stale = False
        state.started = time.monotonic()
        state.generation += 1
        if scope == self.state.scope:
            self._render_header()
        self._load_worker(scope, state.generation, not state.loaded and not state.items)

    @work(thread=True, group="load", exit_on_error=False, description="load")
    def _load_worker(self, scope: Scope, generation: int, partial: bool) -> None:
        """Load a scope; while a first load runs, post the progress and the sessions read so far
        — both throttled: every repaint of 10,000 rows takes the GIL from the parsing."""
        cancel = self._cancel
        found: list[PickerItem] = []
        counts = [0, -1]
        last_progress = [0.0]
        next_partial = [0.0, PARTIAL_INTERVAL]  # (when, interval): the interval doubles

        def progress(loaded: int, total: int) -> None:
            counts[0], counts[1] = loaded, total
            now = time.monotonic()
            if cancel.is_set() or (now - last_progress[0] < PROGRESS_INTERVAL and loaded < total):
                return
            last_progress[0] = now
            self.post_message(self.ScopeProgress(scope, generation, loaded, total))

        def batch(items: Sequence[PickerItem]) -> None:
            found.extend(items)
            if not partial or cancel.is_set() or counts[0] == counts[1]:
                return  # (a batch that completes the load is followed by the whole list)
            now = time.monotonic()
            if now >= next_partial[0]:
                next_partial[0] = now + next_partial[1]
                next_partial[1] = min(next_partial[1] * 2, PARTIAL_INTERVAL_MAX)
                self.post_message(self.ScopePartial(scope, generation, sort_items(found)))
                # the rest of the load would take the GIL from the first paint: wait for it
                self._rows_painted.wait(FIRST_PAINT_WAIT)

        try:
            items = self.catalog.load(scope, progress, batch, cancel)
        except Exception as exc:  # a store failure is a status line, never a crash
            message = f"{type(exc).__name__}: {exc}"
            self.post_message(self.ScopeLoaded(scope, generation, (), message))
            return
        if cancel.is_set():
            return
        self.post_message(self.ScopeLoaded(scope, generation, items, None))
        try:  # (after the rows are shown: a first search then finds what it needs)
            self.catalog.prepare_search(items, cancel)
        except Exception:  # only a slower first search
            return

    @on(ScopeProgress)
    def _on_progress(self, message: ScopeProgress) -> None:
        state = self.state.scopes[message.scope]
        if state.running and message.generation == state.generation:
            state.progress = (message.loaded, message.total)
            if message.scope == self.state.scope and state.loading:
                self._render_header()

    @on(ScopePartial)
    def _on_partial(self, message: ScopePartial) -> None:
        state = self.state.scopes[message.scope]
        if message.generation != state.generation or state.loaded:
            return
        state.items = message.items
        if message.scope == self.state.scope:
            self.refilter()

    @on(ScopeLoaded)
    def _on_loaded(self, message: ScopeLoaded) -> None:
        state = self.state.scopes[message.scope]
        if message.generation != state.generation:
            return  # superseded
        first_load = not state.loaded
        quiet = state.quiet
        if quiet:
            self._refresh_cost = time.monotonic() - state.started
        state.running = False
        state.progress = None
        if message.error is not None:
            self.show_status(f"Failed to load sessions: {message.error}", "load-error")
            if first_load:
                state.items, state.loaded = (), True
        else:
            state.items, state.loaded = message.items, True
        other = self.state.scopes["current" if message.scope == "all" else "all"]
        if (
            message.scope == "all"
            and not quiet
            and message.error is None
            and not state.items
            and other.loaded
            and not other.items
        ):
            self.app.exit(None)  # nothing anywhere: the picker closes as if cancelled (U17)
            return
        if state.rerun:
            self._load(message.scope, force=True, quiet=True)
        if message.scope == self.state.scope:
            self._render_header()
            keep = self._keep_after_load or (None if first_load else self._selected_path())
            self._keep_after_load = None
            self.refilter(keep=keep)
            item = self.selected_item
            if quiet and item is not None and item.path in self._touched:
                self.query_one(SessionPreview).show(
                    item.path, entry_id=self.selected_entry, force=True
                )
        if not state.running:
            self._touched.clear()
        self.call_after_refresh(self._start_watch)  # (an empty scope draws no rows)

    # ---------------------------------------------------------------------------- filtering
    def _selected_path(self) -> str | None:
        item = self.selected_item
        return item.path if item is not None else None

    def refilter(self, *, keep: str | None = None) -> None:
        """Recompute the visible rows from the loaded list, query, sort and filters (in a worker:
        a search reads the sessions' texts the first time, and a ``re:`` pattern can be slow).

        ``keep`` keeps that session selected (data changed under the user); without it the
        selection index is kept, clamped, as pi does after a re-filter (ui §2.4).
        """
        query = js_trim(self.state.query)
        if query.startswith(FULL_TEXT_PREFIX):
            if self._fts_timer is not None:
                self._fts_timer.stop()
            self._fts_timer = self.set_timer(
                FULL_TEXT_DELAY, lambda: self._full_text(query[len(FULL_TEXT_PREFIX) :])
            )
            if not self._hits:
                self._show_hits_empty(query[len(FULL_TEXT_PREFIX) :])
            return
        request = self._request(keep)
        if not query and len(request.items) <= IN_PLACE_ROWS and self._filter_lock.acquire(False):
            # a first page and no search (no texts to read): a worker's round trip would cost
            # more than the work, and the first rows wait for it
            try:
                self.workers.cancel_group(self, "filter")
                self._on_filtered(self._filtered(request))
            finally:
                self._filter_lock.release()
        else:
            self._filter(request)
        self._render_header()

    def _request(self, keep: str | None = None) -> FilterRequest:
        state = self.state
        return FilterRequest(
            state.scope,
            self.scope_state.items,
            state.query,
            state.sort,
            state.named_only,
            state.show_path,
            keep,
        )

    # (a description: Textual would otherwise repr() every argument, 10,000 sessions included)
    @work(thread=True, group="filter", exclusive=True, exit_on_error=False, description="filter")
    def _filter(self, request: FilterRequest) -> None:
        with self._filter_lock:  # the search caches are not shared between threads
            if get_current_worker().is_cancelled:
                return
            filtered = self._filtered(request)
        self.post_message(filtered)

    def _filtered(self, request: FilterRequest) -> Filtered:
        """The rows of a request (the caller holds ``_filter_lock``)."""
        rows = self.catalog.rows(request.items, request.query, request.mode, request.named)
        display = self.list_rows(
            rows,
            all_scope=request.scope == "all",
            show_path=request.show_path,
            live=set(self._live),
        )
        return self.Filtered(request.key, [row.item for row in rows], display, request.keep)

    def list_rows(
        self,
        rows: Sequence[Row[Any]],
        *,
        all_scope: bool,
        show_path: bool,
        live: Collection[str] = (),
    ) -> list[ListRow]:
        """The display rows (pure: runs in the filter worker)."""
        short: dict[str, str] = {}

        def shorten(path: str) -> str:
            found = short.get(path)
            if found is None:
                found = short[path] = shorten_home(path)
            return found

        current = self.current_session
        out: list[ListRow] = []
        for row in rows:
            item: PickerItem = row.item
            parts: list[str] = []
            if show_path:
                parts.append(shorten_home(item.path))
            if all_scope and item.cwd:
                parts.append(shorten(item.cwd))
            parts.append(str(item.message_count))
            path = item.path
            out.append(
                ListRow(  # positional: this runs for every listed session
                    path,  # key
                    display_title(item),  # title
                    row.prefix,  # prefix
                    " ".join(parts),  # right
                    item.modified,  # modified
                    has_name(item.name),  # named
                    path == current,  # current
                    path in live,  # live
                    "",  # snippet
                    None,  # match
                    path,  # path
                )
            )
        return out

    @on(Filtered)
    def _on_filtered(self, message: Filtered) -> None:
        if message.key != self._request().key or self._full_text_mode:
            return  # an older request: a newer one is on its way
        self._hits = []
        self._visible = message.items
        list_widget = self.session_list
        selected = list_widget.selected
        if message.keep is not None:
            found = next(
                (i for i, item in enumerate(message.items) if item.path == message.keep), None
            )
            if found is not None:
                selected = found
        # pi keeps the selection index, clamped (ui §2.4)
        list_widget.set_rows(message.rows, selected=selected, empty_text=self._empty_text())
        self._after_rows()

    def _after_rows(self) -> None:
        # the preview reads a file and renders messages: let the rows paint first
        self.call_after_refresh(self._update_preview)
        if self._visible and not self._rows_painted.is_set():
            self.call_after_refresh(self._first_rows_drawn)
        self._update_position()
        self.refresh_bindings()

    def _first_rows_drawn(self) -> None:
        self._rows_painted.set()
        self._start_watch()

    def _start_watch(self) -> None:
        if self._watch_pending is not None:
            debounce, self._watch_pending = self._watch_pending, None
            self._watch(debounce)

    @property
    def _full_text_mode(self) -> bool:
        return js_trim(self.state.query).startswith(FULL_TEXT_PREFIX)

    def _empty_text(self) -> str:
        if self.scope_state.loading and not self.scope_state.items:
            return "  Loading sessions…"
        all_scope = self.state.scope == "all"
        if self.state.named_only:
            if all_scope:
                return "  No named sessions found. Press ctrl+n to show all."
            return (
                "  No named sessions in current folder. "
                "Press ctrl+n to show all, or Tab to view all."
            )
        if all_scope:
            return "  No sessions found"
        return "  No sessions in current folder. Press Tab to view all."

    # ---------------------------------------------------------------------------- full text
    @work(thread=True, group="fts", exclusive=True, exit_on_error=False, description="full text")
    def _full_text(self, query: str) -> None:
        worker = get_current_worker()
        scope = self.state.scope
        if not js_trim(query):
            self.post_message(self.HitsFound(query, scope, ()))
            return

        def progress(done: int, total: int) -> None:
            if not worker.is_cancelled:
                self.post_message(self.IndexProgress(done, total))

        try:
            hits = self.catalog.full_text(query, scope, progress)
        except Exception as exc:
            self.app.call_from_thread(self.show_status, f"Full-text search failed: {exc}", "error")
            return
        if not worker.is_cancelled:
            self.post_message(self.HitsFound(query, scope, hits))

    @on(IndexProgress)
    def _on_index_progress(self, message: IndexProgress) -> None:
        self._indexing = (message.done, message.total) if message.done < message.total else None
        if self._full_text_mode and not self._hits:
            self._show_hits_empty(js_trim(self.state.query)[len(FULL_TEXT_PREFIX) :])

    def _show_hits_empty(self, query: str) -> None:
        if self._indexing is not None:
            done, total = self._indexing
            empty = f"  Indexing message bodies for full-text search… {done}/{total}"
        elif not js_trim(query):
            empty = "  Full-text search: type words to find in every message body"
        else:
            empty = "  Searching…"
        self._visible = []
        self.session_list.set_rows([], selected=0, empty_text=empty)
        self._after_rows()

    @on(HitsFound)
    def _on_hits(self, message: HitsFound) -> None:
        query = js_trim(self.state.query)
        if not query.startswith(FULL_TEXT_PREFIX) or message.scope != self.state.scope:
            return
        if js_trim(query[len(FULL_TEXT_PREFIX) :]) != js_trim(message.query):
            return  # a newer query is on its way
        self._indexing = None
        by_path = {item.path: item for item in self.scope_state.items}
        hits = [hit for hit in message.hits if hit.path in by_path]
        self._hits = hits
        self._visible = [by_path[hit.path] for hit in hits]
        rows: list[ListRow] = []
        for hit in hits:
            snippet = one_line(hit.snippet) or "(the entry is no longer in the file)"
            rows.append(
                ListRow(
                    key=f"{hit.path}#{hit.entry_id}",
                    path=hit.path,
                    title=display_title(by_path[hit.path]),
                    snippet=snippet,
                    match=find_match(snippet, message.query),
                    named=has_name(by_path[hit.path].name),
                    current=hit.path == self.current_session,
                    live=hit.path in self._live,
                )
            )
        if not js_trim(message.query):
            empty = "  Full-text search: type words to find in every message body"
        else:
            empty = "  No message matches."
        self.session_list.set_rows(rows, selected=0, empty_text=empty)
        self._after_rows()

    # ---------------------------------------------------------------------------- header
    def _render_header(self) -> None:
        state = self.state
        title = (
            "Resume Session (All)" if state.scope == "all" else "Resume Session (Current Folder)"
        )
        self.query_one("#picker-title", Static).update(Text(title, style="bold"))
        scope_state = self.scope_state
        # pi: labels muted (the widget's colour), values accent
        accent = self.app.get_css_variables().get("accent")
        value = Style(color=accent) if accent else Style(bold=True)
        modes = Text(no_wrap=True, overflow="ellipsis")
        if scope_state.loading:
            progress = scope_state.progress
            loading = f"Loading {progress[0]}/{progress[1]}" if progress else "Loading ..."
            modes.append("○ Current Folder | " + loading, value)  # pi: the same in either scope
        elif state.scope == "all":
            modes.append("○ Current Folder | ◉ All", value)
        else:
            modes.append("◉ Current Folder | ○ All", value)
        modes.append("  Name: ")
        modes.append("Named" if state.named_only else "All", value)
        modes.append("  Sort: ")
        modes.append(SORT_LABELS[state.sort], value)
        self.query_one("#picker-modes", Static).update(modes)

    def _keymap(self) -> dict[str, str]:
        overrides = getattr(self.app, "keymap_overrides", None)
        return dict(overrides) if isinstance(overrides, dict) else {}

    def hint_lines(self) -> tuple[str, str]:
        """pi's two hint lines (ui §2.1) with the configured keys, plus pitui's own keys."""
        keymap = self._keymap()

        def key(command_id: str) -> str:
            return _first_key(command_id, keymap)

        path = "on" if self.state.show_path else "off"
        first = (
            f'{key("picker.scope")} scope · re:<pattern> regex · "phrase" exact · '
            f"{FULL_TEXT_PREFIX}<words> every message · {key('picker.stats')} stats · "
            f"{key('picker.doctor')} doctor"
        )
        second = (
            f"{key('picker.sort')} sort · {key('picker.named')} named · "
            f"{key('picker.delete')} delete · {key('picker.path')} path ({path}) · "
            f"{key('picker.rename')} rename · {key('picker.open')} tree · "
            f"{key('picker.undo')} undo"
        )
        return first, second

    def _render_hints(self) -> None:
        hint_1 = self.query_one("#picker-hint-1", Static)
        hint_2 = self.query_one("#picker-hint-2", Static)
        if self.session_list.confirming is not None:
            hint_1.update(Text(DELETE_HINT))
            hint_1.set_class(True, "-error")
            hint_1.set_class(False, "-info")
            hint_2.update("")
            return
        if self._status_timer is not None:
            return  # a status message holds the hint lines
        first, second = self.hint_lines()
        hint_1.update(Text(first, no_wrap=True, overflow="ellipsis"))
        hint_2.update(Text(second, no_wrap=True, overflow="ellipsis"))
        hint_1.set_class(False, "-error", "-info")

    @property
    def status_text(self) -> str | None:
        """The status message shown now (``None`` when the hints are shown)."""
        if self._status_timer is None:
            return None
        return str(self.query_one("#picker-hint-1", Static).render())

    def show_status(self, message: str, kind: StatusKind = "info") -> None:
        """One status at a time, in place of the hints, hidden after its duration (ui §2.11)."""
        hint = self.query_one("#picker-hint-1", Static)
        hint.update(Text(one_line(message), no_wrap=True, overflow="ellipsis"))
        hint.set_class(kind != "info", "-error")
        hint.set_class(kind == "info", "-info")
        self.query_one("#picker-hint-2", Static).update("")
        if self._status_timer is not None:
            self._status_timer.stop()
        self._status_timer = self.set_timer(STATUS_SECONDS[kind], self._clear_status)
        if kind != "info":  # errors can be long: the toast shows all of it
            self.notify(one_line(message, 400), severity="error", timeout=STATUS_SECONDS[kind])

    def _clear_status(self) -> None:
        self._status_timer = None
        self._render_hints()

    def _update_position(self) -> None:
        """pi's scroll indicator ``(selected/count)``, shown only when not all rows fit."""
        widget = self.query_one("#picker-position", Static)
        rows = self.session_list.rows
        if len(rows) > self.session_list.page_size:
            widget.update(Text(f"  ({self.session_list.selected + 1}/{len(rows)})"))
        else:
            widget.update("")

    def on_resize(self) -> None:
        self._update_position()

    # ----------------------------------------------------------------------------- preview
    @property
    def selected_item(self) -> PickerItem | None:
        index = self.session_list.selected
        return self._visible[index] if 0 <= index < len(self._visible) else None

    @property
    def selected_entry(self) -> str | None:
        index = self.session_list.selected
        return self._hits[index].entry_id if 0 <= index < len(self._hits) else None

    @on(SessionList.Highlighted)
    def _on_highlight(self) -> None:
        self._update_preview()
        self._update_position()

    def _update_preview(self) -> None:
        item = self.selected_item
        self.query_one(SessionPreview).show(
            item.path if item else None, entry_id=self.selected_entry
        )

    @on(SessionList.Activated)
    def _on_activated(self, event: SessionList.Activated) -> None:
        self.session_list.selected = event.index
        self.action_open_tree()

    # ------------------------------------------------------------------------------ typing
    @on(Input.Changed, "#picker-search")
    def _on_query(self, event: Input.Changed) -> None:
        was_full_text = self._full_text_mode
        self.state.query = event.value
        if was_full_text and not self._full_text_mode:
            self._hits = []
        self.refilter()

    # ------------------------------------------------------------------------------ actions
    def action_cursor_up(self) -> None:
        self.session_list.move(-1)

    def action_cursor_down(self) -> None:
        self.session_list.move(1)

    def action_page_up(self) -> None:
        self.session_list.move(-10)

    def action_page_down(self) -> None:
        self.session_list.move(10)

    def action_toggle_scope(self) -> None:
        self.state.scope = "all" if self.state.scope == "current" else "current"
        self._hits = []
        state = self.scope_state
        if state.loaded and state.stale:
            self._load(self.state.scope, force=True, quiet=True)  # changed meanwhile
        else:
            self._load(self.state.scope)
        self._render_header()
        self.refilter()

    def action_cycle_sort(self) -> None:
        index = SORT_CYCLE.index(self.state.sort)
        self.state.sort = SORT_CYCLE[(index + 1) % len(SORT_CYCLE)]
        self.refilter()

    def action_toggle_named(self) -> None:
        self.state.named_only = not self.state.named_only
        self.refilter()

    def action_toggle_path(self) -> None:
        self.state.show_path = not self.state.show_path
        self._render_hints()
        self.refilter()

    def action_quit_picker(self) -> None:
        self.app.exit(None)

    def action_resume(self) -> None:
        item = self.selected_item
        if item is not None and self._on_resume is not None:
            self._on_resume(item)

    def action_open_tree(self) -> None:
        item = self.selected_item
        if item is not None and self._on_open is not None:
            self._on_open(item, self.selected_entry)

    # ------------------------------------------------------------------------- stats, doctor
    def action_show_stats(self) -> None:
        """Usage of the sessions listed now: the scope, narrowed by the search and filter."""
        from pitui.core.stats import collect_stats
        from pitui.ui.screens.stats import StatsScreen

        paths = [item.path for item in self._visible]
        if not paths:
            self.show_status("No sessions listed: nothing to count")
            return
        where = "all folders" if self.state.scope == "all" else "this folder"
        plural = "s" if len(paths) != 1 else ""
        title = f"Usage · {len(paths):,} session{plural} of {where}"
        query = self.search.value.strip()
        if query:
            title += f" matching {one_line(query, 40)}"
        elif self.state.named_only:
            title += ", named only"

        def compute(progress: Callable[[int, int], None], cancel: threading.Event) -> Any:
            return collect_stats(paths, by="model", progress=progress, cancel=cancel)

        self.app.push_screen(StatsScreen(compute, title=title))

    def action_doctor(self) -> None:
        from pitui.ui.screens.doctor import DoctorScreen

        item = self.selected_item
        if item is not None:
            self.app.push_screen(DoctorScreen(item.path))

    # -------------------------------------------------------------------------------- delete
    def action_delete(self) -> None:
        item = self.selected_item
        if item is None:
            return
        if item.path == self.current_session:
            self.show_status("Cannot delete the currently active session", "error")
            return
        row = self.session_list.current_row
        self.session_list.set_confirming(row.key if row is not None else item.path)
        self._render_hints()
        body = Text("Move this session to the trash?\n\n")
        body.append(one_line(display_title(item), 200), "bold")
        body.append(f"\n{one_line(shorten_home(item.path))}", "dim")
        self.app.push_screen(
            ConfirmModal("Delete session?", body, confirm_label="Move to trash"),
            callback=lambda ok: self._delete_confirmed(item, bool(ok)),
        )

    def action_delete_if_query_empty(self) -> None:
        search = self.search
        if search.value:
            search.action_delete_left_word()  # with a query it is an editing key (U12)
        else:
            self.action_delete()

    def _delete_confirmed(self, item: PickerItem, ok: bool) -> None:
        self.session_list.set_confirming(None)
        self._render_hints()
        if ok:
            self._delete_worker(item)

    @work(thread=True, group="write", exit_on_error=False)
    def _delete_worker(self, item: PickerItem) -> None:
        try:
            trashed = trash.trash(item.path)
        except trash.TrashError as exc:
            self.app.call_from_thread(self._trash_failed, item, str(exc))
            return
        self.app.call_from_thread(self._deleted, item, trashed)

    def _deleted(self, item: PickerItem, trashed: trash.TrashedItem | None) -> None:
        self.state.undo.append(UndoStep("delete", item.path, trashed=trashed))
        self.forget(item.path)
        self.show_status("Session moved to trash")
        self.reload_visible()

    def _trash_failed(self, item: PickerItem, reason: str) -> None:
        self.show_status(f"Failed to delete: {reason}", "error")
        body = Text()
        body.append_text(Text(one_line(reason, 400)))
        body.append("\n\nDelete it permanently instead? This cannot be undone.\n\n", "bold")
        body.append(one_line(display_title(item), 200))
        self.app.push_screen(
            ConfirmModal(
                "The trash did not take the session", body, confirm_label="Delete forever"
            ),
            callback=lambda ok: _call_if(ok, lambda: self._delete_forever(item)),
        )

    @work(thread=True, group="write", exit_on_error=False)
    def _delete_forever(self, item: PickerItem) -> None:
        try:
            trash.delete_permanently(item.path)
        except trash.TrashError as exc:
            self.app.call_from_thread(self.show_status, f"Failed to delete: {exc}", "error")
            return
        self.app.call_from_thread(self._deleted_forever, item)

    def _deleted_forever(self, item: PickerItem) -> None:
        self.forget(item.path)
        self.show_status("Session deleted")
        self.reload_visible()

    # -------------------------------------------------------------------------------- rename
    def action_rename(self) -> None:
        item = self.selected_item
        if item is None or self.scope_state.loading:
            return  # pi ignores it while the visible scope loads (ui §2.9)
        self.app.push_screen(
            TextInputModal(
                "Rename Session",
                value=item.name or "",
                hint="Enter to save · Esc/Ctrl+C to cancel",
            ),
            callback=lambda name: _call_if(
                bool(name), lambda: self._rename_worker(item.path, name or "")
            ),
        )

    @work(thread=True, group="write", exit_on_error=False)
    def _rename_worker(
        self, path: str, name: str, force: bool = False, undo: UndoStep | None = None
    ) -> None:
        # imported here: the write layer (pydantic models) is not needed to show the list
        from pitui.core import edit
        from pitui.core.session import Session, SessionError

        if undo is not None and undo.after is not None and _file_key(path) == undo.after:
            force = True  # the file is as our own rename left it: not pi writing
        try:
            with Session.open(path) as session:
                previous = session.name
                self._own_writes[path] = time.monotonic() + OWN_WRITE_SECONDS
                edit.append_entries(session, [edit.session_info_entry(session, name)], force=force)
        except edit.FileBusyError as exc:
            self.app.call_from_thread(
                self._confirm_busy,
                str(exc),
                lambda: self._rename_worker(path, name, True, undo),
            )
            return
        except (edit.WriteError, SessionError, OSError) as exc:
            self.app.call_from_thread(self.show_status, f"Failed to rename: {exc}", "error")
            return
        self.app.call_from_thread(self._renamed, path, previous, _file_key(path), undo)

    def _confirm_busy(self, reason: str, retry: Callable[[], object]) -> None:
        body = Text(
            one_line(reason, 400) + "\n\nWrite anyway? pi will read it, but a write while pi is "
            "mid-reply can leave your entry on a side branch."
        )
        self.app.push_screen(
            ConfirmModal(
                "pi may be writing this session", body, confirm_label="Write anyway", danger=False
            ),
            callback=lambda ok: _call_if(ok, retry),
        )

    def _renamed(
        self, path: str, previous: str | None, after: FileKey | None, undo: UndoStep | None
    ) -> None:
        if undo is None:
            self.state.undo.append(UndoStep("rename", path, previous_name=previous, after=after))
        self.show_status("Session renamed" if undo is None else "Rename undone")
        self.reload_visible(keep=path)

    # ----------------------------------------------------------------------------- clipboard
    def action_copy_path(self) -> None:
        item = self.selected_item
        copy_session_path(self.app, item.path if item is not None else None)

    def action_copy_resume_command(self) -> None:
        item = self.selected_item
        if item is None:
            return
        template = getattr(getattr(self.app, "options", None), "settings", None)
        command = template.resume_command if template is not None else ["pi", "--session", "{path}"]
        copy_resume_command(self.app, item.path, item.cwd, item.id, command)

    # ---------------------------------------------------------------------------------- undo
    def action_undo(self) -> None:
        if not self.state.undo:
            self.show_status("Nothing to undo")
            return
        step = self.state.undo.pop()
        if step.kind == "rename":
            if not os.path.exists(step.path):
                self.show_status("The renamed session is gone; nothing to undo", "error")
                return
            self._rename_worker(step.path, step.previous_name or "", False, step)
            return
        if not trash.restore_supported():
            self.show_status(
                "Undo is not available on this platform: restore it from the trash", "error"
            )
            return
        self._restore_worker(step)

    @work(thread=True, group="write", exit_on_error=False)
    def _restore_worker(self, step: UndoStep) -> None:
        try:
            if step.trashed is not None:
                trash.restore(step.trashed)
            else:
                trash.restore_path(step.path)
        except trash.TrashError as exc:
            self.app.call_from_thread(self.show_status, f"Cannot undo: {exc}", "error")
            return
        self.app.call_from_thread(self._restored, step.path)

    def _restored(self, path: str) -> None:
        self.show_status("Session restored from the trash")
        self.reload_visible(keep=path)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("resume", "open_tree", "delete", "rename") and self.selected_item is None:
            return None  # shown disabled: nothing selected
        return True

    # ------------------------------------------------------------------------- after writes
    def forget(self, path: str) -> None:
        """Drop a deleted session from both cached scopes at once (ui §2.10)."""
        for state in self.state.scopes.values():
            state.items = [item for item in state.items if item.path != path]
        self.refilter()

    def reload_visible(self, *, keep: str | None = None) -> None:
        """Reload the visible scope after a write (progress shows again, ui §2.3); the other
        scope is reloaded when next shown."""
        for name, state in self.state.scopes.items():
            if name != self.state.scope and not state.running:
                state.loaded = False
        self._keep_after_load = keep
        self._load(self.state.scope, force=True)

    # --------------------------------------------------------------------------------- live
    @work(group="picker-watch", exclusive=True, exit_on_error=False)
    async def _watch(self, debounce_ms: int) -> None:
        root = self.catalog.watch_root()
        if root is None:
            return
        from pitui.core.watch import SessionWatcher

        self._stop_watch = asyncio.Event()
        self.watching = True
        try:
            watcher = SessionWatcher(root, debounce_ms=debounce_ms)
            async for batch in watcher.events(self._stop_watch):
                self.on_watch_events(batch)
        finally:
            self.watching = False

    def on_watch_events(self, batch: Sequence[WatchEvent]) -> None:
        """React to one batch of file events: mark live sessions, re-read the listing."""
        from pitui.core.watch import (
            SessionCreated,
            SessionDeleted,
            SessionGrew,
            SessionRenamed,
            SessionReplaced,
            WatchNotice,
        )

        now = time.monotonic()
        touched: set[str] = set()
        for event in batch:
            if isinstance(event, WatchNotice):
                self.notify(one_line(event.message, 300), severity="warning")
            elif isinstance(event, SessionRenamed):
                touched.update((event.old, event.new))
                self._live.pop(event.old, None)
            elif isinstance(event, (SessionCreated, SessionGrew)):
                touched.add(event.path)
                if self._own_writes.get(event.path, 0.0) < now:
                    self._live[event.path] = now + LIVE_SECONDS
            elif isinstance(event, SessionReplaced):
                touched.add(event.path)
            elif isinstance(event, SessionDeleted):
                touched.add(event.path)
                self._live.pop(event.path, None)
        if not touched:
            return
        self._touched |= touched
        self._apply_live()
        self._schedule_refresh()

    def _apply_live(self) -> None:
        now = time.monotonic()
        self._live = {path: until for path, until in self._live.items() if until > now}
        self._own_writes = {path: until for path, until in self._own_writes.items() if until > now}
        self.session_list.set_live(self._live.keys())
        if self._live_timer is not None:
            self._live_timer.stop()
            self._live_timer = None
        if self._live:
            delay = min(self._live.values()) - now + 0.05
            self._live_timer = self.set_timer(max(delay, 0.05), self._apply_live)

    @property
    def live_paths(self) -> set[str]:
        return set(self._live)

    def _schedule_refresh(self) -> None:
        if self._refresh_timer is not None:
            return  # one is already due
        # a big store takes a while to re-read: then re-read less often (pi may write every
        # second while it works), so following it costs at most about a quarter of a core
        interval = max(REFRESH_INTERVAL, REFRESH_COST_FACTOR * self._refresh_cost)
        wait = self._last_refresh + interval - time.monotonic()
        if wait <= 0:
            self._refresh_now()
        else:
            self._refresh_timer = self.set_timer(wait, self._refresh_now)

    def _refresh_now(self) -> None:
        """Re-read the visible scope through the catalog (the store re-summarises only the
        files whose size or time changed, and its index follows); the other scope is re-read
        when it is shown again."""
        self._refresh_timer = None
        self._last_refresh = time.monotonic()
        visible = self.state.scope
        for scope, state in self.state.scopes.items():
            if scope == visible:
                if state.loaded or state.running:
                    self._load(scope, force=True, quiet=True)
            elif state.loaded:
                state.stale = True

    # --------------------------------------------------------------------------- workers
    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        worker = event.worker
        if event.state != WorkerState.ERROR or worker.error is None:
            return  # (a superseded worker is cancelled, not failed)
        if worker.group in ("load", "fts", "filter", "write", "picker-watch"):
            error = worker.error
            self.show_status(f"Error in {worker.name}: {type(error).__name__}: {error}", "error")
