"""The picker's search editor: pi's editing keys (the picker's own keys are the screen's)."""

from __future__ import annotations

from textual.binding import Binding

from pitui.ui.widgets.safe_input import SafeInput


class SearchInput(SafeInput):
    """A :class:`SafeInput` whose word-deletion keys behave like pi's editor.

    Keys the picker needs while typing (Tab, Ctrl+D, Ctrl+C, Ctrl+R, …) are priority bindings of
    the screen, so they win over ``Input``'s own (Ctrl+D would otherwise delete a character).
    """

    BINDINGS = [
        Binding("alt+backspace,ctrl+w", "delete_left_word", "Delete word left", show=False),
    ]
