"""Rich renderables for entries and messages: the safety layer and the renderer registry.

This package may import rich, never textual. See :mod:`pitui.render.registry` for how to write
and register a renderer, and :mod:`pitui.render.safe_text` for showing untrusted text.
"""

from pitui.render.registry import (
    DEFAULT_TIME_BUDGET,
    ENTRY_POINT_GROUP,
    CompactRenderer,
    ModelFactory,
    PluginInfo,
    PluginWarning,
    Registration,
    RenderContext,
    RenderEntry,
    Renderer,
    RendererRegistry,
    RenderFailure,
    fallback_compact,
    fallback_view,
)
from pitui.render.safe_text import (
    has_unsafe,
    needs_truncation,
    one_line,
    safe_line,
    safe_text,
    sanitize_plain,
    sanitize_segments,
    sanitize_text,
)

__all__ = [
    "DEFAULT_TIME_BUDGET",
    "ENTRY_POINT_GROUP",
    "CompactRenderer",
    "ModelFactory",
    "PluginInfo",
    "PluginWarning",
    "Registration",
    "RenderContext",
    "RenderEntry",
    "RenderFailure",
    "Renderer",
    "RendererRegistry",
    "fallback_compact",
    "fallback_view",
    "has_unsafe",
    "needs_truncation",
    "one_line",
    "safe_line",
    "safe_text",
    "sanitize_plain",
    "sanitize_segments",
    "sanitize_text",
]
