"""The picker's header: the title on the left, the scope, name filter and sort on the right.

pi's rule for a narrow terminal (ui-behaviour §2.1): the right part is cut to the width first, the
title gets what is left, so the modes never lose their values to the title.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.style import Style
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import Static

from pitui.ui.widgets.fit import ELLIPSIS, cut_end

GAP = 2  # cells between the title and the modes


class PickerHeader(Horizontal):
    """Drawn from what the screen gives it; the values take the theme's accent colour (pi:
    labels muted, values accent), so the screen redraws it when the theme changes."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._title = ""
        self._modes: tuple[tuple[str, bool], ...] = ()
        self._shown: tuple[str, tuple[tuple[str, bool], ...], str] | None = None  # drawn last
        self._accent_of: tuple[str, str | None] | None = None  # (theme, its accent colour)

    def compose(self) -> ComposeResult:
        yield Static(id="picker-title")
        yield Static(id="picker-modes")

    def _accent(self) -> str | None:
        """The theme's accent colour, worked out once per theme (get_css_variables builds the
        theme's colour system: too slow for each draw, and the header is redrawn at every step
        of a load's progress)."""
        theme = self.app.theme
        if self._accent_of is None or self._accent_of[0] != theme:
            self._accent_of = (theme, self.app.get_css_variables().get("accent"))
        return self._accent_of[1]

    def show(self, title: str, modes: Sequence[tuple[str, bool]]) -> None:
        """``modes`` as (text, is a value) pieces."""
        shown = (title, tuple(modes), self.app.theme)
        if shown == self._shown:
            return  # (asked on every key: a redraw would lay the screen out again)
        self._shown = shown
        self._title, self._modes = title, shown[1]
        self._draw()

    def on_resize(self, event: events.Resize) -> None:
        self._draw()

    def _draw(self) -> None:
        width = self.content_size.width
        accent = self._accent()
        value = Style(color=accent) if accent else Style(bold=True)
        modes = Text()
        for text, is_value in self._modes:
            modes.append(text, value if is_value else None)
        if width and modes.cell_len > width:
            modes.truncate(width - 1)
            modes.rstrip()
            modes.append(ELLIPSIS)
        room = width - modes.cell_len - GAP if width else len(self._title)
        title = cut_end(self._title, room)
        title_widget = self.query_one("#picker-title", Static)
        title_widget.update(Text(title, style="bold"))
        title_widget.display = bool(title)
        modes_widget = self.query_one("#picker-modes", Static)
        modes_widget.update(modes)
        # (set, not auto: an auto width kept the longer "Loading 3/5" text's width after it)
        modes_widget.styles.width = modes.cell_len + GAP
