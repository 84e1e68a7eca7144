"""One side of a branch diff: its spend, the files it touched, the tools it ran, its entries.

A Line API widget (a side can be a whole branch of 100,000 entries): the rows are built once from
the :class:`~pitui.core.diff.Side` as (text, component class) pieces, with every piece of session
text made safe (:func:`~pitui.render.safe_text.one_line`: control characters shown, never markup);
only the rows on screen are drawn, and cached.
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

from pitui.core.diff import Side
from pitui.core.paths import shorten_home
from pitui.core.units import format_count
from pitui.render.safe_text import one_line
from pitui.ui.widgets.branch_tree import cut_to_width

__all__ = ["DiffSideView", "Piece", "Row", "side_rows"]

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


def side_rows(side: Side, home: str | None = None) -> list[Row]:
    """The rows of one side: its spend, then Files, Tools and Entries (pure, for tests)."""
    rows: list[Row] = [(("Spend ", "diff-side--heading"), (side.summary(), "diff-side--summary"))]
    rows.append(())
    rows.append(((f"Files ({format_count(len(side.files))})", "diff-side--heading"),))
    for touch in side.files:
        counts = (f"  {touch.counts()}", "diff-side--error" if touch.failed else "diff-side--muted")
        rows.append((("  " + one_line(shorten_home(touch.path, home)), ""), counts))
    if not side.files:
        rows.append((("  none (no edit or write call)", "diff-side--dim"),))
    rows.append(())
    rows.append(
        ((f"Tools ({format_count(sum(side.tools.values()))} calls)", "diff-side--heading"),)
    )
    if side.tools:
        tools = " · ".join(f"{one_line(name)} {format_count(n)}" for name, n in side.tools.items())
        rows.append((("  " + tools, ""),))
    else:
        rows.append((("  none", "diff-side--dim"),))
    rows.append(())
    rows.append(((f"Entries ({format_count(len(side.entries))})", "diff-side--heading"),))
    for entry in side.entries:
        pieces: list[Piece] = [(f"  {one_line(entry.meta.uid):<{_ID_CELLS}} ", "diff-side--id")]
        for part in entry.parts:
            style = _ROLE_CLASS.get(part.role, "")
            if part.italic:
                style = style or "diff-side--dim"
            pieces.append((one_line(part.text), style))
        rows.append(tuple(pieces))
    if not side.entries:
        rows.append((("  nothing after the common ancestor", "diff-side--dim"),))
    return rows


class DiffSideView(ScrollView, can_focus=True):
    """The rows of one side, scrolled with the usual keys; its title names the side and tip."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "diff-side--heading", "diff-side--summary", "diff-side--id", *_ROLE_CLASS.values(),
    } - {""}  # fmt: skip

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._rows: list[Row] = []
        self._cache: LRUCache[tuple[int, int], Strip] = LRUCache(1024)

    def show(self, title: Text, rows: list[Row]) -> None:
        self.border_title = title
        self._rows = rows
        self._cache.clear()
        self.virtual_size = Size(self.size.width, len(rows))
        self.scroll_to(0, 0, animate=False)
        self.refresh()

    def plain_lines(self) -> list[str]:
        """The rows as text (tests)."""
        return ["".join(text for text, _ in row) for row in self._rows]

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._cache.clear()

    def on_resize(self) -> None:
        self.virtual_size = Size(self.size.width, len(self._rows))
        self._cache.clear()

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        index = y + round(self.scroll_offset.y)
        base = self.rich_style
        if not 0 <= index < len(self._rows):
            return Strip.blank(width, base)
        key = (index, width)
        cached = self._cache.get(key)
        if cached is not None:
            return cached
        style_of = self.get_component_rich_style
        pieces: list[tuple[str, Style]] = [
            (text, style_of(name) if name else base) for text, name in self._rows[index]
        ]
        strip = Strip(
            [Segment(text, style) for text, style in cut_to_width(pieces, width) if text]
        ).adjust_cell_length(width, base)
        self._cache[key] = strip
        return strip
