"""The picker's header: the title on the left, the scope, name filter and sort on the right."""

from __future__ import annotations

from collections.abc import Sequence

from rich.style import Style
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import Static


class PickerHeader(Horizontal):
    """Drawn from what the screen gives it; the values take the theme's accent colour (pi:
    labels muted, values accent), so the screen redraws it when the theme changes."""

    def compose(self) -> ComposeResult:
        yield Static(id="picker-title")
        yield Static(id="picker-modes")

    def show(self, title: str, modes: Sequence[tuple[str, bool]]) -> None:
        """``modes`` as (text, is a value) pieces."""
        self.query_one("#picker-title", Static).update(Text(title, style="bold"))
        accent = self.app.get_css_variables().get("accent")
        value = Style(color=accent) if accent else Style(bold=True)
        line = Text(no_wrap=True, overflow="ellipsis")
        for text, is_value in modes:
            line.append(text, value if is_value else None)
        self.query_one("#picker-modes", Static).update(line)
