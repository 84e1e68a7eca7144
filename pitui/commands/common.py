"""What every command shares: the error type, safe printing, JSON output."""

from __future__ import annotations

import json
import re
import sys
from typing import TYPE_CHECKING, Any

import orjson

if TYPE_CHECKING:
    from pitui.core.session import EntryMeta


class CommandError(Exception):
    """A user-facing failure: printed as one line on stderr, exit code 1."""


def out(text: str) -> None:
    """Print human output; session text in it can never act on the terminal."""
    # imported here: commands that print only JSON start without Rich and the renderers
    from pitui.render.safe_text import sanitize_plain

    sys.stdout.write(sanitize_plain(text, reveal_invisible=False) + "\n")


# JSON escapes C0 itself; C1 controls, line/paragraph separators and bidi controls are valid raw
# in JSON but some terminals act on them, so they are written as \u escapes too (still valid JSON).
_UNSAFE_IN_JSON = re.compile("[\u0080-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]")


def json_text(value: Any, *, indent: bool = True) -> str:
    try:
        text = orjson.dumps(value, option=orjson.OPT_INDENT_2 if indent else 0).decode()
    except TypeError:
        # orjson refuses lone surrogates (pi's "\ud83d" escapes): the standard encoder writes
        # them as \u escapes, which is still valid JSON
        text = json.dumps(value, indent=2 if indent else None, ensure_ascii=True)
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
