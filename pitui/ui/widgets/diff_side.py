"""One side of a branch diff: its spend, the files it touched, the tools it ran, its entries.

A Line API widget (a side can be a whole branch of 100,000 entries): a row is made from the
:class:`~pitui.core.diff.Side` when it is drawn, as (text, component class) pieces, with every
piece of session text made safe (:func:`~pitui.render.safe_text.one_line`: control characters
shown, never markup), and cached.
"""

from __future__ import annotations

from typing import ClassVar

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.cache import LRUCache
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip

from pitui.core.diff import DiffEntry, FileTouch, Side
from pitui.core.paths import shorten_home
from pitui.core.units import format_count
from pitui.render.safe_text import one_line
from pitui.ui.widgets.tree_row import cut_to_width

__all__ = ["DiffSideView", "Piece", "Row", "SideRows"]

Piece = tuple[str, str]  # (safe text, component class or "" for the plain text colour)
Row = tuple[Piece, ...]

# pi's theme names of the tree's row text → this widget's component classes
_ROLE_CLASS = {
    "": "",
    "accent": "diff-side--accent",
    "success": "diff-side--success",
    "muted": "diff-side--muted",
    "dim": "diff-side--dim",
    "warning": "diff-side--warning",
    "error": "diff-side--error",
    "borderAccent": "diff-side--border-accent",
    "customMessageLabel": "diff-side--custom-label",
}
_ID_CELLS = 10  # an entry id column (pi's ids are 8 hex digits)


class SideRows:
    """The rows of one side: its spend, then Files, Tools and Entries. A row of a file or an
    entry is made when it is asked for (a side can hold a whole branch: only the rows drawn
    cost anything)."""

    def __init__(self, side: Side, home: str | None = None) -> None:
        self.side = side
        self.home = home
        files, tools, entries = side.files, side.tools, side.entries
        self._head: list[Row] = [
            (("Spend ", "diff-side--heading"), (side.summary(), "diff-side--summary")),
            (),
            ((f"Files ({format_count(len(files))})", "diff-side--heading"),),
        ]
        if not files:
            self._head.append((("  none (no edit or write call)", "diff-side--dim"),))
        calls = format_count(sum(tools.values()))
        names = " · ".join(f"{one_line(name)} {format_count(n)}" for name, n in tools.items())
        self._middle: list[Row] = [
            (),
            ((f"Tools ({calls} calls)", "diff-side--heading"),),
            (("  " + names, ""),) if tools else (("  none", "diff-side--dim"),),
            (),
            ((f"Entries ({format_count(len(entries))})", "diff-side--heading"),),
        ]
        if not entries:
            self._middle.append((("  nothing after the common ancestor", "diff-side--dim"),))
        self._files_at = len(self._head)
        self._middle_at = self._files_at + len(files)
        self._entries_at = self._middle_at + len(self._middle)

    def __len__(self) -> int:
        return self._entries_at + len(self.side.entries)

    def row(self, index: int) -> Row:
        if index < self._files_at:
            return self._head[index]
        if index < self._middle_at:
            return self._file_row(self.side.files[index - self._files_at])
        if index < self._entries_at:
            return self._middle[index - self._middle_at]
        return self._entry_row(self.side.entries[index - self._entries_at])

    def all(self) -> list[Row]:
        return [self.row(index) for index in range(len(self))]

    def _file_row(self, touch: FileTouch) -> Row:
        counts = (f"  {touch.counts()}", "diff-side--error" if touch.failed else "diff-side--muted")
        return (("  " + one_line(shorten_home(touch.path, self.home)), ""), counts)

    def _entry_row(self, entry: DiffEntry) -> Row:
        pieces: list[Piece] = [(f"  {one_line(entry.meta.uid):<{_ID_CELLS}} ", "diff-side--id")]
        for part in entry.parts:
            style = _ROLE_CLASS.get(part.role, "")
            if part.italic:
                style = style or "diff-side--dim"
            pieces.append((one_line(part.text), style))
        return tuple(pieces)


class DiffSideView(ScrollView, can_focus=True):
    """The rows of one side, scrolled with the usual keys; its title names the side and tip."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "diff-side--heading", "diff-side--summary", "diff-side--id", *_ROLE_CLASS.values(),
    } - {""}  # fmt: skip

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._rows: SideRows | None = None
        self._cache: LRUCache[tuple[int, int], Strip] = LRUCache(1024)

    def show(self, title: Text, rows: SideRows) -> None:
        self.border_title = title
        self._rows = rows
        self._cache.clear()
        self.virtual_size = Size(self.size.width, len(rows))
        self.scroll_to(0, 0, animate=False)
        self.refresh()

    def plain_lines(self) -> list[str]:
        """The rows as text (tests)."""
        rows = self._rows.all() if self._rows is not None else []
        return ["".join(text for text, _ in row) for row in rows]

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._cache.clear()

    def on_resize(self) -> None:
        self.virtual_size = Size(self.size.width, len(self._rows) if self._rows is not None else 0)
        self._cache.clear()

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        index = y + round(self.scroll_offset.y)
        base = self.rich_style
        rows = self._rows
        if rows is None or not 0 <= index < len(rows):
            return Strip.blank(width, base)
        key = (index, width)
        cached = self._cache.get(key)
        if cached is not None:
            return cached
        style_of = self.get_component_rich_style
        pieces: list[tuple[str, Style]] = [
            (text, style_of(name) if name else base) for text, name in rows.row(index)
        ]
        strip = Strip(
            [Segment(text, style) for text, style in cut_to_width(pieces, width) if text]
        ).adjust_cell_length(width, base)
        self._cache[key] = strip
        return strip
