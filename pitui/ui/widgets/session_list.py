"""The picker's session rows, drawn with the Line API (10,000 sessions cost only the visible rows).

Rows look like pi's (ui-behaviour §2.2): ``<cursor><tree prefix><title> … <right part>``, the title
in warning colour when the session has a name, in error colour while its deletion is confirmed, the
right part ``[path] [cwd] <count> <age>`` dim and right-aligned. The age is computed when a row is
drawn (so it stays true while pitui is open); a full-text hit shows its snippet after the title;
a ``label:`` row shows the label as the tree does, its session and its age on the right; a
pinned session is marked ``⚑``.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Collection, Iterator, Sequence
from typing import NamedTuple, overload

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.geometry import Region, Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from pitui.core.units import format_age
from pitui.render.safe_text import one_line

LIVE_MARK = "● "
PIN_MARK = "⚑ "  # a pinned session (shown first in its scope)
# A full-text hit's title takes at most this share of the width; the snippet gets the rest.
HIT_TITLE_SHARE = 0.4
# A label row's label keeps up to this many cells before its session (right) is cut.
LABEL_CELLS = 40
# Rows drawn are kept (by everything that decides how they look) up to this many: a key typed
# in the search shows rows seen a key or two ago (a backspace: all of them), drawn again for
# nothing. A few screenfuls of the widest terminal.
DRAWN_ROWS = 1024


def cut_left(text: str, width: int) -> str:
    """``text`` in at most ``width`` cells, cut at the start (``…`` marks the cut)."""
    if cell_len(text) <= width:
        return text
    if width <= 1:
        return "…"[:width]
    kept: list[str] = []
    used = 0
    for char in reversed(text):
        cells = cell_len(char)
        if used + cells > width - 1:
            break
        kept.append(char)
        used += cells
    return "…" + "".join(reversed(kept))


class ListRow(NamedTuple):
    """One display row, already decided by the screen (titles are sanitized when drawn).

    A named tuple: the picker makes one per listed session on every re-filter (a frozen
    dataclass costs four times as much to build)."""

    key: str  # session path (or path + "#" + entry id for a full-text hit)
    title: str
    prefix: str = ""  # threaded tree prefix (dim)
    right: str = ""  # "[path] [cwd] count" (the age is appended when drawn)
    modified: float | None = None  # epoch ms of the session's last activity: the age column
    named: bool = False
    current: bool = False  # the session pitui was started from (accent, not deletable)
    live: bool = False  # its file grew in the last seconds: pi is working in it
    snippet: str = ""  # a full-text hit's text around the match (already one safe line)
    match: tuple[int, int] | None = None  # (start, end) of the matched words in ``snippet``
    path: str = ""  # the session file (``key`` without a hit's entry id)
    label: bool = False  # a ``label:`` row: the title is the label (drawn as the tree draws it)
    pinned: bool = False


class LazyRows(Sequence[ListRow]):
    """Display rows made when first asked for: a key typed in the search re-filters every
    session, and the list draws only the rows on screen, so only those are made.

    ``make(index, live)`` makes row ``index``; ``key_of(index)`` its key without making it;
    ``live`` is the set of live session paths (:meth:`set_live` replaces it)."""

    __slots__ = ("_count", "_key_of", "_live", "_made", "_make")

    def __init__(
        self,
        count: int,
        make: Callable[[int, Collection[str]], ListRow],
        key_of: Callable[[int], str],
        live: Collection[str] = (),
    ) -> None:
        self._count = count
        self._make = make
        self._key_of = key_of
        self._live = live
        self._made: dict[int, ListRow] = {}

    def __len__(self) -> int:
        return self._count

    @overload
    def __getitem__(self, index: int) -> ListRow: ...
    @overload
    def __getitem__(self, index: slice) -> list[ListRow]: ...
    def __getitem__(self, index: int | slice) -> ListRow | list[ListRow]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(self._count))]
        if index < 0:
            index += self._count
        if not 0 <= index < self._count:
            raise IndexError(index)
        row = self._made.get(index)
        if row is None:
            row = self._made[index] = self._make(index, self._live)
        return row

    def __iter__(self) -> Iterator[ListRow]:
        return (self[i] for i in range(self._count))

    def key_of(self, index: int) -> str:
        return self._key_of(index)

    def set_live(self, live: Collection[str]) -> bool:
        """Use these live paths from now on; whether a row already made changes."""
        changed = any((row.path in live) != row.live for row in self._made.values())
        self._live = live
        if changed:
            self._made.clear()
        return changed


class _Look(NamedTuple):
    """The styles a row is drawn with, taken from the CSS once per paint: the widget's own
    style (``rich_style`` walks every ancestor) and each component's colour and text style,
    without its background (the row's background shows through every part of a row)."""

    base: Style
    selected: Style  # base with the selected row's background
    cursor: Style
    prefix: Style
    named: Style
    current: Style
    confirm: Style
    right: Style
    live: Style
    pinned: Style
    label: Style
    snippet: Style
    match: Style
    empty: Style


def _colour_and_text_style(style: Style) -> Style:
    return Style(
        color=style.color,
        bold=style.bold,
        dim=style.dim,
        italic=style.italic,
        underline=style.underline,
        strike=style.strike,
        reverse=style.reverse,
    )


class SessionList(ScrollView, can_focus=False):
    """A virtual list of :class:`ListRow`; the screen owns the data and the selection."""

    COMPONENT_CLASSES = {
        "session-list--cursor",
        "session-list--selected",
        "session-list--prefix",
        "session-list--named",
        "session-list--current",
        "session-list--confirm",
        "session-list--right",
        "session-list--live",
        "session-list--pinned",
        "session-list--label",
        "session-list--snippet",
        "session-list--match",
        "session-list--empty",
    }

    selected: reactive[int] = reactive(0, always_update=True)

    class _RowMessage(Message):
        """Something happened to the row at ``index`` (the list is the ``control``)."""

        def __init__(self, session_list: SessionList, index: int) -> None:
            super().__init__()
            self.session_list = session_list
            self.index = index

        @property
        def control(self) -> SessionList:
            return self.session_list

    class Highlighted(_RowMessage):
        """The selection moved to ``index``."""

    class Activated(_RowMessage):
        """A row was double-clicked."""

    def __init__(
        self,
        *,
        clock: Callable[[], float] = time.time,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(id=id, classes=classes)
        self.clock = clock
        self._rows: Sequence[ListRow] = []
        self._index: dict[str, int] | None = None  # key -> first row, made when asked for
        self._empty_text = ""
        self._confirm_key: str | None = None
        self._look: _Look | None = None  # (taken again at each paint)
        # rows drawn: (row, selected, confirming, right part as drawn, width) -> its line
        self._drawn: dict[tuple[ListRow, bool, bool, str, int], Strip] = {}

    # ------------------------------------------------------------------------------ data
    @property
    def rows(self) -> Sequence[ListRow]:
        return self._rows

    def set_rows(
        self, rows: Sequence[ListRow], *, selected: int | None = None, empty_text: str = ""
    ) -> None:
        self._rows = rows if isinstance(rows, LazyRows) else list(rows)
        self._index = None
        self._empty_text = empty_text
        self.virtual_size = Size(self.size.width, max(len(rows), 1))
        index = self.selected if selected is None else selected
        self.selected = max(0, min(index, len(rows) - 1)) if rows else 0
        self.refresh()

    def index_of(self, key: str) -> int | None:
        if self._index is None:
            rows = self._rows
            keys = rows.key_of if isinstance(rows, LazyRows) else lambda i: rows[i].key
            self._index = {}
            for position in range(len(rows)):
                self._index.setdefault(keys(position), position)
        return self._index.get(key)

    def set_live(self, keys: Collection[str]) -> None:
        """Mark exactly the rows of ``keys`` live (a few rows change; the rest are kept)."""
        rows = self._rows
        if isinstance(rows, LazyRows):
            if rows.set_live(set(keys)):
                self.refresh()
            return
        changed = False
        assert isinstance(rows, list)
        for position, row in enumerate(rows):
            live = row.path in keys
            if live != row.live:
                rows[position] = row._replace(live=live)
                changed = True
        if changed:
            self.refresh()

    def set_confirming(self, key: str | None) -> None:
        self._confirm_key = key
        self.refresh()

    @property
    def confirming(self) -> str | None:
        return self._confirm_key

    @property
    def current_row(self) -> ListRow | None:
        return self._rows[self.selected] if self._rows else None

    @property
    def empty_text(self) -> str:
        return self._empty_text

    # -------------------------------------------------------------------------- movement
    def move(self, delta: int) -> None:
        """Move by ``delta`` rows, stopping at the ends (pi's picker does not wrap)."""
        if self._rows:
            self.selected = max(0, min(self.selected + delta, len(self._rows) - 1))

    def watch_selected(self, old: int, new: int) -> None:
        if not self._rows:
            return
        self.scroll_to_region(Region(0, new, 1, 1), animate=False, force=True, immediate=True)
        self.refresh()
        self.post_message(self.Highlighted(self, new))

    def on_resize(self) -> None:
        self.virtual_size = Size(self.size.width, max(len(self._rows), 1))
        if self._rows:
            self.scroll_to_region(
                Region(0, self.selected, 1, 1), animate=False, force=True, immediate=True
            )

    @property
    def page_size(self) -> int:
        return max(1, self.scrollable_content_region.height)

    # ----------------------------------------------------------------------------- mouse
    def _row_at(self, event: events.MouseEvent) -> int | None:
        index = event.y + int(self.scroll_offset.y)
        return index if 0 <= index < len(self._rows) else None

    def on_click(self, event: events.Click) -> None:
        index = self._row_at(event)
        if index is None:
            return
        if event.chain >= 2:
            self.post_message(self.Activated(self, index))
        else:
            self.selected = index

    # --------------------------------------------------------------------------- drawing
    def render_lines(self, crop: Region) -> list[Strip]:
        look = self._take_look()
        if look != self._look:
            self._look = look
            self._drawn.clear()  # (another theme: every row looks different)
        return super().render_lines(crop)

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._look = None

    def _take_look(self) -> _Look:
        base = self.rich_style

        def part(name: str) -> Style:
            return _colour_and_text_style(self.get_component_rich_style(name))

        selected_bg = self.get_component_rich_style("session-list--selected").bgcolor
        return _Look(
            base,
            base + Style(bgcolor=selected_bg),
            *(part(f"session-list--{name}") for name in _Look._fields[2:]),
        )

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        index = y + int(self.scroll_offset.y)
        look = self._look
        if look is None:
            look = self._look = self._take_look()
        base = look.base
        if not self._rows:
            if y == 0 and self._empty_text:
                style = base + look.empty
                return Strip(
                    [Segment(one_line(self._empty_text, width), style)]
                ).adjust_cell_length(width, base)
            return Strip.blank(width, base)
        if index >= len(self._rows):
            return Strip.blank(width, base)
        row = self._rows[index]
        selected = index == self.selected
        confirming = row.key == self._confirm_key
        right = "" if row.snippet else self.right_text(row)
        key = (row, selected, confirming, right, width)
        strip = self._drawn.get(key)
        if strip is None:
            strip = self._render_row(row, selected, confirming, right, width, look)
            drawn = self._drawn
            if len(drawn) >= DRAWN_ROWS:
                del drawn[next(iter(drawn))]  # (the oldest)
            drawn[key] = strip
        return strip

    def right_text(self, row: ListRow) -> str:
        """The right part as drawn now: the screen's part plus the age at this moment."""
        if row.modified is None:
            return one_line(row.right)
        age = format_age(row.modified, self.clock() * 1000)
        return one_line(f"{row.right} {age}" if row.right else age)

    def _snippet(self, row: ListRow, room: int, row_style: Style, look: _Look) -> Text:
        """The snippet cut to ``room`` cells so the match shows, the match highlighted."""
        snippet = row.snippet
        match = row.match
        lead = ""
        if match is not None and match[0] > 12 and cell_len(snippet[: match[1]]) > room - 4:
            cut = match[0] - 10  # keep a few words before the match
            snippet, lead = snippet[cut:], "…"
            match = (match[0] - cut, match[1] - cut)
        text = Text(lead + one_line(snippet, max(room - len(lead), 0)), no_wrap=True, end="")
        text.stylize(row_style + look.snippet)
        if match is not None:
            start, end = match[0] + len(lead), match[1] + len(lead)
            text.stylize(look.match, start, end)
        return text

    def _render_row(
        self, row: ListRow, selected: bool, confirming: bool, right: str, width: int, look: _Look
    ) -> Strip:
        """The line of ``row``; ``right``: its right part as drawn now (see :meth:`right_text`)."""
        row_style = look.selected if selected else look.base
        cursor = "› " if selected else "  "
        prefix = row.prefix
        mark = LIVE_MARK if row.live else ""
        pin = PIN_MARK if row.pinned else ""
        title_style = row_style
        if row.label:
            title_style += look.label
        elif confirming:
            title_style += look.confirm
        elif row.current:
            title_style += look.current
        elif row.named:
            title_style += look.named
        if selected:
            title_style += Style(bold=True)
        parts = [
            (cursor, row_style + look.cursor if selected else row_style),
            (prefix, row_style + look.prefix),
        ]
        if pin:
            parts.append((pin, row_style + look.pinned))
        if mark:
            parts.append((mark, row_style + look.live))
        fixed = cell_len(cursor) + cell_len(prefix) + cell_len(pin) + cell_len(mark)
        if row.snippet:
            room = max(10, int((width - fixed) * HIT_TITLE_SHARE))
            parts += [(one_line(row.title, room), title_style), ("  ", row_style)]
            line = Text.assemble(*parts, end="")
            line.append_text(self._snippet(row, max(width - line.cell_len, 0), row_style, look))
            return Strip(list(line.render(self.app.console))).adjust_cell_length(width, row_style)
        right_style = row_style + (look.confirm if confirming else look.right)
        # pi: the title gets width − 2 − prefix − (right + 2) cells, never fewer than 10
        room = max(10, width - fixed - (cell_len(right) + 2 if right else 0))
        if row.label:  # the label is what the row is about: the right part gives way first
            room = max(room, min(cell_len(row.title), LABEL_CELLS, width - fixed - 12))
        title = one_line(row.title, room)
        parts.append((title, title_style))
        used = fixed + cell_len(title)
        if right:
            gap = width - used - cell_len(right)
            if gap < 1:
                # keep the end (count and age); a long path loses its beginning instead
                right = cut_left(right, max(width - used - 1, 0))
                gap = 1 if right else 0
            parts += [(" " * gap, row_style), (right, right_style)]
            used += gap + cell_len(right)
        # the segments a Text of these parts renders to, without making the Text
        segments = [Segment(text, style) for text, style in parts if text]
        return Strip(segments, used).adjust_cell_length(width, row_style)
