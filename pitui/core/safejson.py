"""JSON that is safe to print on a terminal.

JSON escapes C0 controls itself, but DEL, C1 controls, line and paragraph separators and bidi
controls are valid raw in JSON and some terminals act on them. Everything pitui prints as JSON
(``list --json``, ``inspect --json``, ``export -f jsonl`` to a terminal) has them written as
``\\u`` escapes — still the same JSON.
"""

from __future__ import annotations

import json
import re
from typing import Any

import orjson

__all__ = ["dumps", "dumps_bytes", "escape_unsafe", "escape_unsafe_bytes"]

_UNSAFE = re.compile("[\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]")
# The same characters as UTF-8 bytes (DEL; C1 as \xc2\x80-\x9f; U+061C; U+200E-F, U+2028-E;
# U+2066-9), for text that is already encoded.
_UNSAFE_BYTES = re.compile(
    rb"\x7f|\xc2[\x80-\x9f]|\xd8\x9c|\xe2\x80[\x8e\x8f\xa8-\xae]|\xe2\x81[\xa6-\xa9]"
)


def escape_unsafe(text: str) -> str:
    """``text`` (JSON) with the characters terminals act on written as ``\\u`` escapes."""
    if text.isascii() and "\x7f" not in text:
        return text  # (the common case, in two scans in C: megabytes of ids and numbers)
    return _UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def escape_unsafe_bytes(data: bytes) -> bytes:
    """:func:`escape_unsafe` on UTF-8 JSON bytes."""
    if data.isascii() and b"\x7f" not in data:
        return data
    return _UNSAFE_BYTES.sub(lambda m: b"\\u%04x" % ord(m.group().decode()), data)


def dumps(value: Any, *, indent: bool = True) -> str:
    """``value`` as terminal-safe JSON (orjson's; a lone surrogate, which orjson refuses, is
    written by the standard encoder as a ``\\u`` escape, still valid JSON)."""
    try:
        text = orjson.dumps(value, option=orjson.OPT_INDENT_2 if indent else 0).decode()
    except TypeError:
        text = json.dumps(value, indent=2 if indent else None, ensure_ascii=True)
    return escape_unsafe(text)


def dumps_bytes(value: Any, *, indent: bool = True) -> bytes:
    """:func:`dumps` as UTF-8 bytes, for output megabytes long (never decoded to a string)."""
    try:
        data = orjson.dumps(value, option=orjson.OPT_INDENT_2 if indent else 0)
    except TypeError:
        data = json.dumps(value, indent=2 if indent else None, ensure_ascii=True).encode()
    return escape_unsafe_bytes(data)
