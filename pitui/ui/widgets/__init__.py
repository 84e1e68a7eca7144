"""Widgets of the pitui app, one per module (the branch tree, the session list, the preview…)."""
