"""The picker's blocking work, run in thread workers: loading a scope, filtering, full text.

Each function calls the :class:`~pitui.ui.catalog.Catalog` and posts what it found as a message
of :mod:`pitui.ui.messages`; the screen decides what to do with it. Nothing here touches a widget.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Collection, Sequence
from typing import Any

from textual.message import Message

from pitui.core.js import js_trim
from pitui.core.paths import shorten_home
from pitui.core.pins import pinned_first
from pitui.core.regex_search import RegexTooSlow
from pitui.core.search import Row, has_name, prepare_phrase_texts
from pitui.render.safe_text import one_line
from pitui.ui.catalog import Catalog, FullTextHit, PickerItem, Scope, sort_items
from pitui.ui.messages import (
    HitsFound,
    IndexProgress,
    RowsFiltered,
    ScopeLoaded,
    ScopePartial,
    ScopeProgress,
)
from pitui.ui.screens.picker.state import FilterRequest, display_title, find_match
from pitui.ui.widgets.session_list import LazyRows, ListRow

PARTIAL_INTERVAL = 0.25  # while a scope first loads, the rows read so far are shown after this,
PARTIAL_INTERVAL_MAX = 4.0  # then ever less often (the interval doubles up to this)
PROGRESS_INTERVAL = 0.1  # "Loading n/N" is updated at most this often
FIRST_PAINT_WAIT = 0.5  # a load pauses (at most this long) until its first rows are drawn
RECENT_RESULTS = 8  # the rows of this many recent queries over one listing are kept
PREPARE_YIELD = 0.01  # seconds the phrase forms wait while a key's filter runs

Post = Callable[[Message], object]


def list_rows(
    rows: Sequence[Row[Any]],
    *,
    current: str | None,
    all_scope: bool,
    show_path: bool,
    live: Collection[str] = (),
    pinned: Collection[str] = (),
) -> LazyRows:
    """The display rows of a query's rows, each made when the list first draws it (a key press
    re-filters every session; the list shows a screenful)."""
    short: dict[str, str] = {}

    def shorten(path: str) -> str:
        found = short.get(path)
        if found is None:
            found = short[path] = shorten_home(path)
        return found

    def make(index: int, live: Collection[str]) -> ListRow:
        row = rows[index]
        item: PickerItem = row.item
        parts: list[str] = []
        if show_path:
            parts.append(shorten_home(item.path))
        if all_scope and item.cwd:
            parts.append(shorten(item.cwd))
        parts.append(str(item.message_count))
        path = item.path
        return ListRow(
            key=path,
            title=display_title(item),
            prefix=row.prefix,
            right=" ".join(parts),
            modified=item.modified,
            named=has_name(item.name),
            current=path == current,
            live=path in live,
            path=path,
            pinned=path in pinned,
        )

    def key_of(index: int) -> str:
        path: str = rows[index].item.path
        return path

    return LazyRows(len(rows), make, key_of, live)


def hit_rows(
    hits: Sequence[FullTextHit],
    items: Sequence[PickerItem],
    query: str,
    *,
    current: str | None,
    live: Collection[str] = (),
) -> list[ListRow]:
    """One row per full-text hit (``items``: each hit's session): the session's title and the
    text around the match."""
    rows: list[ListRow] = []
    for hit, item in zip(hits, items, strict=True):
        snippet = one_line(hit.snippet) or "(the entry is no longer in the file)"
        rows.append(
            ListRow(
                key=f"{hit.path}#{hit.entry_id}",
                path=hit.path,
                title=display_title(item),
                snippet=snippet,
                match=find_match(snippet, query),
                named=has_name(item.name),
                current=hit.path == current,
                live=hit.path in live,
            )
        )
    return rows


class PickerLoader:
    """The picker's workers' bodies, over one catalog.

    ``cancel`` is set when the screen goes (loads stop early); ``rows_painted`` once the first
    rows were drawn (a first load waits for it, so the paint gets the GIL); ``filter_lock``
    guards the search caches, which are not shared between threads."""

    def __init__(self, catalog: Catalog, current_session: str | None) -> None:
        self.catalog = catalog
        self.current_session = current_session
        self.cancel = threading.Event()
        self.rows_painted = threading.Event()
        self.filter_lock = threading.Lock()
        # the newest filter asked for: one asked before it is dropped unstarted (keys typed while
        # a query is filtered never queue; only the latest query is filtered and drawn)
        self.wanted: tuple[object, ...] | None = None
        # the rows of recent queries over the listing filtered last (a backspace gives a query
        # typed a moment ago: its rows again, without filtering); emptied when the listing changes
        self._recent_items: Sequence[PickerItem] | None = None
        self._recent: dict[tuple[object, ...], list[Row[Any]]] = {}
        # a listing searched whose texts' phrase forms are not made yet (see prepare_phrases)
        self.prepare_due: Sequence[PickerItem] | None = None
        self._prepared_items: Sequence[PickerItem] | None = None

    def load(self, scope: Scope, generation: int, partial: bool, post: Post) -> None:
        """Load a scope; while a first load runs, post the progress and the sessions read so far
        — both throttled: every repaint of 10,000 rows takes the GIL from the parsing."""
        cancel = self.cancel
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
            post(ScopeProgress(scope, generation, loaded, total))

        def batch(items: Sequence[PickerItem]) -> None:
            found.extend(items)
            if not partial or cancel.is_set() or counts[0] == counts[1]:
                return  # (a batch that completes the load is followed by the whole list)
            now = time.monotonic()
            if now >= next_partial[0]:
                next_partial[0] = now + next_partial[1]
                next_partial[1] = min(next_partial[1] * 2, PARTIAL_INTERVAL_MAX)
                post(ScopePartial(scope, generation, sort_items(found)))
                # the rest of the load would take the GIL from the first paint: wait for it
                self.rows_painted.wait(FIRST_PAINT_WAIT)

        try:
            items = self.catalog.load(scope, progress, batch, cancel)
        except Exception as exc:  # a store failure is a status line, never a crash
            post(ScopeLoaded(scope, generation, (), f"{type(exc).__name__}: {exc}"))
            return
        if cancel.is_set():
            return
        post(ScopeLoaded(scope, generation, items, None))
        try:  # (after the rows are shown: a first search then finds what it needs)
            self.catalog.prepare_search(items, cancel)
        except Exception:  # only a slower first search
            return

    def filtered(self, request: FilterRequest, live: Collection[str]) -> RowsFiltered:
        """The rows of a request (the caller holds ``filter_lock``)."""
        if request.items is not self._recent_items:
            self._recent_items, self._recent = request.items, {}
        key = (request.query, request.mode, request.named)
        rows = self._recent.pop(key, None)
        if rows is None:
            try:
                rows = self.catalog.rows(request.items, request.query, request.mode, request.named)
            except RegexTooSlow as exc:
                return RowsFiltered(request.key, [], [], request.keep, error=str(exc))
        if js_trim(request.query) and request.items is not self._prepared_items:
            self.prepare_due = request.items  # (the search has read and lowered the texts)
        self._recent[key] = rows  # (the newest last)
        while len(self._recent) > RECENT_RESULTS:
            del self._recent[next(iter(self._recent))]
        pinned = request.pinned
        if pinned and not js_trim(request.query):
            rows = pinned_first(rows, pinned)  # (a search keeps its order: pins only marked)
        display = list_rows(
            rows,
            current=self.current_session,
            all_scope=request.scope == "all",
            show_path=request.show_path,
            live=live,
            pinned=pinned,
        )
        return RowsFiltered(request.key, [row.item for row in rows], display, request.keep)

    def prepare_phrases(self, cancelled: Callable[[], bool]) -> None:
        """Make the phrase forms of the texts of the listing searched last (a worker's body,
        started once a search over a new listing is shown): the listing's first ``"phrase"``
        query then finds them made. Pauses while a key's filter runs."""
        items = self.prepare_due
        if items is None:
            return
        self.prepare_due, self._prepared_items = None, items
        texts = [item.search_text for item in items]

        def stop() -> bool:
            while self.filter_lock.locked() and not cancelled():
                time.sleep(PREPARE_YIELD)  # a key's filter first (it makes what it needs)
            return cancelled() or self.cancel.is_set()

        prepare_phrase_texts(texts, stop)

    def filter(
        self,
        request: FilterRequest,
        live: Collection[str],
        post: Post,
        cancelled: Callable[[], bool],
    ) -> None:
        with self.filter_lock:
            if cancelled() or request.key != self.wanted:
                return
            filtered = self.filtered(request, live)
        post(filtered)

    def full_text(
        self,
        query: str,
        scope: Scope,
        post: Post,
        cancelled: Callable[[], bool],
        failed: Callable[[str], object],
    ) -> None:
        """Search every message body; ``failed`` gets the reason when the search fails."""
        if not js_trim(query):
            post(HitsFound(query, scope, ()))
            return

        def progress(done: int, total: int) -> None:
            if not cancelled():
                post(IndexProgress(done, total))

        try:
            hits = self.catalog.full_text(query, scope, progress)
        except Exception as exc:
            failed(f"Full-text search failed: {exc}")
            return
        if not cancelled():
            post(HitsFound(query, scope, hits))
