"""The session view (:class:`SessionScreen`): screen, pure state, live follow."""

from pitui.ui.screens.session.screen import SessionScreen

__all__ = ["SessionScreen"]
