"""The guards of every write pitui makes to a session file, and the guarded append.

The guards of an append (:func:`append`), in the order they apply:

1. the file is re-read first, so the entries are computed from what is on disk now (what pi
   appended meanwhile counts: ids stay unique, the parent is the current leaf);
2. a last line that is still being written (no newline yet, the file not quiet) is never written
   onto, even forced: "the last line is still being written";
3. a file modified in the last :data:`~pitui.core.edit.BUSY_SECONDS` is taken to be pi's, and
   refused unless forced, except when it is exactly as pitui's own last write left it
   (:mod:`pitui.core.journal`: a chained command is not refused by its predecessor's write);
4. a file without format version that already holds a tree is refused unless forced (pi would
   linearize it);
5. temp files that killed rewrites left in the folder are removed;
6. a v1/v2 file is migrated to version 3 by an atomic rewrite, as pi does before writing; a
   migration that would drop or change lines (malformed, cut or invalid UTF-8 lines, a second
   header, a number too big for JSON: pi drops them too when it opens the file) is refused unless
   forced, and then a copy of the original goes to the trash first;
7. a complete last line without its newline (tools that join lines with ``\\n``) gets it in the
   same single write as the entries; a cut last line (it does not parse, the file is quiet) only
   when forced;
8. after the write the file is read again and must hold the new entries.

Every refusal is a :class:`~pitui.core.edit.WriteError` (``FileBusyError`` when waiting or
forcing would help) with a one-line message; nothing is written then.

:mod:`pitui.core.actions` (one function per user action), :mod:`pitui.core.prune` and
:class:`~pitui.core.manager.SessionManager` write through these.
"""

from __future__ import annotations

import contextlib
import math
import os
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from pitui.core import edit, journal
from pitui.core import trash as trash_files
from pitui.core.edit import FileBusyError, WriteError
from pitui.core.jsonl import parse_json_line
from pitui.core.paths import open_regular
from pitui.core.problems import ProblemKind
from pitui.core.session import Session
from pitui.core.stringify import dump_entry
from pitui.core.units import plural

__all__ = [
    "Build",
    "MigrationLossError",
    "Written",
    "append",
    "append_entries",
    "busy_age",
    "check_write",
    "migrate",
    "migration_losses",
    "sweep_stale_temps",
    "trash_original",
]

Build = Callable[[Session], list[dict[str, Any]]]
# Reading back from the end of a file to find its last line, this much at a time.
_TAIL_CHUNK = 1 << 16


@dataclass(frozen=True, slots=True)
class Written:
    """What an append wrote: the entries (the last is the new leaf), and what it did first."""

    path: str
    entries: list[dict[str, Any]]
    migrated: bool  # the v1/v2 file was rewritten as version 3 first
    ended_line: bool  # the newline the last line lacked was written first
    # where the file as it was before a migration that dropped lines is kept (in the trash)
    original_kept: str | None = None

    @property
    def entry_id(self) -> str:
        return str(self.entries[-1]["id"])

    @property
    def notice(self) -> str | None:
        """What the user should know beyond the entry written (a lossy migration), or None."""
        if self.original_kept is None:
            return None
        return (
            f"{self.path} was migrated to format version 3 first, dropping what pi drops; the "
            f"original is in the trash: {self.original_kept}"
        )


# ------------------------------------------------------------------------------------ guards


def busy_age(path: str, *, clock: float | None = None) -> float | None:
    """Seconds since someone other than pitui wrote ``path``, if that is under
    :data:`~pitui.core.edit.BUSY_SECONDS` (pi may be working in it); ``None`` when it is quiet
    or exactly as pitui's own last write left it. Raises ``OSError`` if it cannot be looked at."""
    stat = os.stat(path)
    age = (time.time() if clock is None else clock) - stat.st_mtime
    if age >= edit.BUSY_SECONDS or journal.written_by_pitui(path, stat):
        return None
    return max(age, 0.0)


def _last_line(path: str, size: int) -> Literal["ended", "complete", "cut"]:
    """How the file ends: with a newline, with a whole line that lacks it, or with a cut line."""
    if size == 0:
        return "ended"
    with open(open_regular(path), "rb") as handle:
        if os.pread(handle.fileno(), 1, size - 1) == b"\n":
            return "ended"
        tail = b""
        start = size
        while start > 0 and b"\n" not in tail:
            step = min(_TAIL_CHUNK, start)
            start -= step
            tail = os.pread(handle.fileno(), step, start) + tail
    line = tail.rsplit(b"\n", 1)[-1].rstrip(b"\r")
    if line.startswith(b"\xef\xbb\xbf"):
        line = line[3:]
    value, kind, _ = parse_json_line(line)
    return "cut" if value is None and kind is not None else "complete"


def check_write(
    session: Session,
    *,
    force: bool = False,
    clock: float | None = None,
    linearize: bool | None = None,
) -> bool:
    """Guards 2-5 (see the module docstring) on a session the caller has just re-read. Raises
    what refuses the write; returns whether the file's last line needs its newline first (pass
    it on to :func:`append_entries`). ``linearize`` (default: ``force``) lets a file without
    format version that holds a tree be migrated as pi would read it: a caller whose ``force``
    only answers "pi may be writing" passes ``False``."""
    path = session.path
    if path == "<memory>":
        raise WriteError("an in-memory session has no file to write")
    try:
        stat = os.stat(path)
        if session.pending:
            raise FileBusyError(
                f"{path}: the last line is still being written (pi is writing it); try again "
                "in a moment"
            )
        ending = _last_line(path, stat.st_size)
        age = busy_age(path, clock=clock)
    except OSError as exc:
        raise WriteError(f"{path}: {exc.strerror or exc}") from exc
    if age is not None and not force:
        raise FileBusyError(
            f"{path} was written {age:.1f}s ago: pi may be working in it "
            "(use --force, or confirm in the app, to write anyway)"
        )
    trap_allowed = force if linearize is None else linearize
    if not trap_allowed and any(p.kind is ProblemKind.VERSION_TRAP for p in session.problems):
        raise WriteError(
            f"{path} has no format version but already holds a tree; pi would linearize it. "
            "Refusing to rewrite it (use --force to migrate it as pi would read it)"
        )
    if ending == "cut" and not force:
        raise WriteError(
            f"{path} ends with a cut-off line that is not valid JSON (a writer stopped in the "
            "middle of it); use --force to end that line and append after it"
        )
    sweep_stale_temps(os.path.dirname(path))
    return ending != "ended"


# when this process last looked for stale temp files in each folder (time.monotonic())
_temps_checked: dict[str, float] = {}


def sweep_stale_temps(folder: str) -> None:
    """:func:`edit.remove_stale_temps`, at most once a minute per folder: a temp file must be a
    minute old to be stale, so looking more often finds nothing more (and a folder of thousands
    of sessions costs milliseconds to list, at every append of a library user)."""
    now = time.monotonic()
    if now - _temps_checked.get(folder, -edit.STALE_TEMP_SECONDS) < edit.STALE_TEMP_SECONDS:
        return
    _temps_checked[folder] = now
    edit.remove_stale_temps(folder)


class MigrationLossError(WriteError):
    """Migrating would drop or change lines (as pi does when it opens the file); ``lines`` are
    ``(line number, what happens to it)``. Nothing was written."""

    def __init__(self, path: str, lines: list[tuple[int, str]]) -> None:
        shown = ", ".join(f"line {line} ({why})" for line, why in lines[:5])
        more = f" and {len(lines) - 5} more" if len(lines) > 5 else ""
        super().__init__(
            f"{path} is in an old format: migrating it to version 3 before writing (as pi does) "
            f"would drop or change {plural(len(lines), 'line')}, as pi "
            f"does when it opens it: {shown}{more}. Nothing was written (use --force to "
            "migrate anyway; the original is kept in the trash)"
        )
        self.lines = lines


# what a rewrite loses of the lines the reader reported
_LOST = {
    ProblemKind.MALFORMED: "not JSON: dropped",
    ProblemKind.TRUNCATED: "cut off: dropped",
    ProblemKind.DUPLICATE_HEADER: "a second header: dropped",
    ProblemKind.INVALID_UTF8: "invalid UTF-8 bytes: replaced by U+FFFD",
}


def _has_non_finite(value: Any) -> bool:
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, float) and not math.isfinite(item):
            return True
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


def migration_losses(session: Session) -> list[tuple[int, str]]:
    """The lines a migration of this v1/v2 file would drop or change (empty for version 3)."""
    if session.original_version >= 3:
        return []
    lost = {p.line: _LOST[p.kind] for p in session.problems if p.kind in _LOST}
    for meta in session.entries:
        if meta.line not in lost and _has_non_finite(session.raw(meta)):
            lost[meta.line] = "a number too big for JSON: becomes null"
    return sorted(lost.items())


def trash_original(path: str, suffix: str) -> tuple[str, trash_files.TrashedItem | None]:
    """The file as it is now, under ``<name><suffix>`` beside it, moved to the trash: a second
    link to the same bytes (no copy of a big file) where the file system has links, else a copy.
    Returns where it went and its trash record (None where the trash keeps none)."""
    copy = f"{path}{suffix}"
    try:
        try:
            os.link(path, copy)
        except FileExistsError:
            raise
        except OSError:
            shutil.copy2(path, copy)
        item = trash_files.trash(copy)
    except (OSError, trash_files.TrashError) as exc:
        if not isinstance(exc, FileExistsError):
            with contextlib.suppress(OSError):
                os.unlink(copy)
        raise WriteError(
            f"{path}: the original could not be kept in the trash ({exc}); nothing was written"
        ) from exc
    return (item.stored if item is not None else copy), item


def _keep_in_trash(path: str) -> str:
    """The original (``<name>.before-migration``) in the trash; returns where it went.
    ``pitui restore`` gives the copy back under that name."""
    return trash_original(path, ".before-migration")[0]


def _migrate(session: Session, *, allow_loss: bool) -> tuple[bool, str | None]:
    if session.original_version >= 3:
        return False, None
    losses = migration_losses(session)
    if losses and not allow_loss:
        raise MigrationLossError(session.path, losses)
    kept = _keep_in_trash(session.path) if losses else None
    edit.migrate_file(session)
    journal.remember_write(session.path)
    return True, kept


def migrate(session: Session, *, allow_loss: bool = False) -> bool:
    """Rewrite a v1/v2 file as version 3 (atomic), as pi does before writing (format §4.3).
    Returns whether it did; the session is read again afterwards. A migration that would drop or
    change lines (:func:`migration_losses`) raises :class:`MigrationLossError`, unless
    ``allow_loss``: then a copy of the original goes to the trash first."""
    return _migrate(session, allow_loss=allow_loss)[0]


def append_entries(
    session: Session, entries: list[dict[str, Any]], *, end_line: bool = False
) -> edit.FileState:
    """The write itself, after :func:`check_write` (and :func:`migrate`): the entries as whole
    lines in one write, only onto the file exactly as the session last read it; remembered as
    pitui's own write. The session is not re-read (the caller follows the file)."""
    lines = [dump_entry(entry) for entry in entries]
    expect = edit.FileState(edit.session_inode(session), session.end_offset)
    state = edit.append_lines(session.path, lines, expect, end_line=end_line)
    journal.remember_write(session.path)
    return state


def append(
    session: Session, build: Build, *, force: bool = False, clock: float | None = None
) -> Written:
    """Append what ``build`` makes from the up-to-date session, behind every guard (see the
    module docstring). ``build`` runs after the re-read and the migration, so the entries it
    makes hold ids unique in the file and parents that exist."""
    session.refresh()
    end_line = check_write(session, force=force, clock=clock)
    migrated, kept = _migrate(session, allow_loss=force)
    if migrated:
        end_line = False  # the rewrite ended every line
    entries = build(session)
    append_entries(session, entries, end_line=end_line)
    session.refresh()
    if any(session.by_id.get(entry["id"]) is None for entry in entries):
        raise WriteError(f"{session.path} was replaced while writing; re-open it")
    return Written(session.path, entries, migrated, end_line, kept)
