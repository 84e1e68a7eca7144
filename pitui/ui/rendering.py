"""The one renderer registry the app draws with (built-ins + plug-ins), made on first use."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cache
from typing import Any

from rich.console import RenderableType
from rich.text import Text

from pitui.render import default_registry
from pitui.render import render_messages as draw_messages
from pitui.render.registry import Registration, RenderContext, RendererRegistry


@cache
def app_registry() -> RendererRegistry:
    return default_registry()


def render_messages(
    messages: Sequence[dict[str, Any]],
    *,
    width: int,
    ids: Sequence[str] | None = None,
    expanded: bool = False,
) -> list[RenderableType]:
    """Context messages drawn by the registry (tool results with the call they answer);
    ``expanded``: nothing folded ("show all")."""
    ctx = RenderContext(width=width, expanded=expanded)
    return draw_messages(app_registry(), messages, ctx, ids=ids)


def drawn_by_plugin(raw: Mapping[str, Any]) -> bool:
    """Whether a plug-in (not pitui's built-ins) draws this entry."""
    registry = app_registry()
    found = registry.lookup(registry.entry(raw))
    return found is not None and _from_plugin(found)


def _from_plugin(registration: Registration) -> bool:
    # (pitui's own renderers load through an entry point too, but are never isolated)
    return registration.plugin is not None and registration.isolated


def has_plugin_compact_forms() -> bool:
    """Whether any plug-in registered a one-line form (so list rows may ask for one)."""
    registry = app_registry()
    registry.load_plugins()
    return any(_from_plugin(reg) and reg.compact for reg in registry.registrations())


def plugin_compact_line(raw: Mapping[str, Any], width: int) -> Text | None:
    """A plug-in's one-line form of this entry (sanitized, never raising), or None when no
    plug-in draws it in one line."""
    registry = app_registry()
    entry = registry.entry(raw)
    found = registry.lookup_compact(entry)
    if found is None or not _from_plugin(found):
        return None
    return registry.render_compact(entry, RenderContext(width=width))
