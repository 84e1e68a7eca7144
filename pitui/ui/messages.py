"""Messages that cross widgets: what workers post to the screen that started them.

Workers never touch widgets; they post one of these (``post_message`` is thread-safe) and the
screen's handlers change its state. High-rate ones are replaceable: the queue keeps the newest.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from textual.message import Message

if TYPE_CHECKING:
    from pitui.ui.catalog import FullTextHit, PickerItem, Scope
    from pitui.ui.widgets.session_list import ListRow


# ------------------------------------------------------------------------------- the app
class FirstFrameShown(Message):
    """The app's first frame is on the terminal (sent to the screen it shows): work that would
    only have slowed that frame down can start."""


# ------------------------------------------------------------------------ the picker's loads
class ScopeLoaded(Message):
    """A load of a scope ended: every session of it, or the error that stopped it."""

    def __init__(
        self, scope: Scope, generation: int, items: Sequence[PickerItem], error: str | None
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
        return isinstance(message, ScopePartial) and message.scope == self.scope


class ScopeProgress(Message):
    def __init__(self, scope: Scope, generation: int, loaded: int, total: int) -> None:
        super().__init__()
        self.scope = scope
        self.generation = generation
        self.loaded = loaded
        self.total = total

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, ScopeProgress) and message.scope == self.scope


class RowsFiltered(Message):
    """The rows of a query over a scope's sessions (``key``: the request they answer)."""

    def __init__(
        self,
        key: tuple[object, ...],
        items: list[PickerItem],
        rows: Sequence[ListRow],
        keep: str | None,
        error: str | None = None,
    ) -> None:
        super().__init__()
        self.key = key
        self.items = items
        self.rows = rows
        self.keep = keep
        self.error = error  # why there are no rows (a re: pattern too slow to search)


class HitsFound(Message):
    """Full-text hits for ``query`` in ``scope``, best first."""

    def __init__(self, query: str, scope: Scope, hits: Sequence[FullTextHit]) -> None:
        super().__init__()
        self.query = query
        self.scope = scope
        self.hits = hits


class LabelsListed(Message):
    """The rows of a ``label:`` query: one per label of the sessions ``items`` (the scope's
    list the rows were made from), newest first; ``hits`` name each row's entry, ``sessions``
    its session."""

    def __init__(
        self,
        query: str,
        scope: Scope,
        items: Sequence[PickerItem],
        hits: Sequence[FullTextHit],
        sessions: Sequence[PickerItem],
        rows: Sequence[ListRow],
    ) -> None:
        super().__init__()
        self.query = query
        self.scope = scope
        self.items = items
        self.hits = hits
        self.sessions = sessions
        self.rows = rows


class IndexProgress(Message):
    """How far the full-text index has read the message bodies."""

    def __init__(self, done: int, total: int) -> None:
        super().__init__()
        self.done = done
        self.total = total

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, IndexProgress)
