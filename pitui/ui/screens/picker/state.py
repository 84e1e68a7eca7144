"""What the picker shows, as plain data: scope, sort, filters, query, selection, undo.

No Textual here: the screen asks this state what to do (start a load, drop a stale result, which
row stays selected, what the header and the hints say) and does it. Tests drive it directly.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal, NamedTuple

from pitui.core import trash
from pitui.core.js import js_trim
from pitui.core.search import display_title as core_display_title
from pitui.core.search import marked_title
from pitui.render.safe_text import one_line
from pitui.ui.catalog import FullTextHit, PickerItem, Scope, SortMode

SORT_LABELS: dict[SortMode, str] = {
    "threaded": "Threaded",
    "recent": "Recent",
    "relevance": "Fuzzy",
}
SORT_CYCLE: tuple[SortMode, ...] = ("threaded", "recent", "relevance")
FULL_TEXT_PREFIX = "fts:"
LABEL_PREFIX = "label:"  # every label of the scope's sessions (.labels)
StatusKind = Literal["info", "error", "load-error"]
STATUS_SECONDS: dict[StatusKind, float] = {"info": 2.0, "error": 3.0, "load-error": 4.0}
DELETE_HINT = "Delete session? [Enter] confirm · [Esc/Ctrl+C] cancel"
LOADING_TEXT = "  Loading sessions…"
FULL_TEXT_EMPTY = "  Full-text search: type words to find in every message body"


def display_title(item: PickerItem) -> str:
    """The name when it has one, else the first message (control characters → spaces, trimmed);
    a file pi cannot resume has its header problem in front."""
    return marked_title(core_display_title(item.name, item.first_message), item.header_problem)


def find_match(text: str, query: str) -> tuple[int, int] | None:
    """Where the first word of a full-text query occurs in ``text`` (case-insensitive)."""
    lowered = text.lower()
    for word in query.replace('"', " ").split():
        at = lowered.find(word.lower())
        if at >= 0:
            return at, at + len(word)
    return None


def full_text_words(query: str) -> str | None:
    """The words of a full-text query (``fts:words``), or ``None`` for any other query."""
    trimmed = js_trim(query)
    if trimmed.startswith(FULL_TEXT_PREFIX):
        return trimmed[len(FULL_TEXT_PREFIX) :]
    return None


def label_words(query: str) -> str | None:
    """The words of a label query (``label:words``), or ``None`` for any other query."""
    trimmed = js_trim(query)
    if trimmed.startswith(LABEL_PREFIX):
        return trimmed[len(LABEL_PREFIX) :]
    return None


def entry_mode(query: str) -> str | None:
    """Which rows name an entry rather than a session: ``"fts"``, ``"label"`` or ``None``."""
    if full_text_words(query) is not None:
        return "fts"
    return "label" if label_words(query) is not None else None


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

    @property
    def first_load(self) -> bool:
        """Nothing read yet: a load posts the sessions read so far while it runs."""
        return not self.loaded and not self.items


class FilterRequest(NamedTuple):
    """What the visible rows are made from: the state when they were asked for."""

    scope: Scope
    items: Sequence[PickerItem]
    query: str
    mode: SortMode
    named: bool
    show_path: bool
    keep: str | None  # the session to keep selected (data changed under the user)
    pinned: frozenset[str] = frozenset()  # sessions shown first (without a query) and marked

    @property
    def key(self) -> tuple[object, ...]:
        """Equal for requests that give the same rows."""
        return (
            self.scope, self.query, self.mode, self.named, self.show_path, id(self.items),
            self.pinned,
        )  # fmt: skip


@dataclass(frozen=True, slots=True)
class LoadOutcome:
    """What a finished load asks of the screen."""

    first_load: bool  # the scope had not been loaded before
    quiet: bool  # it was a live refresh
    took: float  # seconds since it started
    nothing_anywhere: bool  # no session in either scope: the picker closes (U17)
    rerun: bool  # files changed meanwhile: load again


@dataclass(slots=True)
class UndoStep:
    kind: Literal["delete", "rename"]
    path: str
    previous_name: str | None = None
    trashed: trash.TrashedItem | None = None


@dataclass(slots=True)
class Shown:
    """The sessions behind the rows on screen, in row order (one per hit in full-text mode)."""

    items: list[PickerItem] = field(default_factory=list)
    hits: list[FullTextHit] = field(default_factory=list)

    def item_at(self, index: int) -> PickerItem | None:
        return self.items[index] if 0 <= index < len(self.items) else None

    def entry_at(self, index: int) -> str | None:
        return self.hits[index].entry_id if 0 <= index < len(self.hits) else None


def kept_index(items: Sequence[PickerItem], keep: str | None, selected: int) -> int:
    """The row to select after a re-filter: ``keep``'s row when it is listed, else the index
    that was selected (the list clamps it, as pi does: ui §2.4)."""
    if keep is not None:
        for index, item in enumerate(items):
            if item.path == keep:
                return index
    return selected


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
    shown: Shown = field(default_factory=Shown)
    indexing: tuple[int, int] | None = None  # the full-text index is reading message bodies
    pinned: frozenset[str] = frozenset()  # paths of the pinned sessions (core/pins.py)

    @property
    def visible(self) -> ScopeState:
        return self.scopes[self.scope]

    @property
    def full_text(self) -> str | None:
        """The words searched in every message body, when the query asks for that."""
        return full_text_words(self.query)

    @property
    def label_query(self) -> str | None:
        """The words narrowing the labels listed, when the query asks for labels."""
        return label_words(self.query)

    # ----------------------------------------------------------------------------- loads
    def start_load(
        self, scope: Scope, *, force: bool = False, quiet: bool = False, now: float
    ) -> int | None:
        """The generation of a load to start now, or ``None``: the scope is cached, or is
        loading (a forced load then runs again after it: never two at once, ui §2.3, U16)."""
        state = self.scopes[scope]
        if state.running:
            if force:
                state.rerun = True
            return None
        if state.loaded and not force:
            return None
        state.running, state.quiet, state.rerun, state.progress = True, quiet, False, None
        state.stale = False
        state.started = now
        state.generation += 1
        return state.generation

    def note_progress(self, scope: Scope, generation: int, loaded: int, total: int) -> bool:
        """Record a load's progress; whether the header shows it now."""
        state = self.scopes[scope]
        if not state.running or generation != state.generation:
            return False
        state.progress = (loaded, total)
        return scope == self.scope and state.loading

    def take_partial(self, scope: Scope, generation: int, items: Sequence[PickerItem]) -> bool:
        """Show the sessions a first load read so far; whether they are in the visible scope."""
        state = self.scopes[scope]
        if generation != state.generation or state.loaded:
            return False
        state.items = items
        return scope == self.scope

    def finish_load(
        self,
        scope: Scope,
        generation: int,
        items: Sequence[PickerItem],
        error: str | None,
        *,
        now: float,
    ) -> LoadOutcome | None:
        """Take a load's result (``None``: a newer load superseded it)."""
        state = self.scopes[scope]
        if generation != state.generation:
            return None
        first_load, quiet = not state.loaded, state.quiet
        state.running, state.progress = False, None
        if error is None:
            state.items, state.loaded = items, True
        elif first_load:
            state.items, state.loaded = (), True
        other = self.scopes["current" if scope == "all" else "all"]
        nothing = (
            scope == "all"
            and not quiet
            and error is None
            and not state.items
            and other.loaded
            and not other.items
        )
        return LoadOutcome(first_load, quiet, now - state.started, nothing, state.rerun)

    def forget(self, path: str) -> None:
        """Drop a deleted session from both cached scopes at once (ui §2.10)."""
        for state in self.scopes.values():
            state.items = [item for item in state.items if item.path != path]

    def invalidate_hidden(self) -> None:
        """After a write: the scope not shown is read again when next shown."""
        for name, state in self.scopes.items():
            if name != self.scope and not state.running:
                state.loaded = False

    def plan_refresh(self) -> bool:
        """Files changed: whether to re-read the visible scope now (the hidden one is marked
        stale and re-read when it is shown)."""
        reload = False
        for scope, state in self.scopes.items():
            if scope == self.scope:
                reload = state.loaded or state.running
            elif state.loaded:
                state.stale = True
        return reload

    # ------------------------------------------------------------------------------ keys
    def toggle_scope(self) -> bool:
        """Show the other scope; whether it changed while hidden (re-read it quietly)."""
        self.scope = "all" if self.scope == "current" else "current"
        self.shown.hits = []
        state = self.visible
        return state.loaded and state.stale

    def cycle_sort(self) -> None:
        self.sort = SORT_CYCLE[(SORT_CYCLE.index(self.sort) + 1) % len(SORT_CYCLE)]

    def toggle_named(self) -> None:
        self.named_only = not self.named_only

    def toggle_path(self) -> None:
        self.show_path = not self.show_path

    def set_query(self, value: str) -> None:
        was = entry_mode(self.query)
        self.query = value
        if was is not None and entry_mode(value) != was:
            self.shown.hits = []  # (rows of another kind: a hit's entry means nothing there)

    def filter_request(self, keep: str | None = None) -> FilterRequest:
        return FilterRequest(
            self.scope,
            self.visible.items,
            self.query,
            self.sort,
            self.named_only,
            self.show_path,
            keep,
            self.pinned,
        )

    # ------------------------------------------------------------------------- full text
    def note_indexing(self, done: int, total: int) -> bool:
        """Record the full-text index's progress; whether the list shows it (no hits yet)."""
        self.indexing = (done, total) if done < total else None
        return self.full_text is not None and not self.shown.hits

    def take_hits(self, query: str, scope: Scope, hits: Sequence[FullTextHit]) -> bool:
        """Show the hits of a full-text search in the listed sessions; ``False``: the query or
        the scope changed meanwhile (a newer search is on its way)."""
        words = self.full_text
        if words is None or scope != self.scope or js_trim(words) != js_trim(query):
            return False
        self.indexing = None
        by_path = {item.path: item for item in self.visible.items}
        self.shown.hits = [hit for hit in hits if hit.path in by_path]
        self.shown.items = [by_path[hit.path] for hit in self.shown.hits]
        return True

    def take_labels(
        self,
        query: str,
        scope: Scope,
        items: Sequence[PickerItem],
        hits: Sequence[FullTextHit],
        sessions: Sequence[PickerItem],
    ) -> bool:
        """Show the rows of a ``label:`` query (``sessions``: each hit's session); ``False``:
        they were made for another query, scope or list of sessions (newer ones are coming)."""
        words = self.label_query
        if words != query or scope != self.scope or items is not self.visible.items:
            return False
        self.shown.hits, self.shown.items = list(hits), list(sessions)
        return True

    def waiting_text(self, words: str) -> str:
        """What the list says in full-text mode before the hits come."""
        if self.indexing is not None:
            done, total = self.indexing
            return f"  Indexing message bodies for full-text search… {done}/{total}"
        return FULL_TEXT_EMPTY if not js_trim(words) else "  Searching…"

    # ----------------------------------------------------------------------------- texts
    def empty_text(self) -> str:
        """What the list says when no row matches (pi's words, ui §2.2)."""
        state = self.visible
        if state.loading and not state.items:
            return LOADING_TEXT
        all_scope = self.scope == "all"
        if self.named_only:
            if all_scope:
                return "  No named sessions found. Press ctrl+n to show all."
            return (
                "  No named sessions in current folder. "
                "Press ctrl+n to show all, or Tab to view all."
            )
        if all_scope:
            return "  No sessions found"
        return "  No sessions in current folder. Press Tab to view all."

    def title(self) -> str:
        return "Resume Session (All)" if self.scope == "all" else "Resume Session (Current Folder)"

    def modes(self) -> list[tuple[str, bool]]:
        """The header's right part as (text, is a value) pieces: pi draws values in accent."""
        state = self.visible
        if state.loading:
            progress = state.progress
            loading = f"Loading {progress[0]}/{progress[1]}" if progress else "Loading ..."
            scope = "○ Current Folder | " + loading  # pi: the same in either scope
        elif self.scope == "all":
            scope = "○ Current Folder | ◉ All"
        else:
            scope = "◉ Current Folder | ○ All"
        return [
            (scope, True),
            ("  Name: ", False),
            ("Named" if self.named_only else "All", True),
            ("  Sort: ", False),
            (SORT_LABELS[self.sort], True),
        ]

    def hint_lines(self, key: Callable[[str], str]) -> tuple[str, str]:
        """pi's two hint lines (ui §2.1) plus pitui's own keys; ``key`` gives a command's key."""
        path = "on" if self.show_path else "off"
        first = (
            f'{key("picker.scope")} scope · re:<pattern> regex · "phrase" exact · '
            f"{FULL_TEXT_PREFIX}<words> every message · {LABEL_PREFIX} labels · "
            f"{key('picker.stats')} stats · "
            f"{key('picker.doctor')} doctor"
        )
        second = (
            f"{key('picker.sort')} sort · {key('picker.named')} named · "
            f"{key('picker.delete')} delete · {key('picker.path')} path ({path}) · "
            f"{key('picker.rename')} rename · {key('picker.open')} tree · "
            f"{key('picker.pin')} pin · {key('picker.undo')} undo"
        )
        return first, second

    def stats_title(self, count: int) -> str:
        """The stats screen's title for the ``count`` sessions listed now."""
        where = "all folders" if self.scope == "all" else "this folder"
        plural = "s" if count != 1 else ""
        title = f"Usage · {count:,} session{plural} of {where}"
        query = self.query.strip()
        if query:
            title += f" matching {one_line(query, 40)}"
        elif self.named_only:
            title += ", named only"
        return title
