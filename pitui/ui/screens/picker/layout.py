"""Where the picker's preview goes for a terminal size (issue 21 §2), as a pure decision, and
which footer keys a narrow picker keeps first.

Beside the list from :data:`BESIDE_MIN_WIDTH` columns; narrower, the list needs the whole width
(pi's titles keep about 45 columns at 80), so the preview goes below it when the terminal is tall
enough and is hidden otherwise. The preview key shows or hides it whatever the size; that choice
holds until the next press.
"""

from __future__ import annotations

from typing import Literal

PreviewPlace = Literal["beside", "below", "hidden"]

BESIDE_MIN_WIDTH = 100  # columns: narrower, the preview is not beside the list
BELOW_MIN_HEIGHT = 40  # rows: shorter (and narrow), the preview is hidden until asked for

#: The footer's keys by importance (actions): on a narrow terminal those that do not fit are left
#: out, from the end (the hint lines show most of them, F1 all of them).
FOOTER_RANK = (
    "resume", "open_tree", "quit_picker", "app.show_help", "toggle_preview", "toggle_scope",
    "rename", "undo", "delete", "cycle_sort", "toggle_named", "toggle_path",
)  # fmt: skip


def preview_place(width: int, height: int, wanted: bool | None) -> PreviewPlace:
    """``wanted``: the user's last choice (None: none yet, the size decides)."""
    shown = (
        wanted if wanted is not None else width >= BESIDE_MIN_WIDTH or height >= BELOW_MIN_HEIGHT
    )
    if not shown:
        return "hidden"
    return "beside" if width >= BESIDE_MIN_WIDTH else "below"
