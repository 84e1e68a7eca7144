"""The session picker (pi's ``/resume``): the screen, its pure state, its workers."""

from pitui.ui.screens.picker.screen import PickerScreen

__all__ = ["PickerScreen"]
