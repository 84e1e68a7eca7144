"""pi's own look as Textual themes (colours from pi's built-in ``dark`` and ``light`` themes)."""

from __future__ import annotations

from textual.theme import Theme

PI_DARK = Theme(
    name="pi-dark",
    primary="#5f87ff",  # pi: border
    secondary="#00d7ff",  # pi: borderAccent
    accent="#8abeb7",  # pi: accent
    success="#b5bd68",
    warning="#ffff00",
    error="#cc6666",
    foreground="#d0d0d0",
    background="#1c1c1c",
    surface="#242424",
    panel="#2d2d30",
    boost="#3a3a4a",  # pi: selectedBg
    dark=True,
    variables={
        "text-muted": "#808080",  # pi: muted
        "text-disabled": "#666666",  # pi: dim
        "block-cursor-background": "#3a3a4a",
        "block-cursor-foreground": "#ffffff",
        "footer-key-foreground": "#8abeb7",
    },
)

PI_LIGHT = Theme(
    name="pi-light",
    primary="#547da7",
    secondary="#5a8080",
    accent="#5a8080",
    success="#588458",
    warning="#9a7326",
    error="#aa5555",
    foreground="#1e1e1e",
    background="#fafafa",
    surface="#f0f0f0",
    panel="#e8e8e8",
    boost="#d0d0e0",
    dark=False,
    variables={
        "text-muted": "#6c6c6c",
        "text-disabled": "#767676",
        "block-cursor-background": "#d0d0e0",
        "block-cursor-foreground": "#000000",
        "footer-key-foreground": "#5a8080",
    },
)

THEMES = (PI_DARK, PI_LIGHT)


def theme_problem(name: str) -> str | None:
    """Why ``name`` is not a theme pitui can show (pi's two and Textual's own), or None."""
    from textual.theme import BUILTIN_THEMES

    names = sorted({theme.name for theme in THEMES} | set(BUILTIN_THEMES))
    if name in names:
        return None
    return f"no theme {name!r} (themes: {', '.join(names)})"
