"""The session picker: pi's ``/resume``, full screen, with a preview (ui-behaviour §2).

The screen composes the widgets, answers keys and messages, and decides through its
:class:`~pitui.ui.screens.picker.state.PickerState`; loading, filtering and full-text search run in
workers (:mod:`.loader`). Its helpers: :mod:`.rows` (what the list shows for the query: sessions,
``label:`` rows, ``fts:`` hits), :mod:`.panes` (where the preview goes, when it follows the row),
:mod:`.follow` (the watch of the sessions folder while it is open), :mod:`.writes` (delete,
rename, undo, pins).

Settings and the keymap are given to it; it never looks at the app for them.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Input, Static
from textual.worker import Worker, WorkerState

from pitui.config import Settings
from pitui.core.memory import TRIM_INTERVAL, release_freed_memory
from pitui.core.pins import Pins
from pitui.render.safe_text import one_line
from pitui.ui.catalog import Catalog, FullTextHit, PickerItem, Scope, SortMode, sort_items
from pitui.ui.clipboard import copy_resume_command, copy_session_path
from pitui.ui.commands import COMMANDS, bindings_for, effective_keys
from pitui.ui.messages import (
    FirstFrameShown,
    HitsFound,
    IndexProgress,
    LabelsListed,
    RowsFiltered,
    ScopeLoaded,
    ScopePartial,
    ScopeProgress,
)
from pitui.ui.screens.picker.follow import PickerFollow
from pitui.ui.screens.picker.layout import FOOTER_RANK
from pitui.ui.screens.picker.live import LiveMarks
from pitui.ui.screens.picker.loader import PickerLoader
from pitui.ui.screens.picker.panes import PickerPanes
from pitui.ui.screens.picker.rows import PickerRows
from pitui.ui.screens.picker.state import (
    DELETE_HINT,
    LOADING_TEXT,
    STATUS_SECONDS,
    PickerState,
    StatusKind,
)
from pitui.ui.screens.picker.writes import PickerWrites
from pitui.ui.widgets.fitting_footer import FittingFooter
from pitui.ui.widgets.hint_line import HintLines
from pitui.ui.widgets.picker_header import PickerHeader
from pitui.ui.widgets.preview import SessionPreview
from pitui.ui.widgets.search_input import SearchInput
from pitui.ui.widgets.session_list import SessionList

if TYPE_CHECKING:
    from pitui.core.watch import WatchEvent

AGE_TICK = 30.0  # ages ("5m") are redrawn this often
# What waits for the app's first frame (after_first_frame) runs after this at the latest.
FIRST_FRAME_WAIT = 1.0


class PickerScreen(Screen[None]):
    COMMAND_SCOPES = ("picker",)
    BINDINGS = bindings_for("picker")

    def __init__(
        self,
        catalog: Catalog,
        *,
        settings: Settings,
        keymap: Mapping[str, str] | None = None,
        cwd: str,
        scope: Scope = "current",
        sort: SortMode = "threaded",
        named_only: bool = False,
        show_path: bool = False,
        current_session: str | None = None,
        clock: Callable[[], float] = time.time,
        on_resume: Callable[[PickerItem], None] | None = None,
        on_open: Callable[[PickerItem, str | None], None] | None = None,
        watch: bool = True,
        pins: Pins | None = None,
    ) -> None:
        """``keymap``: the user's overrides (command id → keys) the hints show; ``watch`` and
        ``settings.watch`` must both allow following the sessions folder; ``pins``: where the
        pinned sessions are kept (default: pitui's data dir)."""
        super().__init__()
        self.catalog = catalog
        self.settings = settings
        self.keymap = dict(keymap or {})
        self.cwd = cwd
        self.state = PickerState(scope=scope, sort=sort, named_only=named_only, show_path=show_path)
        self.pins = pins if pins is not None else Pins()
        self.state.pinned = frozenset(self.pins.load())
        self.current_session = current_session
        self.clock = clock
        self._on_resume = on_resume
        self._on_open = on_open
        self.loader = PickerLoader(catalog, current_session)
        self.writes = PickerWrites(self)
        self.rows = PickerRows(self)
        self.panes = PickerPanes(self)
        self._frame_shown = False  # the app's first frame is on the terminal
        self._after_frame: list[Callable[[], object]] = []  # what waits for it
        follow = watch and settings.watch
        self.follow = PickerFollow(self, settings.watch_debounce_ms if follow else None)
        self._keep_after_load: str | None = None  # select this session when the reload lands
        self.trim_due = False  # rows or a listing were rebuilt since the last trim
        self._unreadable_told: Mapping[str, str] = {}  # the unreadable folders last told of

    # ---------------------------------------------------------------------------- layout
    def compose(self) -> ComposeResult:
        with Vertical(id="picker"):
            yield PickerHeader(id="picker-header")
            yield HintLines(2, id="picker-hint")
            with Horizontal(id="picker-search-row"):
                yield Static("> ", id="picker-prompt")
                yield SearchInput(placeholder="type to search", id="picker-search")
            with Horizontal(id="picker-body"):
                with Vertical(id="picker-left"):
                    yield SessionList(clock=self.clock, id="picker-list")
                    yield Static(id="picker-position")
                yield SessionPreview(id="picker-preview")
        yield FittingFooter(FOOTER_RANK, held=True)  # (its keys come after the first frame)

    def on_mount(self) -> None:
        self.search.focus()
        self.panes.place_preview()
        self.session_list.set_rows([], empty_text=LOADING_TEXT)
        self.render_header()
        self._render_hints()
        self.watch(self.app, "theme", lambda _theme: self.render_header(), init=False)
        early = self.catalog.first_page(self.state.scope)  # (before the load takes it)
        # (with rows to show already, the load waits for the first frame: beside it, it would
        # take the GIL from the frame)
        self.set_timer(FIRST_FRAME_WAIT, self._first_frame_shown)  # (if no word comes)
        self.after_first_frame(self.query_one(FittingFooter).show_keys)
        self.load(self.state.scope, after_first_frame=bool(early))
        if early and not self.state.visible.loaded:
            # read ahead before the app started: the first frame shows them (the load goes on)
            self.state.visible.items = sort_items(early)
            self.refilter()
        self.set_interval(AGE_TICK, self.session_list.refresh)
        self.set_interval(TRIM_INTERVAL, self._trim_memory)

    def on_unmount(self) -> None:
        self.loader.cancel.set()
        self.follow.stop()

    def on_screen_resume(self) -> None:
        # back from the session view: the file may have changed there (branch switch, labels)
        if not self._frame_shown:
            return  # (the start: the rows' first frame first; the preview follows them after it)
        item = self.selected_item
        if item is not None and self.is_mounted:
            self.preview.show(item.path, entry_id=self.selected_entry, force=True)
            if not self.follow.watching and self.state.visible.loaded:
                self.load(self.state.scope, force=True, quiet=True)

    @property
    def session_list(self) -> SessionList:
        return self.query_one(SessionList)

    @property
    def search(self) -> SearchInput:
        return self.query_one(SearchInput)

    @property
    def preview(self) -> SessionPreview:
        return self.query_one(SessionPreview)

    @property
    def hints(self) -> HintLines:
        return self.query_one(HintLines)

    @property
    def listed(self) -> list[PickerItem]:
        """The sessions behind the rows, in row order."""
        return self.state.shown.items

    @property
    def hits(self) -> list[FullTextHit]:
        """Full-text mode: the hit behind each row."""
        return self.state.shown.hits

    @property
    def selected_item(self) -> PickerItem | None:
        return self.state.shown.item_at(self.session_list.selected)

    @property
    def selected_entry(self) -> str | None:
        return self.state.shown.entry_at(self.session_list.selected)

    @property
    def marks(self) -> LiveMarks:
        """The sessions marked live, and our own writes (not pi working in them)."""
        return self.follow.marks

    @property
    def live_paths(self) -> set[str]:
        return set(self.marks.live)

    @property
    def watching(self) -> bool:
        """The sessions folder is being followed."""
        return self.follow.watching

    @property
    def preview_pending(self) -> bool:
        """The preview waits for typing to pause before it follows the selected row."""
        return self.panes.preview_pending

    # ----------------------------------------------------------------------------- loading
    def load(
        self,
        scope: Scope,
        *,
        force: bool = False,
        quiet: bool = False,
        after_first_frame: bool = False,
    ) -> None:
        """Load ``scope`` unless it is cached or loading (then a forced load runs after it);
        ``after_first_frame``: its thread starts once the app's first frame is shown."""
        partial_rows = self.state.scopes[scope].first_load
        generation = self.state.start_load(scope, force=force, quiet=quiet, now=time.monotonic())
        if generation is None:
            return
        if scope == self.state.scope:
            self.render_header()
        load = partial(self.loader.load, scope, generation, partial_rows, self.post_message)
        start = partial(self.in_thread, "load", load)
        if after_first_frame:
            self.after_first_frame(start)
        else:
            start()

    def after_first_frame(self, callback: Callable[[], object]) -> None:
        """Call ``callback`` once the app's first frame is on the terminal (now if it is).

        What would only slow that frame down waits for it: a load beside it takes the GIL, and
        a callback "after the refresh" is no later than the frame at the start, since Textual
        runs those during the batch of the mount, whose frames it never shows."""
        if self._frame_shown:
            callback()
        else:
            self._after_frame.append(callback)

    @on(FirstFrameShown)
    def _first_frame_shown(self) -> None:
        self._frame_shown = True
        waiting, self._after_frame = self._after_frame, []
        for callback in waiting:
            callback()

    def in_thread(self, group: str, work: Callable[[], None], *, exclusive: bool = False) -> None:
        # (a description: Textual would otherwise repr() every argument, 10,000 sessions included)
        self.run_worker(
            work, name=group, group=group, description=group,
            thread=True, exclusive=exclusive, exit_on_error=False,
        )  # fmt: skip

    @on(ScopeProgress)
    def _on_progress(self, message: ScopeProgress) -> None:
        state = self.state
        if state.note_progress(message.scope, message.generation, message.loaded, message.total):
            self.render_header()

    @on(ScopePartial)
    def _on_partial(self, message: ScopePartial) -> None:
        if self.state.take_partial(message.scope, message.generation, message.items):
            self.refilter()

    @on(ScopeLoaded)
    def _on_loaded(self, message: ScopeLoaded) -> None:
        self.trim_due = True
        scope = message.scope
        outcome = self.state.finish_load(
            scope, message.generation, message.items, message.error, now=time.monotonic()
        )
        if outcome is None:
            return  # superseded
        if outcome.quiet:
            self.follow.pacer.cost = outcome.took
        self._warn_unreadable()
        if message.error is not None:
            self.show_status(f"Failed to load sessions: {message.error}", "load-error")
        if outcome.nothing_anywhere:
            self.app.exit(None)  # nothing anywhere: the picker closes as if cancelled (U17)
            return
        if outcome.rerun:
            self.load(scope, force=True, quiet=True)
        if scope == self.state.scope:
            self.render_header()
            keep = self._keep_after_load or (None if outcome.first_load else self._selected_path())
            self._keep_after_load = None
            self.refilter(keep=keep)
            item = self.selected_item
            if outcome.quiet and item is not None and item.path in self.marks.touched:
                self.preview.show(item.path, entry_id=self.selected_entry, force=True)
        if not self.state.scopes[scope].running:
            self.marks.touched.clear()
        self.call_after_refresh(self.follow.start)  # (an empty scope draws no rows)

    def _trim_memory(self) -> None:
        """Every re-read of the listing (twice a second while pi writes) and every filtered
        result frees the old rows and texts among the ones kept, which the C heap would keep
        (issue 24.13): give that memory back, in a thread (a trim holds the heap's lock for up
        to ~0.2 s), when something was rebuilt since the last time."""
        if self.trim_due:
            self.trim_due = False
            trim = partial(release_freed_memory, interval=TRIM_INTERVAL / 2)
            self.run_worker(trim, thread=True, group="trim", exit_on_error=False)

    def _warn_unreadable(self) -> None:
        """Say which folders could not be read (their sessions are missing), once per change:
        the listing is re-read twice a second while pi writes."""
        folders = self.catalog.unreadable_folders()
        if folders and folders != self._unreadable_told:
            named = [f"{one_line(folder, 200)} ({why})" for folder, why in folders.items()]
            which = "this folder; its" if len(named) == 1 else f"{len(named)} folders; their"
            more = f"\n… and {len(named) - 5} more" if len(named) > 5 else ""
            self.notify(
                f"Cannot read {which} sessions are not listed:\n" + "\n".join(named[:5]) + more,
                severity="warning",
                timeout=15,
            )
        self._unreadable_told = dict(folders)

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
        self.rows.refilter(keep)

    @on(RowsFiltered)
    def _on_filtered(self, message: RowsFiltered) -> None:
        self.rows.filtered(message)

    @on(LabelsListed)
    def _on_labels(self, message: LabelsListed) -> None:
        self.rows.labels_listed(message)

    @on(IndexProgress)
    def _on_index_progress(self, message: IndexProgress) -> None:
        self.rows.index_progress(message)

    @on(HitsFound)
    def _on_hits(self, message: HitsFound) -> None:
        self.rows.hits_found(message)

    def first_rows_drawn(self) -> None:
        if not self._frame_shown:
            self.after_first_frame(self.first_rows_drawn)  # (drawn but not yet shown)
            return
        self.loader.rows_painted.set()
        self.follow.start()

    # ------------------------------------------------------------------------ header, hints
    def render_header(self) -> None:
        self.query_one(PickerHeader).show(self.state.title(), self.state.modes())

    def _key(self, command_id: str) -> str:
        command = next(c for c in COMMANDS if c.id == command_id)
        return effective_keys(command, self.keymap).split(",")[0].strip()

    def hint_lines(self) -> tuple[str, str]:
        """pi's two hint lines (ui §2.1) with the configured keys, plus pitui's own keys."""
        return self.state.hint_lines(self._key)

    def _render_hints(self) -> None:
        self.hints.set_hints(self.hint_lines())

    def confirm_delete(self, key: str | None) -> None:
        """Mark the row whose deletion is being asked (``None``: answered)."""
        self.session_list.set_confirming(key)
        self.hints.ask(DELETE_HINT if key is not None else None)

    @property
    def status_text(self) -> str | None:
        """The status message shown now (``None`` when the hints are shown)."""
        return self.hints.status_text

    def show_status(self, message: str, kind: StatusKind = "info") -> None:
        """One status at a time, in place of the hints, hidden after its duration (ui §2.11)."""
        seconds = STATUS_SECONDS[kind]
        self.hints.show_status(message, "info" if kind == "info" else "error", seconds)
        if kind != "info":  # errors can be long: the toast shows all of it
            self.notify(one_line(message, 400), severity="error", timeout=seconds)

    def on_resize(self) -> None:
        self.panes.place_preview()
        self.panes.update_position()

    # -------------------------------------------------------------------------- rows, query
    @on(SessionList.Highlighted)
    def _on_highlight(self) -> None:
        self.panes.follow_selection()
        self.panes.update_position()

    @on(SessionList.Activated)
    def _on_activated(self, event: SessionList.Activated) -> None:
        self.session_list.selected = event.index
        self.action_open_tree()

    @on(Input.Changed, "#picker-search")
    def _on_query(self, event: Input.Changed) -> None:
        self.panes.typing()
        self.preview.interrupt()
        self.state.set_query(event.value)
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
        stale = self.state.toggle_scope()
        self.load(self.state.scope, force=stale, quiet=stale)  # (changed meanwhile)
        self.render_header()
        self.refilter()

    def action_cycle_sort(self) -> None:
        self.state.cycle_sort()
        self.refilter()

    def action_toggle_named(self) -> None:
        self.state.toggle_named()
        self.refilter()

    def action_toggle_path(self) -> None:
        self.state.toggle_path()
        self._render_hints()
        self.refilter()

    def action_toggle_preview(self) -> None:
        self.panes.toggle_preview()

    def action_show_all(self) -> None:
        self.preview.show_all(not self.preview.expanded)

    def action_quit_picker(self) -> None:
        self.app.exit(None)

    def action_resume(self) -> None:
        if self.selected_entry is not None:
            # a full-text hit or a label names an entry: Enter opens the session there
            self.action_open_tree()
            return
        item = self.selected_item
        if item is not None and item.header_problem is not None:
            # pi 0.73.1 writes a fresh header over such a file (its entries are lost), pi 1.x
            # refuses it: never handed to pi (issue 20.5)
            why = "its header has no id" if item.header_problem == "no-id" else (
                "a line comes before its header"
            )  # fmt: skip
            self.show_status(
                f"Cannot resume this file: {why} (pi 0.73.1 would overwrite it, pi 1.x refuses "
                f"it). {self._key('picker.doctor')}: what the doctor finds, "
                f"{self._key('picker.open')}: its lines",
                "error",
            )
            return
        if item is not None and self._on_resume is not None:
            self._on_resume(item)

    def action_toggle_pin(self) -> None:
        """Pin the selected session to the top of its scope, or unpin it (pitui's own data
        dir: nothing is written to the session)."""
        item = self.selected_item
        if item is not None:
            self.writes.toggle_pin(item)

    def action_open_tree(self) -> None:
        item = self.selected_item
        if item is not None and self._on_open is not None:
            self._on_open(item, self.selected_entry)

    def action_show_stats(self) -> None:
        """Usage of the sessions listed now: the scope, narrowed by the search and filter."""
        from pitui.core.stats import collect_stats
        from pitui.ui.screens.stats import StatsScreen

        # (a fts: or label: list has a row per hit: a session counts once)
        paths = list(dict.fromkeys(item.path for item in self.listed))
        if not paths:
            self.show_status("No sessions listed: nothing to count")
            return

        def compute(progress: Callable[[int, int], None], cancel: threading.Event) -> Any:
            return collect_stats(paths, by="model", progress=progress, cancel=cancel)

        self.app.push_screen(StatsScreen(compute, title=self.state.stats_title(len(paths))))

    def action_doctor(self) -> None:
        from pitui.ui.screens.doctor import DoctorScreen

        item = self.selected_item
        if item is not None:
            self.app.push_screen(DoctorScreen(item.path))

    def action_delete(self) -> None:
        item = self.selected_item
        if item is None:
            return
        if item.path == self.current_session:
            self.show_status("Cannot delete the currently active session", "error")
            return
        row = self.session_list.current_row
        self.writes.delete(item, row.key if row is not None else item.path)

    def action_delete_if_query_empty(self) -> None:
        search = self.search
        if search.value:
            search.action_delete_left_word()  # with a query it is an editing key (U12)
        else:
            self.action_delete()

    def action_rename(self) -> None:
        item = self.selected_item
        if item is None or self.state.visible.loading:
            return  # pi ignores it while the visible scope loads (ui §2.9)
        self.writes.rename(item)

    def action_undo(self) -> None:
        self.writes.undo()

    def action_copy_path(self) -> None:
        item = self.selected_item
        copy_session_path(self.app, item.path if item is not None else None)

    def action_copy_resume_command(self) -> None:
        item = self.selected_item
        if item is not None:
            command = self.settings.resume_command
            copy_resume_command(self.app, item.path, item.cwd, item.id, command)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if (
            action in ("resume", "open_tree", "delete", "rename", "toggle_pin")
            and self.selected_item is None
        ):
            return None  # shown disabled: nothing selected
        return True

    # ------------------------------------------------------------------------- after writes
    def forget(self, path: str) -> None:
        """Drop a deleted session from both cached scopes at once (ui §2.10)."""
        self.state.forget(path)
        self.refilter()

    def reload_visible(self, *, keep: str | None = None) -> None:
        """Reload the visible scope after a write (progress shows again, ui §2.3); the other
        scope is reloaded when next shown."""
        self.state.invalidate_hidden()
        self._keep_after_load = keep
        self.load(self.state.scope, force=True)

    # --------------------------------------------------------------------------------- live
    def on_watch_events(self, batch: Sequence[WatchEvent]) -> None:
        """React to one batch of file events (:mod:`.follow`)."""
        self.follow.take(batch)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        worker = event.worker
        if event.state != WorkerState.ERROR or worker.error is None:
            return  # (a superseded worker is cancelled, not failed)
        if worker.group in ("load", "fts", "filter", "write", "picker-watch"):
            error = worker.error
            self.show_status(f"Error in {worker.name}: {type(error).__name__}: {error}", "error")
