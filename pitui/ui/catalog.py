"""What the picker needs from the session store, as one small interface.

The picker never touches files itself: it asks a :class:`Catalog` (in a worker thread) for the
sessions of a scope, for the rows of a query, for full-text hits, and for the folder to follow.
Tests pass catalogs over in-memory items or temp stores; the app passes :class:`StoreCatalog`.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol, cast

from pitui.core import paths
from pitui.core.fulltext import hit_snippet
from pitui.core.labels import ListedLabel, listed_labels
from pitui.core.search import Row
from pitui.core.session_info import ListedSession, SessionInfo
from pitui.core.store import Store

Scope = Literal["current", "all"]
SortMode = Literal["threaded", "recent", "relevance"]


#: One listed session, as the picker reads it (the store's ``SessionInfo`` is one).
PickerItem = ListedSession


@dataclass(frozen=True, slots=True)
class FullTextHit:
    path: str
    entry_id: str
    snippet: str  # one line around the match, not yet sanitized for display


Progress = Callable[[int, int], None]  # (done, total)
Batch = Callable[[Sequence[PickerItem]], None]  # sessions ready so far (unsorted, new ones only)


def sort_items(items: Sequence[PickerItem]) -> list[PickerItem]:
    """pi's listing order: newest ``modified`` first; ties by path (the store's order too)."""
    return sorted(items, key=lambda item: (-item.modified, item.path))


class Catalog(Protocol):
    def load(
        self,
        scope: Scope,
        on_progress: Progress,
        on_batch: Batch | None = None,
        cancel: threading.Event | None = None,
    ) -> Sequence[PickerItem]:
        """Every session of the scope, newest first (blocking: call it from a worker).

        ``on_batch`` receives sessions as they become ready (cached ones first) so the picker can
        paint before the whole scope is read; ``cancel`` stops a load early (its result is then
        incomplete and must be dropped).
        """
        ...

    def first_page(self, scope: Scope) -> Sequence[PickerItem]:
        """The scope's newest sessions if they are known already (read ahead before the app
        started; this never reads): shown in the first frame, before the load ends."""
        ...

    def rows(
        self, items: Sequence[PickerItem], query: str, mode: SortMode, named_only: bool
    ) -> list[Row[Any]]:
        """The picker's rows for a query (blocking: it may read the searched texts first)."""
        ...

    def full_text(
        self, query: str, scope: Scope, on_progress: Progress | None = None
    ) -> Sequence[FullTextHit]:
        """Message bodies matching ``query``, best first (blocking; the first call may index)."""
        ...

    def labels(self, items: Sequence[PickerItem]) -> Sequence[ListedLabel]:
        """Every label of the sessions ``items`` (as this catalog listed them), newest first:
        read with them from the index, no file is opened."""
        ...

    def prepare_search(
        self, items: Sequence[PickerItem], cancel: threading.Event | None = None
    ) -> None:
        """Make the first search over ``items`` quick: read what it would need and the cache
        lacks (blocking, meant for after a load; nothing to do most of the time)."""
        ...

    def watch_root(self) -> str | None:
        """The folder whose changes change the listing (``None``: nothing to follow)."""
        ...

    def unreadable_folders(self) -> Mapping[str, str]:
        """The folders the last load found but could not read (folder → why, the OS's words):
        their sessions are missing from it."""
        ...


class StoreCatalog:
    """The picker's view of :class:`pitui.core.store.Store`."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._fts_ready: set[Scope] = set()  # scopes whose full-text index is up to date
        self._lock = threading.Lock()
        self._read_ahead: dict[Scope, list[SessionInfo]] = {}
        self._listed: set[Scope] = set()  # scopes loaded to the end once
        # the labels of the last list asked for (a list is replaced, never changed, on a load)
        self._labels: tuple[Sequence[PickerItem], Sequence[ListedLabel]] | None = None

    def read_ahead(self, scope: Scope) -> None:
        """Read ``scope``'s first page now, before the app starts (a few milliseconds from the
        index, tens when the newest-named sessions are read: see ``Store.first_page``). Not in
        a thread: it would wait for the GIL after every system call while the main thread
        imports Textual."""
        try:
            self._read_ahead[scope] = self.store.first_page(scope)
        except Exception:  # a damaged cache is only no first page
            self._read_ahead[scope] = []

    def first_page(self, scope: Scope) -> Sequence[PickerItem]:
        return self._read_ahead.get(scope, [])

    def load(
        self,
        scope: Scope,
        on_progress: Progress,
        on_batch: Batch | None = None,
        cancel: threading.Event | None = None,
    ) -> Sequence[PickerItem]:
        shown: set[str] = set()
        if on_batch is not None and scope not in self._listed:
            # the newest sessions of the last run, each file checked: painted before the rest
            # (a later load of the scope replaces rows already shown: nothing to paint early)
            ahead = self._read_ahead.pop(scope, None)
            early = ahead if ahead is not None else self.store.first_page(scope)
            if early:
                on_batch(early)
                shown = {info.path for info in early}
        found: list[SessionInfo] = []
        for batch in self.store.iter_load(scope, progress=on_progress, cancel=cancel):
            found.extend(batch)
            if on_batch is not None:
                on_batch([info for info in batch if info.path not in shown] if shown else batch)
        with self._lock:
            self._fts_ready.clear()  # a (re)load means files changed: re-sync before searching
        items = sort_items(found)
        if not (cancel is not None and cancel.is_set()):
            self._listed.add(scope)
        return items

    def rows(
        self, items: Sequence[PickerItem], query: str, mode: SortMode, named_only: bool
    ) -> list[Row[Any]]:
        return list(self.store.rows(cast("Sequence[SessionInfo]", items), query, mode, named_only))

    def labels(self, items: Sequence[PickerItem]) -> Sequence[ListedLabel]:
        with self._lock:
            if self._labels is not None and self._labels[0] is items:
                return self._labels[1]  # (every key typed after label: asks again)
        found = listed_labels(items)
        with self._lock:
            self._labels = (items, found)
        return found

    def prepare_search(
        self, items: Sequence[PickerItem], cancel: threading.Event | None = None
    ) -> None:
        # texts a `pitui list` without --search left out of the index (see Store.index_texts)
        self.store.index_texts(cast("Sequence[SessionInfo]", items), cancel)

    def full_text(
        self, query: str, scope: Scope, on_progress: Progress | None = None
    ) -> Sequence[FullTextHit]:
        with self._lock:
            ready = scope in self._fts_ready
        if not ready:
            # the first search reads every message body; later ones only what was appended
            self.store.sync_fts(scope, progress=on_progress)
            with self._lock:
                self._fts_ready.add(scope)
        hits = self.store.text_search(query, scope=scope, limit=200)
        return [FullTextHit(hit.path, hit.entry_id, hit_snippet(hit, query)) for hit in hits]

    def watch_root(self) -> str | None:
        if self.store.session_dir is not None:
            return self.store.session_dir
        return os.fspath(paths.sessions_root(self.store.agent))

    def unreadable_folders(self) -> Mapping[str, str]:
        return self.store.unreadable_folders
