"""Searching the rows of pi's tree selector (spec/ui-behaviour.md §3.10): the searchable text of
every entry, read once (in a worker), and the rows that hold every word of a query.

:class:`SearchIndex` is what a worker reads off the file; :class:`RowMatcher` answers queries
over the texts of the rows as :class:`pitui.core.treeview.TreeView` orders them.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from itertools import accumulate, compress, repeat
from operator import add
from typing import Any

from pitui.core.session import EntryMeta, Session
from pitui.core.tree_text import searchable_text, tool_calls_of

__all__ = ["RowMatcher", "SearchIndex", "read_search_index"]


@dataclass(frozen=True, slots=True)
class SearchIndex:
    """Lower-cased searchable text per entry uid (label excluded: it is added live) and every
    assistant ``toolCall`` by id (the last one in file order wins)."""

    texts: dict[str, str]
    tool_calls: dict[str, tuple[Any, Any]]
    covers: int = 0  # the first ``covers`` entries of the session were all read (0: a subset)
    rows: list[EntryMeta] | None = None  # the rows ``by_row`` is aligned with
    by_row: list[str] | None = None

    def merged(self, newer: SearchIndex, rows: list[EntryMeta]) -> SearchIndex:
        """Both indexes in one (``newer`` wins); its rows text is kept if it is for ``rows``."""
        keep = newer.by_row is not None and newer.rows is rows
        return SearchIndex(
            {**self.texts, **newer.texts},
            {**self.tool_calls, **newer.tool_calls},
            max(self.covers, newer.covers),
            newer.rows if keep else None,
            newer.by_row if keep else None,
        )


def read_search_index(
    session: Session,
    entries: list[EntryMeta],
    *,
    rows: bool,
    cancelled: Callable[[], bool] | None = None,
) -> SearchIndex:
    """Read ``entries`` of ``session``: their searchable texts and the tool calls. ``rows``:
    ``entries`` are a view's rows, kept with their texts in that order when all were read.

    A partial index comes back if ``cancelled()`` turns true (asked every 256 entries)."""
    texts: dict[str, str] = {}
    by_row: list[str] = []
    tool_calls: dict[str, tuple[Any, Any]] = {}
    raw = session.raw
    complete = True
    for count, meta in enumerate(entries):
        if cancelled is not None and count % 256 == 0 and cancelled():
            complete = False
            break
        obj = raw(meta)
        if meta.type == "message" and meta.role == "assistant":
            for block_id, name, arguments in tool_calls_of(obj):
                tool_calls[block_id] = (name, arguments)
        text = searchable_text(obj).lower()
        texts[meta.uid] = text
        by_row.append(text)
    if rows and complete:
        return SearchIndex(texts, tool_calls, len(entries), entries, by_row)
    return SearchIndex(texts, tool_calls)


class RowMatcher:
    """The rows whose text holds every query word, over one list of row texts (lower-cased,
    labels included); made again whenever the rows or their texts change."""

    __slots__ = ("_blob", "_last", "texts")

    def __init__(self, texts: list[str]) -> None:
        self.texts = texts
        self._blob: tuple[bytes, list[int]] | None = None  # rows joined, row offsets
        # (filter and folds, tokens, matching rows) of the last search, to narrow while typing
        self._last: tuple[Any, list[str], list[int]] | None = None

    def matches(self, words: Iterable[str], mask: bytearray, key: Any) -> list[int]:
        """Rows allowed by ``mask`` whose text holds every word (§3.10). ``key`` names what
        made ``mask`` (filter and folds).

        Typing only adds to a query, so when every word of the previous search is part of a
        word of this one (same key), only the previous matches are checked. A rare word is
        found with ``bytes.find`` over all texts joined as UTF-8 (a UTF-8 match is a character
        match), jumping to the next row after each hit: the cost follows the number of matching
        rows. A word holds no white space, so no match spans the separator."""
        texts = self.texts
        tokens = sorted(words, key=len, reverse=True)
        last = self._last
        if (
            last is not None
            and last[0] == key
            and all(any(old in new for new in tokens) for old in last[1])
        ):
            hits = last[2]
        else:
            hits = self._find_rows(tokens[0], mask)
        for token in tokens:
            hits = [row for row in hits if token in texts[row]]
        self._last = (key, tokens, hits)
        return hits

    def _find_rows(self, token: str, mask: bytearray) -> list[int]:
        texts = self.texts
        if self._blob is None:
            encoded = [text.encode("utf-8", "surrogatepass") for text in texts]
            starts = list(accumulate(map(add, map(len, encoded), repeat(1)), initial=0))
            self._blob = (b"\n".join(encoded), starts)
        blob, starts = self._blob
        needle = token.encode("utf-8", "surrogatepass")
        if blob.count(needle) * 8 > len(texts):
            # common: testing each allowed row costs less than one jump per hit
            return list(compress(range(len(texts)), mask))
        find = blob.find
        hits: list[int] = []
        position = find(needle)
        while position >= 0:
            row = bisect_right(starts, position) - 1
            if mask[row]:
                hits.append(row)
            position = find(needle, starts[row + 1])
        return hits
