"""A footer whose keys fit the width: a key that does not fit is left out whole.

Textual's footer lays its keys out in one row and cuts the row at the edge, so on an 80-column
terminal it ended in ``^p Pa``. This one keeps the keys in the order of importance the screen
gives (``rank``, by action), as many as fit, and draws them compact under
:data:`COMPACT_BELOW` columns. A key left out still works; the help (F1) lists every key. It is
pitui's :class:`~pitui.ui.widgets.footer.Footer` (no old keys kept alive).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from rich.cells import cell_len
from textual import events
from textual.app import ComposeResult
from textual.widget import Widget
from textual.widgets._footer import FooterKey, KeyGroup

from pitui.ui.widgets.footer import Footer

COMPACT_BELOW = 100  # columns


class FittingFooter(Footer):
    def __init__(
        self, rank: Sequence[str] = (), *, id: str | None = None, held: bool = False
    ) -> None:
        """``rank``: actions (``resume``, ``app.show_help``) most important first; keys of
        other actions follow in Textual's order. ``held``: no keys until :meth:`show_keys`
        (a screen's first frame can do without them: building and styling a dozen key widgets
        cost the picker a fifth of its CPU time from the app's start to that frame)."""
        super().__init__(id=id)
        self._rank = {action: index for index, action in enumerate(rank)}
        self._laid_out_for = 0
        self._held = held

    def show_keys(self) -> None:
        """End ``held``: the keys are built."""
        if self._held:
            self._held = False
            self.refresh(recompose=True)

    def _keys_wanted(self) -> tuple[object, ...]:
        return (self._held, *super()._keys_wanted())

    def on_resize(self, event: events.Resize) -> None:
        width = event.size.width
        if width != self._laid_out_for:
            self.refresh(recompose=True)

    def compose(self) -> ComposeResult:
        if self._held:
            return
        widgets = list(super().compose())
        width = self.size.width
        self._laid_out_for = width
        if width:
            self.compact = width < COMPACT_BELOW
        if not width or any(isinstance(widget, KeyGroup) for widget in widgets):
            yield from widgets  # (not laid out yet, or grouped keys: as Textual draws them)
            return
        keys = [w for w in widgets if isinstance(w, FooterKey)]
        docked = [key for key in keys if key.has_class("-command-palette")]
        keys = [key for key in keys if key not in docked]
        room = width - sum(self._cells(w, docked=True) for w in docked) - self.styles.padding.left
        yield from self._fitting(keys, room)
        yield from docked

    def _fitting(self, keys: Iterable[FooterKey], room: int) -> list[Widget]:
        fallback = len(self._rank)
        ordered = sorted(keys, key=lambda key: self._rank.get(key.action, fallback))
        kept: list[Widget] = []
        for key in ordered:
            cells = self._cells(key)
            if cells <= room:
                kept.append(key)
                room -= cells
        return kept

    def _cells(self, key: FooterKey, *, docked: bool = False) -> int:
        """The cells ``key`` takes (Textual's footer CSS: paddings, margins, the border)."""
        label = cell_len(key.key_display) + cell_len(key.description)
        if self.compact:
            return label + 2  # the space inside; the margin (docked: the border)
        return label + 3 + (2 if docked else 0)  # paddings; the border and the right padding
