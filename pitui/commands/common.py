"""What every command shares: the error type, safe printing, JSON output, a progress line."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pitui.core.session import EntryMeta

# A progress line shows only for work over this many files (a shorter one would only flicker).
PROGRESS_MIN_FILES = 200


class CommandError(Exception):
    """A user-facing failure: printed as one line on stderr, exit code 1."""


class ProgressLine:
    """``{verb} n/total`` on stderr, redrawn in place; :meth:`end` clears it."""

    def __init__(self, verb: str) -> None:
        self.verb = verb
        self.shown = False

    def __call__(self, done: int, total: int) -> None:
        if total < PROGRESS_MIN_FILES:
            return
        sys.stderr.write(f"\r{self.verb} {done}/{total}")
        sys.stderr.flush()
        self.shown = True

    def end(self) -> None:
        if self.shown:
            sys.stderr.write("\r\x1b[K")
            sys.stderr.flush()
            self.shown = False


@contextmanager
def progress_line(verb: str) -> Iterator[ProgressLine | None]:
    """A :class:`ProgressLine` while the block runs (``None`` when stderr is not a terminal),
    cleared when it ends, error or not."""
    progress = ProgressLine(verb) if sys.stderr.isatty() else None
    try:
        yield progress
    finally:
        if progress is not None:
            progress.end()


def out(text: str) -> None:
    """Print human output; session text in it can never act on the terminal."""
    # imported here: commands that print only JSON start without Rich and the renderers
    from pitui.render.safe_text import sanitize_plain

    sys.stdout.write(sanitize_plain(text, reveal_invisible=False) + "\n")


def json_text(value: Any, *, indent: bool = True) -> str:
    from pitui.core.safejson import dumps  # (here: `pitui list --json` may never need orjson)

    return dumps(value, indent=indent)


def emit_json(value: Any) -> None:
    """JSON on stdout, terminal-safe: no control character reaches the terminal raw."""
    sys.stdout.write(json_text(value) + "\n")
    sys.stdout.flush()


def emit_json_bytes(data: bytes) -> None:
    """Already terminal-safe JSON text (UTF-8) on stdout, and a newline, in one write."""
    sys.stdout.flush()
    buffer = getattr(sys.stdout, "buffer", None)
    encoding = (getattr(sys.stdout, "encoding", None) or "").lower().replace("_", "-")
    if buffer is None or encoding not in ("utf-8", "utf8"):
        sys.stdout.write(data.decode() + "\n")
    else:
        buffer.write(data)  # (data + b"\n" would copy megabytes)
        buffer.write(b"\n")
        buffer.flush()
    sys.stdout.flush()


def format_cost(cost: float) -> str:
    return f"${cost:.4f}" if cost < 1 else f"${cost:.2f}"


def entry_label(meta: EntryMeta) -> str:
    kind = f"{meta.type}/{meta.role}" if meta.role else meta.type
    return f"{meta.uid} ({kind}, line {meta.line})"
