"""The raw writes under :mod:`pitui.core.actions` (its guards: :mod:`pitui.core.guards`):
appends, rewrites, new files, ids, and the entries pi would write.

The discipline (format §9, brief "Never lose or corrupt a user's session"):

- an append is one ``os.write`` of whole lines on an ``O_APPEND`` descriptor, onto the file
  exactly as the caller last read it (inode and size), and only after a newline: the caller says
  when the last line is complete and only lacks its newline, which then goes into the same write;
- a rewrite (migrating a v1/v2 file before its first append) goes to a temp file in the same folder
  (locked while it is written, so that a leftover of a killed rewrite can be told from a running
  one), is fsynced, keeps the original's mode, replaces the original by rename, then the folder is
  fsynced;
- ids are 8 lowercase hex chars, unique in the file; timestamps are ISO with milliseconds and ``Z``.
"""

from __future__ import annotations

import os
import random
import re
import secrets
import tempfile
import time
import uuid
from collections.abc import Callable, Container, Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from stat import S_ISREG
from typing import Any

from pitui.core.js import normalize_session_name
from pitui.core.paths import open_regular
from pitui.core.session import EntryMeta, Session
from pitui.core.stringify import dump_entry, dump_header

try:
    import fcntl
except ImportError:  # not on Windows: stale temp files are then told by their age alone
    fcntl = None  # type: ignore[assignment]

# A file modified this recently is taken to be written by pi right now.
BUSY_SECONDS = 3.0
MARKER_CUSTOM_TYPE = "pitui.branch"


class WriteError(Exception):
    """A write that was refused or failed; ``str(exc)`` is one line and the file is intact."""


class FileBusyError(WriteError):
    """pi is writing this file right now (it grew in the last few seconds, or ends mid-line)."""


# ---------------------------------------------------------------------------------------- values


def now_iso(clock: float | None = None) -> str:
    """``2025-01-01T12:34:56.789Z``: UTC, milliseconds, ``Z`` (format §9.3)."""
    moment = datetime.fromtimestamp(time.time() if clock is None else clock, UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def new_entry_id(taken: Container[str], rng: random.Random | None = None) -> str:
    """8 lowercase hex chars not used in the file; a full UUID after 100 collisions (as pi).

    ``rng`` makes the ids reproducible (the demo store); by default they come from ``secrets``.
    """
    for _ in range(100):
        candidate = secrets.token_hex(4) if rng is None else f"{rng.getrandbits(32):08x}"
        if candidate not in taken:
            return candidate
    return str(uuid.uuid4() if rng is None else uuid.UUID(int=rng.getrandbits(128), version=4))


def new_session_id(clock: float | None = None, rng: random.Random | None = None) -> str:
    """A UUID v7 (time-ordered), as pi [new] makes session ids; ``rng`` as for entry ids."""
    millis = int((time.time() if clock is None else clock) * 1000) & ((1 << 48) - 1)
    rand = secrets.randbits(74) if rng is None else rng.getrandbits(74)
    value = (
        (millis << 80)
        | (0x7 << 76)
        | ((rand >> 62) << 64)
        | (0b10 << 62)
        | (rand & ((1 << 62) - 1))
    )
    return str(uuid.UUID(int=value))


# ---------------------------------------------------------------------------------- raw writes


@dataclass(frozen=True, slots=True)
class FileState:
    """What the file looked like when a write was computed (``mtime_ns``: when known; an
    expectation passed to :func:`append_lines` is checked on inode and size only)."""

    inode: tuple[int, int]
    size: int
    mtime_ns: int | None = None


def _state(stat: os.stat_result) -> FileState:
    return FileState((stat.st_dev, stat.st_ino), stat.st_size, stat.st_mtime_ns)


def file_state(path: str) -> FileState:
    return _state(os.stat(path))


def append_lines(
    path: str, lines: list[bytes], expect: FileState | None = None, *, end_line: bool = False
) -> FileState:
    """Append whole lines in one write. Refuses if the file changed since ``expect``. A file that
    does not end with a newline is refused, unless ``end_line``: then the newline its last line
    lacks is written first, in the same write (the caller knows that line is complete). Returns
    the file's state after the write."""
    if not lines or not all(line.endswith(b"\n") and b"\n" not in line[:-1] for line in lines):
        raise WriteError("internal: an append must be whole, single lines")
    data = b"".join(lines)
    try:
        fd = os.open(path, os.O_RDWR | os.O_APPEND)
    except OSError as exc:
        raise WriteError(f"{path}: cannot open for writing ({exc.strerror or exc})") from exc
    try:
        stat = os.fstat(fd)
        if expect is not None and (
            (stat.st_dev, stat.st_ino) != expect.inode or stat.st_size != expect.size
        ):
            raise FileBusyError(f"{path} changed while pitui was writing; nothing was written")
        if stat.st_size > 0 and os.pread(fd, 1, stat.st_size - 1) != b"\n":
            if not end_line:
                raise FileBusyError(
                    f"{path} ends in the middle of a line (pi is writing it); nothing was written"
                )
            data = b"\n" + data
        written = 0
        try:
            while written < len(data):
                # O_APPEND puts every chunk at the end; a short write on a regular file means the
                # disk is full, and the next write then fails with ENOSPC.
                written += os.write(fd, data[written:])
        except OSError:
            _undo_partial_append(fd, stat.st_size, written)
            raise
        os.fsync(fd)
        after = os.fstat(fd)
    except OSError as exc:
        raise WriteError(f"{path}: write failed ({exc.strerror or exc})") from exc
    finally:
        os.close(fd)
    return _state(after)


def _undo_partial_append(fd: int, size_before: int, written: int) -> None:
    """Cut a half-written append off again, so no partial line is left for pi to glue onto.

    Only when the file is exactly what this write left (nobody appended meanwhile).
    """
    if written == 0:
        return
    try:
        if os.fstat(fd).st_size == size_before + written:
            os.ftruncate(fd, size_before)
    except OSError:
        pass  # nothing more can be done; the error being raised says the write failed


def atomic_write(
    path: str,
    lines: Iterable[bytes],
    *,
    exclusive: bool = False,
    before_replace: Callable[[], None] | None = None,
) -> None:
    """Write a whole file: temp file in the same folder, fsync, keep mode, rename, fsync folder.

    With ``exclusive`` the target must not exist (a new session file). ``before_replace`` runs
    right before the rename and may raise to leave the target as it is (a last look at it).
    """
    target = Path(path)
    folder = target.parent
    mode: int | None = None
    try:
        mode = os.stat(target).st_mode & 0o7777
        if exclusive:
            raise WriteError(f"{path} already exists; nothing was written")
    except FileNotFoundError:
        pass
    except OSError as exc:
        raise WriteError(f"{path}: {exc.strerror or exc}") from exc
    try:
        fd, temp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=folder)
    except OSError as exc:
        raise WriteError(f"{folder}: cannot write here ({exc.strerror or exc})") from exc
    try:
        _lock(fd)  # held until the descriptor closes: a live rewrite's temp file is never stale
        with os.fdopen(fd, "wb") as handle:
            for line in lines:
                handle.write(line)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temp, mode if mode is not None else 0o644 & ~_umask())
        if before_replace is not None:
            before_replace()
        if exclusive:
            os.link(temp, target)  # fails if the target appeared meanwhile
            os.unlink(temp)
        else:
            os.replace(temp, target)
        _fsync_dir(folder)
    except BaseException as exc:
        with _suppress_oserror():
            os.unlink(temp)
        if isinstance(exc, OSError):
            raise WriteError(
                f"{path}: write failed ({exc.strerror or exc}); the file is intact"
            ) from exc
        raise


# The temp files of atomic_write: ``tempfile.mkstemp(prefix=".<name>.", suffix=".tmp")``.
TEMP_NAME = re.compile(r"^\.(?P<target>.+\.jsonl)\.[a-z0-9_]{8}\.tmp$")
# A temp file untouched this long, that no writer holds locked, was left by a killed rewrite.
STALE_TEMP_SECONDS = 60.0


def _lock(fd: int) -> None:
    if fcntl is not None:
        with _suppress_oserror():
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)


def remove_stale_temps(folder: str, *, now: float | None = None) -> list[str]:
    """Remove what rewrites killed half-way left in ``folder``: temp files of pitui's own naming
    (:data:`TEMP_NAME`) untouched for a minute and locked by no writer (a running rewrite holds
    its lock; without ``fcntl`` an hour without change is required). Returns the removed paths;
    a file that cannot be looked at or removed is left alone."""
    clock = time.time() if now is None else now
    removed: list[str] = []
    try:
        names = [name for name in os.listdir(folder) if TEMP_NAME.match(name)]
    except OSError:
        return removed
    for name in names:
        path = os.path.join(folder, name)
        with _suppress_oserror():
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
            try:
                stat = os.fstat(fd)
                quiet = clock - stat.st_mtime
                if not S_ISREG(stat.st_mode) or quiet < STALE_TEMP_SECONDS:
                    continue
                if fcntl is not None:
                    try:
                        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    except BlockingIOError:
                        continue  # a live writer holds it
                elif quiet < 3600:
                    continue
                os.unlink(path)
                removed.append(path)
            finally:
                os.close(fd)
    return removed


def _umask() -> int:
    current = os.umask(0)
    os.umask(current)
    return current


def _fsync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass  # some file systems cannot fsync a directory; the rename is still atomic
    finally:
        os.close(fd)


class _suppress_oserror:
    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: object, exc: object, tb: object) -> bool:
        return isinstance(exc, OSError)


# ------------------------------------------------------------------- session rewrites, entries


def migrate_file(session: Session) -> None:
    """Rewrite a v1/v2 file as version 3 (atomic), as pi does before writing (format §4.3)."""
    if session.original_version >= 3:
        return
    lines = [dump_header(session.header)]
    lines.extend(dump_entry(session.raw(meta)) for meta in session.entries)
    atomic_write(session.path, lines)
    session.reload()


_COPY_CHUNK = 1 << 20


def rewrite_without(path: str, drop: Sequence[tuple[int, int]], expect: FileState) -> FileState:
    """Rewrite ``path`` atomically without the byte ranges ``drop`` (sorted, apart: whole lines
    with their newlines), every other byte as it was and in order. Refused, nothing written,
    when the file is not ``expect`` (inode and size) when read or right before the replace, or
    when a range does not end a line. Returns the state of the new file."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError as exc:
        raise WriteError(f"{path}: cannot read ({exc.strerror or exc})") from exc

    def unchanged(stat: os.stat_result) -> None:
        if (stat.st_dev, stat.st_ino) != expect.inode or stat.st_size != expect.size:
            raise FileBusyError(f"{path} changed while pitui was rewriting it; nothing was written")

    def chunks() -> Iterator[bytes]:
        pos = 0
        for start, end in (*drop, (expect.size, expect.size)):
            while pos < start:
                data = os.pread(fd, min(_COPY_CHUNK, start - pos), pos)
                if not data:
                    raise FileBusyError(f"{path} shrank while pitui was rewriting it")
                yield data
                pos += len(data)
            pos = end

    try:
        stat = os.fstat(fd)
        if not S_ISREG(stat.st_mode):
            raise WriteError(f"{path} is not a regular file")
        unchanged(stat)
        for _, end in drop:
            if not 0 < end <= expect.size or os.pread(fd, 1, end - 1) != b"\n":
                raise WriteError(f"internal: the range ending at byte {end} is not whole lines")
        atomic_write(path, chunks(), before_replace=lambda: unchanged(os.stat(path)))
    finally:
        os.close(fd)
    return file_state(path)


def session_inode(session: Session) -> tuple[int, int]:
    stat = os.stat(session.path)
    return (stat.st_dev, stat.st_ino)


def _base(
    session: Session, entry_type: str, parent: str | None, clock: float | None
) -> dict[str, Any]:
    taken = session.by_id
    return {
        "type": entry_type,
        "id": new_entry_id(taken),
        "parentId": parent,
        "timestamp": now_iso(clock),
    }


def label_entry(
    session: Session, target: EntryMeta, label: str | None, *, clock: float | None = None
) -> dict[str, Any]:
    """pi's label entry (§8.1): parent = the current leaf, no ``label`` key when clearing."""
    leaf = session.leaf
    entry = _base(session, "label", leaf.id if leaf else None, clock)
    entry["targetId"] = target.id
    if label:
        entry["label"] = label
    return entry


def session_info_entry(
    session: Session, name: str, *, clock: float | None = None
) -> dict[str, Any]:
    """pi's ``session_info`` (§8.2): the name trimmed, line breaks → spaces; empty clears."""
    leaf = session.leaf
    entry = _base(session, "session_info", leaf.id if leaf else None, clock)
    entry["name"] = normalize_session_name(name)
    return entry


def resume_point(session: Session, meta: EntryMeta) -> tuple[EntryMeta | None, str | None]:
    """pi's rule for the new leaf when an entry is chosen in the tree (ui-behaviour §3.13 rule 3).

    A user message or a custom message: its parent becomes the leaf (``None`` for a root) and its
    text is offered for re-sending; anything else: the entry itself, no text.
    """
    from pitui.core.models import content_text_concat

    if (meta.type == "message" and meta.role == "user") or meta.type == "custom_message":
        raw = session.raw(meta)
        source = raw.get("message") if meta.type == "message" else raw
        content = source.get("content") if isinstance(source, dict) else None
        return meta.parent, content_text_concat(content)
    return meta, None


def switch_entries(
    session: Session,
    new_leaf: EntryMeta | None,
    *,
    summary: str | None = None,
    clock: float | None = None,
) -> list[dict[str, Any]]:
    """What to append so pi resumes at ``new_leaf`` (format §7.3).

    Without a summary: a context-neutral ``custom`` marker whose parent is the new leaf. With one:
    a ``branch_summary`` the user typed, child of the new leaf (it goes into context, as pi's own
    summaries do); ``fromId`` is the abandoned leaf, as pi 1.x writes it.
    """
    old_leaf = session.leaf
    parent = new_leaf.id if new_leaf is not None else None
    if summary:
        entry = _base(session, "branch_summary", parent, clock)
        entry["fromId"] = old_leaf.id if old_leaf is not None and old_leaf.id else "root"
        entry["summary"] = summary
        entry["details"] = {"source": "pitui"}
        entry["fromHook"] = False
        return [entry]
    entry = _base(session, "custom", parent, clock)
    entry["customType"] = MARKER_CUSTOM_TYPE
    entry["data"] = {"switchedTo": parent, "from": old_leaf.id if old_leaf is not None else None}
    return [entry]


# ------------------------------------------------------------------- additions for the manager


def entry_base(
    taken: Container[str],
    entry_type: str,
    parent: str | None,
    *,
    clock: float | None = None,
    rng: random.Random | None = None,
) -> dict[str, Any]:
    """The common fields of a new entry (format §5.1): a fresh id not in ``taken``, the parent,
    the time of appending. Callers add the type's own fields after these (pi's key order, §9.5,
    is applied when the line is written)."""
    return {
        "type": entry_type,
        "id": new_entry_id(taken, rng),
        "parentId": parent,
        "timestamp": now_iso(clock),
    }


def new_header(
    cwd: str,
    *,
    parent_session: str | None = None,
    session_id: str | None = None,
    clock: float | None = None,
    rng: random.Random | None = None,
) -> dict[str, Any]:
    """A version-3 header as pi writes it (format §3); ``parentSession`` only when there is one."""
    header: dict[str, Any] = {
        "type": "session",
        "version": 3,
        "id": session_id if session_id is not None else new_session_id(clock, rng),
        "timestamp": now_iso(clock),
        "cwd": cwd,
    }
    if parent_session is not None:
        header["parentSession"] = parent_session
    return header


def has_assistant(entries: Iterable[dict[str, Any]]) -> bool:
    """pi's first-flush condition (format §9.1): a ``message`` entry with role ``assistant``."""
    for entry in entries:
        message = entry.get("message")
        if (
            entry.get("type") == "message"
            and isinstance(message, dict)
            and message.get("role") == "assistant"
        ):
            return True
    return False


def first_flush(path: str, header: dict[str, Any], entries: list[dict[str, Any]]) -> FileState:
    """Create a session file with its header and every entry so far, as pi's first flush does
    (format §9.1), but atomically and exclusively: an existing file is never overwritten."""
    lines = [dump_header(header), *(dump_entry(entry) for entry in entries)]
    atomic_write(path, lines, exclusive=True)
    return file_state(path)


def initialize_blank_file(
    path: str, header: dict[str, Any], entries: list[dict[str, Any]]
) -> FileState:
    """First flush into an existing file that holds nothing but white space (pi initializes such
    files on open, format §14). Checked again right before the atomic replace: a file that got
    content meanwhile is refused, never overwritten."""
    if not is_blank_file(path):
        raise WriteError(f"{path} is no longer empty; nothing was written")
    lines = [dump_header(header), *(dump_entry(entry) for entry in entries)]
    atomic_write(path, lines)
    return file_state(path)


_BLANK_LIMIT = 1 << 20


def is_blank_file(path: str) -> bool:
    """A file of 0 bytes or only ASCII white space (what pi treats as "empty", format §14)."""
    try:
        with open(open_regular(path), "rb") as handle:
            data = handle.read(_BLANK_LIMIT + 1)
    except FileNotFoundError:
        return False
    except OSError as exc:
        raise WriteError(f"{path}: {exc.strerror or exc}") from exc
    return len(data) <= _BLANK_LIMIT and not data.strip()


def branch_file_entries(
    session: Session,
    leaf: EntryMeta,
    *,
    clock: float | None = None,
    rng: random.Random | None = None,
) -> list[dict[str, Any]]:
    """The entries of a new file holding only the branch root → ``leaf`` (format §11.1, [new]).

    Label entries are left out of the path and the rest is re-chained (each entry's parent is the
    previous kept one), so nothing is orphaned where a label used to sit (pi 0.73.1's bug). Then,
    for every label currently set (§8.1) on a kept entry, a label entry is chained after the path,
    in pi's label-map order, with the label's original time. Kept entries keep their ids; an entry
    without a usable id (damaged files only) gets a fresh one, so the new file is well-formed.
    Shared by ``SessionManager.create_branched_session`` and ``pitui extract``.
    """
    kept = [meta for meta in session.path_to(leaf) if meta.type != "label"]
    out: list[dict[str, Any]] = []
    used: set[str] = set()
    original_ids: set[str] = set()
    previous: str | None = None
    for meta in kept:
        raw = session.raw(meta)
        entry_id = raw.get("id")
        if isinstance(entry_id, str):
            original_ids.add(entry_id)
        if not isinstance(entry_id, str) or entry_id in used:
            entry_id = new_entry_id(used, rng)
            raw["id"] = entry_id
        raw["parentId"] = previous
        used.add(entry_id)
        out.append(raw)
        previous = entry_id
    for target, label in session.labels.items():
        if target not in original_ids:
            continue
        entry_id = new_entry_id(used, rng)
        used.add(entry_id)
        out.append(
            {
                "type": "label",
                "id": entry_id,
                "parentId": previous,
                "timestamp": session.label_times.get(target) or now_iso(clock),
                "targetId": target,
                "label": label,
            }
        )
        previous = entry_id
    return out


@dataclass(frozen=True, slots=True)
class Extracted:
    path: str
    header: dict[str, Any]
    entries: list[dict[str, Any]]


def extract_branch(session: Session, leaf: EntryMeta, output: str | None = None) -> Extracted:
    """Write the branch root → ``leaf`` as a new session file (pi's ``/fork``, format §11.1), in the
    source's folder unless ``output`` names the file. The UI and ``pitui extract`` both call this.

    Refuses a branch without an assistant message: pi writes no file for such a session (and
    0.73.1 would later add a second header to it). The source file is not changed.
    """
    entries = branch_file_entries(session, leaf)
    if not has_assistant(entries):
        raise WriteError(
            f"the branch ending at {leaf.uid} has no assistant message; pi writes no file for "
            "such a session (it would add a second header later). Nothing was written"
        )
    header = new_header(session.cwd, parent_session=session.path)
    if output is not None:
        target = os.path.abspath(output)
    else:
        from pitui.core.paths import session_file_name

        target = os.path.join(
            os.path.dirname(session.path), session_file_name(header["timestamp"], header["id"])
        )
    first_flush(target, header, entries)
    return Extracted(target, header, entries)
