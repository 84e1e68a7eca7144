"""Renderer plug-ins as entry points: listing them (without importing) and their load order.

Importing a plug-in and calling its ``register(registry)`` is the registry's work
(:meth:`pitui.render.registry.RendererRegistry.load_plugins`); this module finds what to load,
in which order, and tells pitui's own code from a plug-in's.
"""

from __future__ import annotations

import importlib.metadata
from collections.abc import Iterable
from dataclasses import dataclass

from pitui.render.fallback import exception_text

__all__ = [
    "ENTRY_POINT_GROUP",
    "PluginInfo",
    "PluginWarning",
    "callable_name",
    "discover_entry_points",
    "is_pitui_code",
    "order_entry_points",
]

ENTRY_POINT_GROUP = "pitui.renderers"


@dataclass(frozen=True)
class PluginInfo:
    """An entry point of the ``pitui.renderers`` group, as listed (not imported)."""

    name: str
    value: str
    distribution: str | None


@dataclass(frozen=True)
class PluginWarning:
    plugin: str
    value: str
    message: str

    def __str__(self) -> str:
        return f"renderer plug-in '{self.plugin}' ({self.value}): {self.message}"


def order_entry_points(
    eps: Iterable[importlib.metadata.EntryPoint],
) -> list[importlib.metadata.EntryPoint]:
    """Duplicates dropped; pitui's own first, then the others by distribution and name."""
    unique: dict[tuple[str, str], importlib.metadata.EntryPoint] = {}
    for ep in eps:
        unique.setdefault((ep.name, ep.value), ep)

    def sort_key(ep: importlib.metadata.EntryPoint) -> tuple[bool, str, str]:
        module = ep.value.partition(":")[0].strip()
        own = module == "pitui" or module.startswith("pitui.")
        dist = ep.dist.name if ep.dist is not None else ""
        return (not own, dist, ep.name)

    return sorted(unique.values(), key=sort_key)


def discover_entry_points() -> tuple[list[importlib.metadata.EntryPoint], list[PluginWarning]]:
    """The group's entry points in load order, and a warning if the metadata could not be read."""
    try:
        eps = importlib.metadata.entry_points(group=ENTRY_POINT_GROUP)
    except Exception as exc:  # broken metadata somewhere on sys.path
        return [], [PluginWarning("*", ENTRY_POINT_GROUP, exception_text(exc))]
    return order_entry_points(eps), []


def is_pitui_code(func: object) -> bool:
    """Whether ``func`` is pitui's own code (None counts: there is nothing to run)."""
    if func is None:
        return True
    module = getattr(func, "__module__", None) or ""
    return module == "pitui" or module.startswith("pitui.")


def callable_name(func: object) -> str:
    module = getattr(func, "__module__", None)
    qualname = getattr(func, "__qualname__", None) or type(func).__qualname__
    return f"{module}.{qualname}" if module else str(qualname)
