"""Byte counts for people: the one way pitui writes a size (``90 B``, ``1.5 KiB``, ``3.2 MiB``)."""

from __future__ import annotations


def format_bytes(size: float | None) -> str:
    """``size`` bytes in binary units, one decimal past bytes; ``None`` (unknown): ``? bytes``."""
    if size is None:
        return "? bytes"
    if size < 1024:
        return f"{size:.0f} B"
    value = float(size)
    for unit in ("KiB", "MiB", "GiB"):
        value /= 1024
        if value < 1024 or unit == "GiB":
            break
    return f"{value:.1f} {unit}"
