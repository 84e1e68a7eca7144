"""``python -m pitui``."""

from pitui.cli.main import entry_point

entry_point()
