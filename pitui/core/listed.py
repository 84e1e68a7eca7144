"""A listed session as ``pitui list --json`` needs it, without a :class:`SessionInfo`.

A warm ``pitui list --json`` makes one :class:`Listed` per session from the index's row (the sort
and filter fields, and the session's element of the JSON array, ready to print), where the
picker makes a :class:`~pitui.core.session_info.SessionInfo`. Nothing here imports the session
records, the search or orjson: a warm listing needs none of them.
"""

from __future__ import annotations

import operator
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from pitui.core.session_info import SessionInfo

__all__ = ["Listed", "modified_of", "path_of"]


class Listed(NamedTuple):
    """A listed session as ``pitui list --json`` needs it: what orders and filters it, and its
    element of the JSON array (:func:`~pitui.core.session_info.listing_element`; ``None`` when
    orjson cannot write it). A :class:`~pitui.core.session_info.SearchableSession` whose
    searchable text has no message text (like a :class:`SessionInfo` before its texts are
    loaded)."""

    path: str
    modified: int
    parent_session_path: str | None
    name: str | None
    cwd: str
    id: str
    listing: bytes | None

    @property
    def search_text(self) -> str:
        from pitui.core.session_info import searchable_text

        return searchable_text(self.id, self.name, "", self.cwd)

    @classmethod
    def of(cls, info: SessionInfo, listing: bytes | None) -> Listed:
        return cls(
            info.path, info.modified, info.parent_session_path, info.name, info.cwd, info.id,
            listing,
        )  # fmt: skip


# sort keys of Listed records (path, modified) at C speed
path_of = operator.itemgetter(0)
modified_of = operator.itemgetter(1)
