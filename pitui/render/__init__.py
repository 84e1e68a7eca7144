"""Rich renderables for entries and messages: the safety layer and the renderer registry.

This package may import rich, never textual. See :mod:`pitui.render.registry` for how to write
and register a renderer, :mod:`pitui.render.safe_text` for showing untrusted text, and
:mod:`pitui.render.builtin` for the renderers of every entry type and role.

:func:`default_registry` is the registry the app draws with: pi's entry models, the built-ins,
then the plug-ins of the ``pitui.renderers`` entry-point group (loaded on first use).
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

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

if TYPE_CHECKING:
    import importlib.metadata

    from pitui.render.builtin import (
        BUILTIN_TIME_BUDGET,
        message_entry,
        render_messages,
        tool_calls_by_id,
    )
    from pitui.render.builtin import register as register_builtins
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

# The built-in renderers need pi's entry models (pydantic) and Markdown, and the registry needs
# importlib.metadata: imported on first use, so that ``pitui.render.safe_text`` (which every
# screen needs at once) starts nothing heavy.
_LAZY: dict[str, tuple[str, str]] = {
    "BUILTIN_TIME_BUDGET": ("builtin", "BUILTIN_TIME_BUDGET"),
    "message_entry": ("builtin", "message_entry"),
    "render_messages": ("builtin", "render_messages"),
    "tool_calls_by_id": ("builtin", "tool_calls_by_id"),
    "register_builtins": ("builtin", "register"),
    **{
        name: ("registry", name)
        for name in (
            "DEFAULT_TIME_BUDGET",
            "ENTRY_POINT_GROUP",
            "CompactRenderer",
            "ModelFactory",
            "PluginInfo",
            "PluginWarning",
            "Registration",
            "RenderContext",
            "RenderEntry",
            "Renderer",
            "RendererRegistry",
            "RenderFailure",
            "fallback_compact",
            "fallback_view",
        )
    },
}


def __getattr__(name: str) -> Any:
    where = _LAZY.get(name)
    if where is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"pitui.render.{where[0]}"), where[1])
    globals()[name] = value
    return value


__all__ = [
    "BUILTIN_ENTRY_POINT",
    "BUILTIN_TIME_BUDGET",
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
    "default_registry",
    "fallback_compact",
    "fallback_view",
    "has_unsafe",
    "message_entry",
    "needs_truncation",
    "one_line",
    "register_builtins",
    "render_messages",
    "safe_line",
    "safe_text",
    "sanitize_plain",
    "sanitize_segments",
    "sanitize_text",
    "tool_calls_by_id",
]

#: pitui's own entry point (pyproject.toml), which registers the built-ins in any registry.
BUILTIN_ENTRY_POINT = "pitui.render.builtin:register"


_REGISTRY_DEFAULT: Any = object()  # (the registry's own default, without importing it here)


def default_registry(
    *,
    time_budget: float | None = _REGISTRY_DEFAULT,
    discover: bool = True,
    entry_points: Iterable[importlib.metadata.EntryPoint] | None = None,
) -> RendererRegistry:
    """A registry with pi's entry models, the built-in renderers and the installed plug-ins.

    The built-ins are registered once: by pitui's own entry point when pitui is installed (it
    loads before every plug-in), else directly here (running from a source tree). Plug-ins load
    on first use, after the built-ins, so they override them for the keys they register.
    Arguments are passed on to :class:`RendererRegistry`.
    """
    from pitui.core.models import parse_entry
    from pitui.render.builtin import register
    from pitui.render.registry import DEFAULT_TIME_BUDGET, RendererRegistry

    if time_budget is _REGISTRY_DEFAULT:
        time_budget = DEFAULT_TIME_BUDGET
    registry = RendererRegistry(
        model_factory=parse_entry,
        time_budget=time_budget,
        discover=discover,
        entry_points=entry_points,
    )
    listed = any(
        "".join(plugin.value.split()) == BUILTIN_ENTRY_POINT for plugin in registry.plugins
    )
    if not listed:
        register(registry)
    return registry
