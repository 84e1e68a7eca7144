"""Pinned sessions: shown first in the picker, kept in ``$XDG_DATA_HOME/pitui/pins.json``.

pitui's own file, never pi's: pinning writes nothing into a session. The file is a JSON object
``{"version": 1, "pins": [path, …]}`` (most recently pinned first), replaced atomically (temp
file, fsync, rename) under the data dir's lock, so two pitui processes do not lose a pin. A
pinned session whose file is gone is dropped silently (left out when read, removed at the next
write); a damaged or unreadable file reads as no pins.
"""

from __future__ import annotations

import os
from collections.abc import Collection, Sequence
from pathlib import Path
from typing import TypeVar

import orjson

from pitui.core.journal import data_dir_locked
from pitui.core.paths import data_dir
from pitui.core.search import Row, SearchableSession

__all__ = ["PINS_FILE", "PinError", "Pins", "pinned_first"]

S = TypeVar("S", bound=SearchableSession)

PINS_FILE = "pins.json"
_VERSION = 1


class PinError(Exception):
    """The pins could not be written; ``str(exc)`` is one line, the old file is intact."""


class Pins:
    """The pinned sessions of one data dir (default: pitui's)."""

    def __init__(self, folder: Path | None = None) -> None:
        self._folder = folder

    @property
    def path(self) -> Path:
        return (self._folder if self._folder is not None else data_dir()) / PINS_FILE

    def load(self) -> list[str]:
        """The pinned session files that still exist, most recently pinned first."""
        return [path for path in self._read() if os.path.isfile(path)]

    def toggle(self, session: str) -> bool:
        """Pin ``session`` (a session file), or unpin it if it was pinned; whether it is pinned
        now. Raises :class:`PinError` when the file cannot be written."""
        session = os.path.abspath(session)
        with data_dir_locked(self.path.parent):
            pins = self.load()
            pinned = session not in pins
            pins = [session, *pins] if pinned else [p for p in pins if p != session]
            self._write(pins)
        return pinned

    def _read(self) -> list[str]:
        try:
            data = orjson.loads(self.path.read_bytes())
        except (OSError, orjson.JSONDecodeError):
            return []
        pins = data.get("pins") if isinstance(data, dict) else None
        if not isinstance(pins, list):
            return []
        return list(dict.fromkeys(p for p in pins if isinstance(p, str) and os.path.isabs(p)))

    def _write(self, pins: list[str]) -> None:
        # (imported here: the picker starts without the write path and its models)
        from pitui.core.edit import WriteError, atomic_write

        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise PinError(f"{self.path.parent}: {exc.strerror or exc}") from exc
        data = orjson.dumps({"version": _VERSION, "pins": pins}, option=orjson.OPT_INDENT_2)
        try:
            atomic_write(str(self.path), [data, b"\n"])
        except WriteError as exc:
            raise PinError(str(exc)) from exc


def pinned_first(rows: Sequence[Row[S]], pinned: Collection[str]) -> list[Row[S]]:
    """The picker's rows with the pinned sessions' first, in
    the order they came, flat (out of their thread: depth 0, no tree prefix); the others keep
    their order and places in their threads."""
    if not pinned:
        return list(rows)
    top = [row._replace(depth=0, prefix="") for row in rows if row.item.path in pinned]
    if not top:
        return list(rows)
    return top + [row for row in rows if row.item.path not in pinned]
