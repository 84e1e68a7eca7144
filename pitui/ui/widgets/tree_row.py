"""How one row of the branch tree is drawn: a :class:`~pitui.core.treeview.RowView` into a
:class:`Strip` of the widget's width, cut as pi cuts it (ui-behaviour §3.1).

The colours are the tree's component classes (``style_of`` looks them up); the widget caches the
strips (:class:`~pitui.ui.widgets.branch_tree.BranchTree`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from rich.cells import cell_len, split_graphemes
from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip

from pitui.core.treeview import RowView
from pitui.render.safe_text import one_line

#: pi's theme names → component classes (their colours come from theme variables in session.tcss)
ROLE_CLASS: dict[str, str] = {
    "accent": "branch-tree--accent",
    "success": "branch-tree--success",
    "muted": "branch-tree--muted",
    "dim": "branch-tree--dim",
    "warning": "branch-tree--warning",
    "error": "branch-tree--error",
    "borderAccent": "branch-tree--border-accent",
    "customMessageLabel": "branch-tree--custom-label",
}
ELLIPSIS = "..."
DIFF_MARK = "◆"  # in the row of the entry marked to compare (alt+m)


def cut_to_width(pieces: list[tuple[str, Style]], width: int) -> list[tuple[str, Style]]:
    """§3.1: a row wider than ``width`` cells keeps the longest run of whole grapheme clusters
    that fits in ``width − 3`` cells, then ``...``."""
    sizes = [cell_len(text) for text, _ in pieces]
    if sum(sizes) <= width:
        return pieces
    room = max(0, width - len(ELLIPSIS))
    out: list[tuple[str, Style]] = []
    used = 0
    last_style = pieces[0][1] if pieces else Style()
    for (text, style), size in zip(pieces, sizes, strict=True):
        last_style = style
        if used + size <= room:
            out.append((text, style))
            used += size
            continue
        out.append((_head(text, size, room - used), style))
        break
    out.append((ELLIPSIS[: max(0, width)], last_style))
    return out


def _head(text: str, size: int, cells: int) -> str:
    """The longest run of whole grapheme clusters of ``text`` that fits in ``cells``."""
    if size == len(text):  # one cell per character (connectors, ASCII): no clusters to keep
        return text[:cells]
    # only look at what can fit (zero-width marks take no cell, hence the margin); the last
    # cluster of a cut slice may be incomplete, so it is dropped
    limit = cells * 4 + 16
    sliced = len(text) > limit
    spans, _ = split_graphemes(text[:limit] if sliced else text)
    if sliced and spans:
        spans.pop()
    keep = used = 0
    for _start, end, width in spans:
        if used + width > cells:
            break
        used += width
        keep = end
    return text[:keep]


def row_strip(
    row: RowView,
    width: int,
    base: Style,
    style_of: Callable[[str], Style],
    compact: Sequence[Segment] | None = None,
    *,
    marked: bool = False,
) -> Strip:
    """``row`` drawn in ``width`` cells over the widget's ``base`` style; ``compact``: a
    plug-in's one-line form of the entry (its segments), drawn instead of the row's text;
    ``marked``: the entry marked to compare (:data:`DIFF_MARK`)."""
    line_style = base
    # Component styles carry the widget's background; on the selected row the cursor's
    # background (and bold) is laid over each piece last, so no colour hides it.
    overlay = Style()
    if row.selected:
        cursor = style_of("branch-tree--cursor")
        overlay = Style(bgcolor=cursor.bgcolor, bold=cursor.bold, italic=cursor.italic)
        line_style = base + cursor

    def styled(name: str) -> Style:
        return style_of(name) + overlay

    pieces: list[tuple[str, Style]] = [
        ("› ", styled("branch-tree--pointer")) if row.selected else ("  ", line_style),
        (row.prefix, styled("branch-tree--prefix")),
    ]
    if marked:
        pieces.append((f"{DIFF_MARK} ", styled("branch-tree--marker")))
    if row.fold_marker:
        pieces.append(("⊞ ", styled("branch-tree--marker")))
    if row.active:
        pieces.append(("• ", styled("branch-tree--marker")))
    if row.label is not None:
        pieces.append((f"[{one_line(row.label)}] ", styled("branch-tree--label")))
    if row.label_time is not None:
        pieces.append((f"{row.label_time} ", styled("branch-tree--label-time")))
    if compact is not None:
        pieces.extend(
            (segment.text, line_style + (segment.style or Style()) + overlay)
            for segment in compact
            if segment.text != "\n"
        )
    for part in row.parts if compact is None else ():
        style = styled(ROLE_CLASS[part.role]) if part.role else line_style
        if part.italic:
            style += Style(italic=True)
        pieces.append((one_line(part.text), style))
    pieces = [(text, style) for text, style in cut_to_width(pieces, width) if text]
    return Strip(_segments(pieces)).adjust_cell_length(width, line_style)


def empty_strip(width: int, empty: Style, base: Style) -> Strip:
    """The first line of a tree with no visible row (§3.8)."""
    return Strip([Segment("  No entries found"[:width], empty)]).adjust_cell_length(width, base)


def _segments(pieces: Iterable[tuple[str, Style]]) -> list[Segment]:
    return [Segment(text, style) for text, style in pieces]
