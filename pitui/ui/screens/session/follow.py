"""Following the shown file while pi writes it: the file as last seen on disk, the watcher over
its folder, and bringing the session index up to date with what the file holds now.

Appended bytes are read on the event loop (a few lines); a replaced file is read whole in a thread,
then installed into the index in place. The screen holds its lock around :func:`catch_up` and
redraws from the :class:`Change` it returns.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from textual.notifications import SeverityLevel

from pitui.core import edit
from pitui.core.session import EntryMeta, Session, SessionError
from pitui.core.watch import SessionWatcher, WatchEvent
from pitui.render.safe_text import one_line

HEAD_LIMIT = 1 << 20  # what SessionWatcher compares of a file's first line
REPLACED = "The session file was replaced on disk and has been reloaded"

Notice = tuple[str, SeverityLevel]


def head_line(path: str) -> bytes:
    """The file's first line as SessionWatcher compares it (to tell a replaced file)."""
    with open(path, "rb") as handle:
        data = handle.read(HEAD_LIMIT)
    end = data.find(b"\n")
    return data if end < 0 else data[:end]


class OneFileWatcher(SessionWatcher):
    """A SessionWatcher over the file's folder that reads only the one file shown (the folder
    holds the project's other sessions, which pi may be writing too)."""

    def __init__(self, path: str, debounce_ms: int) -> None:
        super().__init__(os.path.dirname(path), debounce_ms=debounce_ms)
        self.path = path

    def process(self, paths: Any) -> list[WatchEvent]:
        return super().process([p for p in paths if p == self.path])


@dataclass(slots=True)
class LiveFile:
    """The shown file as last seen on disk."""

    path: str
    inode: tuple[int, int] = (0, 0)  # (device, inode): a different one is a replaced file
    size: int = 0
    mtime: float = 0.0
    read_only: bool = False  # deleted on disk: the last content stays shown, nothing is written
    grew_at: float = 0.0  # monotonic time the file last grew (pi is writing)

    def seen(self, *, identity: bool = False) -> None:
        """Note the file's size and time (``identity``: and which file it is) as they are now."""
        try:
            stat = os.stat(self.path)
        except OSError:
            return
        self.size, self.mtime = stat.st_size, stat.st_mtime
        if identity:
            self.inode = (stat.st_dev, stat.st_ino)

    def grew(self) -> None:
        self.grew_at = time.monotonic()

    def pi_writing(self) -> bool:
        return time.monotonic() - self.grew_at < edit.BUSY_SECONDS


@dataclass(frozen=True, slots=True)
class Change:
    """What :func:`catch_up` found: the index is ``unchanged``, ``grew`` by ``new`` entries, was
    ``replaced`` by a new reading of the file, or the file is ``gone`` (``deleted``: it is not on
    disk). ``notices`` are for the user."""

    kind: Literal["unchanged", "grew", "replaced", "gone"]
    new: Sequence[EntryMeta] = ()
    notices: tuple[Notice, ...] = ()
    deleted: bool = False


def _error(text: str) -> Notice:
    return one_line(text, 300), "error"


async def reload(session: Session, live: LiveFile, notices: tuple[Notice, ...] = ()) -> Change:
    """Read the whole file again (in a thread) and install it into ``session``."""
    try:
        fresh = await asyncio.to_thread(Session.open, live.path)
    except (SessionError, OSError) as exc:
        return Change("gone", notices=(*notices, _error(f"Reload failed: {exc}")))
    install(session, live, fresh)
    return Change("replaced", notices=notices)


def install(session: Session, live: LiveFile, fresh: Session) -> None:
    """Take over a freshly read index of the file (reloaded or migrated)."""
    session.replace_with(fresh)
    live.seen(identity=True)


async def catch_up(session: Session, live: LiveFile) -> Change:
    """Bring the index up to date with the file (the caller holds the screen's lock)."""
    try:
        stat = os.stat(live.path)
    except FileNotFoundError:
        return Change("gone", deleted=True)
    except OSError as exc:
        return Change("gone", notices=(_error(f"Cannot read the session file: {exc}"),))
    if live.read_only:  # it came back
        live.read_only = False
        return await reload(session, live, (("The session file is back on disk", "information"),))
    if (stat.st_dev, stat.st_ino) != live.inode or stat.st_size < session.end_offset:
        return await reload(session, live, ((REPLACED, "information"),))
    try:
        result = session.refresh()
    except SessionError as exc:
        return Change("unchanged", notices=(_error(f"Cannot read the session file: {exc}"),))
    if result.kind == "replaced":  # rewritten in place (same inode, first line changed)
        live.seen(identity=True)
        return Change("replaced", notices=((REPLACED, "information"),))
    live.seen()
    if result.kind == "grew":
        return Change("grew", new=result.new)
    return Change("unchanged")
