"""What every command shares: the error type, safe printing, JSON output."""

from __future__ import annotations

import re
import sys
from typing import Any

import orjson

from pitui.core.session import EntryMeta
from pitui.render.safe_text import sanitize_plain


class CommandError(Exception):
    """A user-facing failure: printed as one line on stderr, exit code 1."""


def out(text: str) -> None:
    """Print human output; session text in it can never act on the terminal."""
    sys.stdout.write(sanitize_plain(text, reveal_invisible=False) + "\n")


# JSON escapes C0 itself; C1 controls, line/paragraph separators and bidi controls are valid raw
# in JSON but some terminals act on them, so they are written as \u escapes too (still valid JSON).
_UNSAFE_IN_JSON = re.compile("[\u0080-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]")


def json_text(value: Any, *, indent: bool = True) -> str:
    text = orjson.dumps(value, option=orjson.OPT_INDENT_2 if indent else 0).decode()
    return _UNSAFE_IN_JSON.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def emit_json(value: Any) -> None:
    """JSON on stdout, terminal-safe: no control character reaches the terminal raw."""
    sys.stdout.write(json_text(value) + "\n")
    sys.stdout.flush()


def format_cost(cost: float) -> str:
    return f"${cost:.4f}" if cost < 1 else f"${cost:.2f}"


def entry_label(meta: EntryMeta) -> str:
    kind = f"{meta.type}/{meta.role}" if meta.role else meta.type
    return f"{meta.uid} ({kind}, line {meta.line})"
