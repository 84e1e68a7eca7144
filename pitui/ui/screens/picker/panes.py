"""The picker's two panes: where the preview goes for the terminal's size (:mod:`.layout`
decides), when it follows the selected row, and the list's scroll position line.

Like :mod:`.writes`, a helper the screen's handlers call.
"""

from __future__ import annotations

import time
from functools import partial
from typing import TYPE_CHECKING

from rich.text import Text
from textual.timer import Timer
from textual.widgets import Static

from pitui.ui.screens.picker.layout import preview_place

if TYPE_CHECKING:
    from pitui.ui.screens.picker.screen import PickerScreen

# The preview reads a file and draws its messages: while the query changes it waits until typing
# pauses this long, so that the next key's rows do not wait behind it.
PREVIEW_AFTER_TYPING = 0.3


class PickerPanes:
    """The list and the preview of one picker screen."""

    def __init__(self, screen: PickerScreen) -> None:
        self.screen = screen
        self.preview_wanted: bool | None = None  # the preview key's last choice (None: by size)
        self.typed_at = float("-inf")  # when the query last changed (monotonic)
        self._preview_timer: Timer | None = None

    # ------------------------------------------------------------------------------ layout
    def place_preview(self) -> None:
        """Beside the list, below it, or hidden; a preview shown again loads."""
        screen = self.screen
        place = preview_place(screen.size.width, screen.size.height, self.preview_wanted)
        screen.query_one("#picker-body").set_class(place == "below", "-below")
        preview = screen.preview
        shown = place != "hidden"
        if shown != preview.display:
            preview.display = shown
            if shown:
                self.update_preview()

    def toggle_preview(self) -> None:
        """The preview key: show or hide it whatever the size, until the next press."""
        self.preview_wanted = not self.screen.preview.display
        self.place_preview()
        self.screen.call_after_refresh(self.update_position)  # (the list's height changed)

    def update_position(self) -> None:
        """pi's scroll indicator ``(selected/count)``, shown only when not all rows fit."""
        screen = self.screen
        widget = screen.query_one("#picker-position", Static)
        session_list = screen.session_list
        rows = session_list.rows
        # (one line of fixed height: no layout of the screen for it on every key)
        if len(rows) > session_list.page_size:
            widget.update(Text(f"  ({session_list.selected + 1}/{len(rows)})"), layout=False)
        else:
            widget.update("", layout=False)

    # ----------------------------------------------------------------------------- preview
    @property
    def preview_pending(self) -> bool:
        """The preview waits for typing to pause before it follows the selected row."""
        return self._preview_timer is not None

    def typing(self) -> None:
        """The query changed: a preview due for the rows of the query before is dropped (its
        session would be read while this key's rows are filtered and drawn); the rows of this
        one follow the selection again (:meth:`follow_selection`)."""
        self.typed_at = time.monotonic()
        if self._preview_timer is not None:
            self._preview_timer.stop()
            self._preview_timer = None

    def follow_selection(self) -> None:
        """Show the selected session in the preview after the rows paint, or once typing
        pauses (:data:`PREVIEW_AFTER_TYPING`)."""
        if self._preview_timer is not None:
            self._preview_timer.stop()
            self._preview_timer = None
        wait = self.typed_at + PREVIEW_AFTER_TYPING - time.monotonic()
        if wait <= 0:
            # (the rows paint first: at the start, the first frame is shown first)
            after_refresh = partial(self.screen.call_after_refresh, self.update_preview)
            self.screen.after_first_frame(after_refresh)
        else:
            self._preview_timer = self.screen.set_timer(wait, self.update_preview)

    def update_preview(self) -> None:
        """The preview shows the selected session."""
        self._preview_timer = None
        screen = self.screen
        item = screen.selected_item
        screen.preview.show(item.path if item else None, entry_id=screen.selected_entry)
