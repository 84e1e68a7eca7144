"""The one renderer registry the app draws with (built-ins + plug-ins), made on first use."""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Any

from rich.console import RenderableType

from pitui.render import default_registry
from pitui.render import render_messages as draw_messages
from pitui.render.registry import RenderContext, RendererRegistry


@cache
def app_registry() -> RendererRegistry:
    return default_registry()


def render_messages(
    messages: Sequence[dict[str, Any]], *, width: int, ids: Sequence[str] | None = None
) -> list[RenderableType]:
    """Context messages drawn by the registry (tool results with the call they answer)."""
    return draw_messages(app_registry(), messages, RenderContext(width=width), ids=ids)
