"""Text cut to a width the way a reader expects: ``…`` where something was cut, never a dangling
space or separator before it, and lists of hints cut between their items (``a · b …``).

Widths are terminal cells (a CJK character or most emoji take two).
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.cells import cell_len, set_cell_size

ELLIPSIS = "…"
HINT_SEPARATOR = " · "


def cut_end(text: str, width: int) -> str:
    """``text`` in at most ``width`` cells: as it is if it fits, else its start and ``…``."""
    if cell_len(text) <= width:
        return text
    if width <= 0:
        return ""
    # (set_cell_size pads with a space where it splits a wide character: stripped too)
    return set_cell_size(text, width - 1).rstrip() + ELLIPSIS


def cut_start(text: str, width: int) -> str:
    """``text`` in at most ``width`` cells, keeping its end (a path's last folders): ``…`` and
    the end."""
    if cell_len(text) <= width:
        return text
    if width <= 0:
        return ""
    tail = text
    while tail and cell_len(tail) > width - 1:
        tail = tail[1:]
    return ELLIPSIS + tail.lstrip()


def fit_items(items: Sequence[str], width: int, separator: str = HINT_SEPARATOR) -> str:
    """As many whole items as fit in ``width`` cells, then `` …`` if some were left out; when
    not even the first one fits with it, the whole line cut with ``…``."""
    line = separator.join(items)
    if cell_len(line) <= width:
        return line
    for count in range(len(items) - 1, 0, -1):
        shortened = f"{separator.join(items[:count])} {ELLIPSIS}"
        if cell_len(shortened) <= width:
            return shortened
    return cut_end(line, width)


def fit_hint(line: str, width: int) -> str:
    """A hint line (items joined by `` · ``) cut between its items to ``width`` cells."""
    return fit_items(line.split(HINT_SEPARATOR), width)
