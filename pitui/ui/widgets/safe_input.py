"""An ``Input`` that never holds a character that could act on the terminal.

Textual draws an ``Input``'s value as it is: an escape sequence in a session's name or label,
pre-filled into the rename or label dialog, or pasted into the search, would reach the terminal.
Every value set here (typed, pasted, pre-filled) is made safe first: line breaks and tabs become
spaces; control characters, escape sequences, bidi controls and lone surrogates are removed.
"""

from __future__ import annotations

from textual import events
from textual.widgets import Input

from pitui.render.safe_text import has_unsafe, sanitize_plain


def input_safe(value: str) -> str:
    """``value`` as a one-line input may hold it (unchanged when it is already safe).

    Every line break Python knows (``\\n``, ``\\r``, U+2028, NEL, …: ``str.splitlines``'s) becomes
    a space: a name with a newline, pre-filled, would draw its second line outside the dialog."""
    if "\t" not in value and "\n" not in value and "\r" not in value and not has_unsafe(value):
        return value  # what typing produces: checked without copying
    flat = " ".join(value.replace("\t", " ").splitlines())
    return sanitize_plain(flat, reveal_invisible=False, strip=True)


class SafeInput(Input):
    def validate_value(self, value: str) -> str:
        # (a Textual reactive validator: runs on every assignment to ``value``)
        return input_safe(value)

    def _on_paste(self, event: events.Paste) -> None:
        # Textual's Input keeps the first line of a paste; a name pasted from a few lines of
        # notes should arrive whole, on one line.
        event.prevent_default()
        event.stop()
        text = input_safe(event.text)
        if not text:
            return
        if self.selection.is_empty:
            self.insert_text_at_cursor(text)
        else:
            self.replace(text, *self.selection)
