"""Context messages drawn by the renderer registry, as lines of segments (for HTML and text).

The registry is the app's: the built-ins plus installed plug-ins, so an export looks like the
session view. Its output is already sanitized (no control segment, no unsafe character); the
lines are sanitized once more here because exports are written to files and pipes that other
programs read.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import Any

from rich.console import RenderableType
from rich.segment import Segment
from rich.terminal_theme import DEFAULT_TERMINAL_THEME, SVG_EXPORT_THEME, TerminalTheme

from pitui.render import default_registry, render_messages
from pitui.render.lines import Line, render_lines
from pitui.render.registry import RenderContext, RendererRegistry
from pitui.render.safe_text import sanitize_segments

#: Link targets kept in HTML; anything else (javascript:, data:, file:, relative) loses its link.
SAFE_LINK_SCHEMES = ("http://", "https://", "mailto:")


def terminal_theme(dark: bool) -> TerminalTheme:
    return SVG_EXPORT_THEME if dark else DEFAULT_TERMINAL_THEME


def draw_messages(
    messages: Sequence[dict[str, Any]],
    ids: Sequence[str] | None,
    *,
    width: int,
    dark: bool = True,
    registry: RendererRegistry | None = None,
) -> list[list[Line]]:
    """Each message drawn at ``width`` cells, unfolded."""
    registry = registry if registry is not None else default_registry()
    renderables = render_messages(registry, messages, _context(width, dark), ids=ids)
    return _lines(renderables, width)


def draw_entries(
    entries: Sequence[dict[str, Any]],
    *,
    width: int,
    dark: bool = True,
    registry: RendererRegistry | None = None,
) -> list[list[Line]]:
    """Each raw entry drawn by the registry at ``width`` cells (extension entries, which are no
    context message: a plug-in's drawing of them belongs in the export too)."""
    registry = registry if registry is not None else default_registry()
    ctx = _context(width, dark)
    return _lines([registry.render(registry.entry(raw), ctx) for raw in entries], width)


def draw_extensions(
    extensions: Sequence[tuple[int, dict[str, Any]]],
    *,
    width: int,
    dark: bool = True,
    registry: RendererRegistry | None = None,
) -> list[tuple[int, dict[str, Any], list[Line]]]:
    """A branch's extension entries (``(index of the message they come before, raw entry)``,
    as :class:`~pitui.export.document.ExportDocument` lists them) drawn by the registry."""
    raws = [raw for _, raw in extensions]
    pictures = draw_entries(raws, width=width, dark=dark, registry=registry) if raws else []
    return [(before, raw, lines) for (before, raw), lines in zip(extensions, pictures, strict=True)]


def _context(width: int, dark: bool) -> RenderContext:
    # unfolded (``expanded``): an export shows it all
    return RenderContext(
        width=width, dark=dark, theme="pi-dark" if dark else "pi-light", expanded=True
    )


def _lines(renderables: Sequence[RenderableType], width: int) -> list[list[Line]]:
    return [
        [_trim(list(sanitize_segments(line))) for line in lines]
        for lines in render_lines(renderables, width)
    ]


def _trim(line: Line) -> Line:
    """Drop the padding Rich adds at the end of a line (spaces without a background)."""
    while line:
        last = line[-1]
        if last.style is not None and last.style.bgcolor is not None:
            break
        stripped = last.text.rstrip(" ")
        if stripped:
            line[-1] = Segment(stripped, last.style)
            break
        line.pop()
    return line


def lines_text(lines: Sequence[Line]) -> str:
    return "\n".join("".join(segment.text for segment in line) for line in lines)


def safe_href(link: str) -> str | None:
    """A link target fit for an ``href``, or None (unsafe scheme or characters)."""
    lowered = link.strip().lower()
    if not lowered.startswith(SAFE_LINK_SCHEMES):
        return None
    if any(ord(ch) < 0x21 or ch in "\"'<>\\`" or 0x7F <= ord(ch) <= 0x9F for ch in link):
        return None
    return html.escape(link, quote=True)


def lines_html(lines: Sequence[Line], theme: TerminalTheme) -> str:
    """The lines as HTML for a ``<pre>``: text escaped, styles inline, only safe links."""
    parts: list[str] = []
    for number, line in enumerate(lines):
        if number:
            parts.append("\n")
        for segment in line:
            text = html.escape(segment.text, quote=False)
            style = segment.style
            if style is None:
                parts.append(text)
                continue
            rule = style.get_html_style(theme)  # built from typed colours and flags only
            if style.link:
                href = safe_href(style.link)
                if href is not None:
                    text = f'<a href="{href}" rel="nofollow noopener noreferrer">{text}</a>'
            parts.append(f'<span style="{rule}">{text}</span>' if rule else text)
    return "".join(parts)
