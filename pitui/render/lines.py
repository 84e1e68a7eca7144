"""Renderables drawn into lines of segments at a fixed width: the one way pitui turns what the
renderers return into lines, for the session view's context pane and for the exports.

Safe in any thread: each call draws on its own console, which writes nowhere.
"""

from __future__ import annotations

import io
from collections.abc import Sequence

from rich.console import Console, RenderableType
from rich.segment import Segment

Line = list[Segment]


def render_lines(renderables: Sequence[RenderableType], width: int) -> list[list[Line]]:
    """Each renderable drawn at ``width`` cells: its lines, unpadded (a line may be shorter than
    ``width``), without newline segments."""
    console = Console(
        width=width,
        file=io.StringIO(),
        force_terminal=True,
        color_system="truecolor",
        legacy_windows=False,
        markup=False,
        highlight=False,
        emoji=False,
        soft_wrap=False,
    )
    options = console.options.update_width(width)
    return [console.render_lines(renderable, options, pad=False) for renderable in renderables]
