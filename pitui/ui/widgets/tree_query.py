"""The branch tree's search query as it is typed (ui-behaviour §3.10): which keys type into it,
and the query while the searchable texts are still being read.

Searching needs the text of every entry. A thread worker of the tree reads them (at once for a
small session, on the first keystroke for a big one); a query typed meanwhile is pending (the
search line shows ``…``) and applied when they arrive (:class:`TextsRead`). When the file is
replaced, texts still being read belong to the old file and are dropped.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Literal

from textual import events
from textual.message import Message
from textual.worker import get_current_worker

from pitui.core.tree_search import SearchIndex

if TYPE_CHECKING:
    from pitui.ui.widgets.branch_tree import BranchTree

GROUP = "branch-tree-search"  # the tree's worker that reads the searchable texts
_COMMAND_KEYS = frozenset({"L", "T", "D", "shift+l", "shift+t", "shift+d"})  # D: prune


def typed_text(event: events.Key) -> str | None:
    """The text ``event`` types into the search: printable input; ``L``, ``T`` and ``D`` stay
    commands (None), and so does a key with alt or ctrl (``alt+l``: its character is ``l``)."""
    if event.key in _COMMAND_KEYS or not event.is_printable or not event.character:
        return None
    modifiers = event.key.split("+")[:-1]
    if "alt" in modifiers or "ctrl" in modifiers:
        return None
    return event.character


class TextsRead(Message):
    """The tree's searchable texts were read (``index`` None: the file could not be read)."""

    def __init__(self, index: SearchIndex | None, epoch: int) -> None:
        super().__init__()
        self.index = index
        self.epoch = epoch


class TreeQuery:
    """The query of one tree and the reading of its searchable texts."""

    def __init__(self, tree: BranchTree, *, in_background: bool) -> None:
        """``in_background``: read the texts in a worker (else the first query reads them)."""
        self.tree = tree
        self.in_background = in_background
        self.pending: str | None = None  # typed before the searchable texts were ready
        self._reading = False  # the worker is running
        self._epoch = 0  # bumped when the file is replaced: older results are dropped

    @property
    def text(self) -> str:
        """The query as typed (pending or applied)."""
        return self.pending if self.pending is not None else self.tree.model.query

    def small_session(self) -> bool:
        """Small enough for its texts to be read as soon as the tree is shown."""
        return len(self.tree.model.session.entries) <= self.tree.PREFETCH_ENTRIES

    def set(self, query: str) -> None:
        """Search for ``query`` now, or once the texts are read."""
        model = self.tree.model
        if model.search_ready or not self.in_background:
            model.set_query(query)
        else:
            self.pending = query  # applied when the worker's texts arrive
            model.clear_folds()  # as any query change does (§3.10)
            self.prefetch()

    def drop_pending(self) -> bool:
        """Forget a pending query (``escape``); False when none was pending."""
        if not self.pending:
            return False
        self.pending = None
        return True

    def prefetch(self) -> None:
        """Start reading the searchable texts now if not done or running."""
        model = self.tree.model
        if not self.in_background or model.search_ready or self._reading:
            return
        self._reading = True
        if model.count:
            # read one entry here first: Session.raw opens its file lazily, and two threads
            # doing that at once would each open it
            model.row(model.selected_index)
        self.tree.run_worker(
            self._read, name="_read_search_texts", group=GROUP, thread=True, exclusive=True,
            exit_on_error=False,
        )  # fmt: skip

    def _read(self) -> None:
        worker = get_current_worker()
        epoch = self._epoch

        def cancelled() -> bool:
            time.sleep(0)  # let the event loop have the interpreter: keys stay responsive
            return worker.is_cancelled

        try:
            index = self.tree.model.compute_search_texts(cancelled=cancelled)
        except OSError:
            index = None  # the file vanished or was replaced: the query finds nothing
        if not worker.is_cancelled:
            self.tree.post_message(TextsRead(index, epoch))

    def texts_read(self, message: TextsRead) -> Literal["stale", "applied", "dropped"]:
        """Take the texts read: ``dropped`` when a pending query could not be searched (the
        file could not be read), ``stale`` when they belong to a file since replaced."""
        if message.epoch != self._epoch:
            return "stale"
        self._reading = False
        model = self.tree.model
        if message.index is not None:
            model.set_search_texts(message.index)
        query, self.pending = self.pending, None
        if query is not None and model.search_ready:
            model.set_query(query)
        elif query:  # the file could not be read: there is nothing to search
            return "dropped"
        return "applied"

    def file_replaced(self) -> None:
        """Texts being read belong to the old file: drop them."""
        self.tree.workers.cancel_group(self.tree, GROUP)
        self._epoch += 1
        self._reading = False
