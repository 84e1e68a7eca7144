"""The branch diff screen: two paths of a session from their common ancestor (issue 23 §2).

The session view hands over a ``source``, an async function returning the
:class:`~pitui.core.diff.BranchDiff` (it reads the two sides in a thread, holding the view's lock
on the index); the screen shows a loading indicator until it arrives, then one
:class:`~pitui.ui.widgets.diff_side.DiffSideView` per side: side by side, or one above the other
on a terminal narrower than :data:`NARROW_WIDTH` columns. Escape returns to the session view.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from rich.text import Text
from textual import events, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.screen import Screen
from textual.widgets import LoadingIndicator, Static

from pitui.core.diff import BranchDiff, DiffEntry, Side
from pitui.core.units import plural
from pitui.render.safe_text import one_line
from pitui.ui.widgets.diff_side import DiffSideView, SideRows
from pitui.ui.widgets.fitting_footer import FittingFooter

__all__ = ["NARROW_WIDTH", "DiffScreen", "DiffSource"]

NARROW_WIDTH = 100  # below this many columns the two sides are stacked
DiffSource = Callable[[], Awaitable[BranchDiff]]

_RELATION = {
    "same": "A and B are the same entry",
    "ancestor": "A is an ancestor of B",
    "descendant": "B is an ancestor of A",
    "diverged": "two branches",
    "unrelated": "no common ancestor (two roots)",
}
_TITLE_CELLS = 70


def _entry_text(entry: DiffEntry | None, cells: int) -> str:
    return one_line(entry.text, cells) if entry is not None else ""


class DiffScreen(Screen[None]):
    BINDINGS = [
        Binding("escape", "close", "Back", id="diff.close", tooltip="Back to the session view"),
        Binding("tab", "app.focus_next", "Other side", id="diff.other_side", show=True),
    ]

    def __init__(self, source: DiffSource, *, home: str | None = None) -> None:
        super().__init__()
        self._source = source
        self._home = home
        self.diff: BranchDiff | None = None

    def compose(self) -> ComposeResult:
        yield Static(Text("Branch diff", style="bold"), id="diff-header")
        yield LoadingIndicator(id="diff-loading")
        with Horizontal(id="diff-sides"):
            yield DiffSideView(id="diff-a")
            yield DiffSideView(id="diff-b")
        yield FittingFooter()

    def on_mount(self) -> None:
        self.query_one("#diff-sides").display = False
        self._compute()

    def on_resize(self, event: events.Resize) -> None:
        self.set_class(event.size.width < NARROW_WIDTH, "-narrow")

    @work(group="diff", exclusive=True, exit_on_error=False)
    async def _compute(self) -> None:
        try:
            diff = await self._source()
        except Exception as exc:  # a file gone or replaced: said on the screen, never a crash
            self._failed(one_line(str(exc) or type(exc).__name__, 300))
            return
        self._show(diff)

    def _failed(self, reason: str) -> None:
        self.query_one("#diff-loading").display = False
        self.query_one("#diff-header", Static).update(
            Text.assemble(("Branch diff: ", "bold"), (f"cannot compare: {reason}", "red"))
        )

    def _show(self, diff: BranchDiff) -> None:
        self.diff = diff
        self.query_one("#diff-loading").display = False
        self.query_one("#diff-header", Static).update(self._header(diff))
        self.query_one("#diff-sides").display = True
        for name, side, view in (("A", diff.a, "#diff-a"), ("B", diff.b, "#diff-b")):
            self.query_one(view, DiffSideView).show(
                self._side_title(name, side), SideRows(side, self._home)
            )
        self.query_one("#diff-a", DiffSideView).focus()

    def _header(self, diff: BranchDiff) -> Text:
        header = Text.assemble(("Branch diff", "bold"), "  ", _RELATION[diff.relation])
        ancestor = diff.ancestor
        if ancestor is not None:
            header.append("; common ancestor ")
            header.append(one_line(ancestor.uid), "bold")
            header.append(f" ({plural(diff.shared, 'shared entry', 'shared entries')})")
            text = _entry_text(diff.ancestor_entry, _TITLE_CELLS)
            if text:
                header.append(f"  {text}", "dim")
        return header

    def _side_title(self, name: str, side: Side) -> Text:
        tip = side.entries[-1] if side.entries else None
        title = Text.assemble((f" {name} ", "bold reverse"), " ", (one_line(side.tip.uid), "bold"))
        text = _entry_text(tip, _TITLE_CELLS)
        if text:
            title.append(f"  {text}")
        title.append(" ")
        return title

    def action_close(self) -> None:
        self.dismiss(None)
