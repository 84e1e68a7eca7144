"""``python -m pitui``."""

from pitui.cli import entry_point

entry_point()
