"""Messages drawn into lines in thread workers, shown with the Line API.

The session view's context pane and the picker's preview both show the end of a conversation:
the messages are drawn (in a worker: Rich and the renderers would otherwise hold the event loop)
from the last one backwards until a few screens of lines are drawn, and the earlier ones only
when the user scrolls up to them. :class:`DrawnLines` shows such lines, drawing only the rows on
screen (``render_line``), and asks for the earlier messages when scrolled to its top
(:class:`DrawnLines.NeedEarlier`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from rich.console import RenderableType
from rich.text import Text
from textual.geometry import Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

from pitui.render.lines import render_lines

# Lines drawn at a time: messages are drawn from the end until there are this many screens of
# lines; scrolling to the top draws the earlier ones.
SCREENS_DRAWN = 3
MIN_LINES_DRAWN = 120


def strips(renderables: Sequence[RenderableType], width: int) -> list[Strip]:
    """Renderables drawn at ``width`` as Textual lines (any thread)."""
    return [Strip(line) for lines in render_lines(renderables, width) for line in lines]


def joined(blocks: list[list[Strip]]) -> tuple[list[Strip], list[int]]:
    """The blocks' lines one after the other, and the first line of each block."""
    out: list[Strip] = []
    starts: list[int] = []
    for lines in blocks:
        starts.append(len(out))
        out.extend(lines)
    return out, starts


def draw_back(
    draw: Callable[[int], list[Strip]],
    stop: int,
    keep: int,
    budget: int,
    cancelled: Callable[[], bool] = lambda: False,
) -> tuple[int, list[Strip], list[int]]:
    """Draw items (``draw(index)``: its lines) backwards from ``stop`` (exclusive) until there
    are ``budget`` lines and item ``keep`` is drawn, or ``cancelled()``. Returns the first item
    drawn, the lines, and the first line of each item drawn."""
    blocks: list[list[Strip]] = []
    total = 0
    index = stop
    while index > 0 and (total < budget or index > keep) and not cancelled():
        index -= 1
        blocks.append(draw(index))
        total += len(blocks[-1])
    blocks.reverse()
    return (index, *joined(blocks))


def more_line(count: int, width: int) -> Strip:
    """The first line while earlier messages are not drawn."""
    text = Text(f"↑ {count:,} earlier message{'s' if count != 1 else ''}: scroll up to show",
                style="dim italic")  # fmt: skip
    return strips([text], width)[0]


def lines_budget(height: int) -> int:
    """How many lines to draw at a time for a view ``height`` rows tall."""
    return max(max(height, 10) * SCREENS_DRAWN, MIN_LINES_DRAWN)


class DrawnLines(ScrollView):
    """Lines drawn elsewhere (:func:`strips`), shown with the Line API. Scrolling to the top
    while earlier messages are not drawn yet asks for them (:class:`NeedEarlier`)."""

    class NeedEarlier(Message):
        pass

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._lines: list[Strip] = []
        self._top = 0
        self._more = False  # earlier messages are not drawn
        self._asked = False

    def show(self, lines: list[Strip], top: int, *, more: bool) -> None:
        """Show ``lines`` scrolled so that line ``top`` is in view (as high as it can go; past
        the end: the last lines)."""
        self._lines = lines
        self._top = top
        self._more, self._asked = more, False
        self.virtual_size = Size(self.scrollable_content_region.width, len(lines))
        self._anchor()
        self.call_after_refresh(self._anchor)  # again once the layout knows the new size
        self.refresh()

    def prepend(self, lines: list[Strip], *, more: bool) -> None:
        """Earlier lines arrived: they replace the first ("more above") line; the view stays."""
        added = len(lines) - 1
        self._lines = lines + self._lines[1:]
        self._top += added
        self._more, self._asked = more, False
        self.virtual_size = Size(self.scrollable_content_region.width, len(self._lines))
        self.scroll_to(y=self.scroll_y + added, animate=False, immediate=True, force=True)
        self.refresh()

    def _anchor(self) -> None:
        # (forced: whether the widget may scroll is only known after the next layout, from
        # the new virtual size; until then an unforced scroll would be dropped)
        height = self.scrollable_content_region.height
        self.scroll_to(y=min(self._top, max(0, len(self._lines) - height)), animate=False,
                       immediate=True, force=True)  # fmt: skip
        self._check_more()

    def on_resize(self) -> None:
        self._anchor()

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        self._check_more()

    def watch_show_vertical_scrollbar(self, shown: bool) -> None:
        # a scroll forced before the scrollbar was shown did not move its thumb
        if shown:
            self.vertical_scrollbar.position = self.scroll_y

    def _check_more(self) -> None:
        if self._more and not self._asked and round(self.scroll_y) == 0 and self._lines:
            self._asked = True
            self.post_message(self.NeedEarlier())

    @property
    def plain_lines(self) -> list[str]:
        """The lines drawn, as text (all of them, on screen or not)."""
        return [strip.text for strip in self._lines]

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        base = self.rich_style
        index = y + round(self.scroll_offset.y)
        if 0 <= index < len(self._lines):
            return self._lines[index].crop_extend(0, width, base).apply_style(base)
        return Strip.blank(width, base)
