"""JavaScript string semantics that pi's behaviour depends on.

pi is written in TypeScript, so "trim", "whitespace" and "lower case" mean what JavaScript says,
not what Python's ``str`` methods do (spec: session-format §8.2, ui-behaviour §2.5).
"""

from __future__ import annotations

import re
from typing import Any

# JavaScript's `\s` (and the set String.prototype.trim removes): WhiteSpace + LineTerminator.
JS_WHITESPACE = (
    "\t\n\x0b\x0c\r \u00a0\u1680"
    "\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000\ufeff"
)

_WS_CLASS = "[" + re.escape(JS_WHITESPACE) + "]"
JS_WHITESPACE_RUN = re.compile(_WS_CLASS + "+")
_LINE_BREAK_RUN = re.compile(r"[\r\n]+")


def js_trim(text: str) -> str:
    """``String.prototype.trim``: strips exactly JavaScript's white space, U+FEFF included."""
    return text.strip(JS_WHITESPACE)


def js_is_space(char: str) -> bool:
    return char in JS_WHITESPACE


def normalize_session_name(name: str) -> str:
    """Name as pi 1.x writes it: runs of CR/LF become one space, then trimmed (format §8.2)."""
    return js_trim(_LINE_BREAK_RUN.sub(" ", name))


def js_truthy_label(value: Any) -> str | None:
    """A label value as pi resolves it: truthy → its display string, falsy → ``None`` (clear)."""
    if (
        value is None
        or value is False
        or value == ""
        or (type(value) in (int, float) and not value)
    ):
        return None
    if isinstance(value, str):
        return value
    if value is True:
        return "true"
    if type(value) is float and value.is_integer():
        return str(int(value))
    if type(value) in (int, float):
        return str(value)
    import orjson  # (a label that is an object or array: rare)

    return orjson.dumps(value).decode()
