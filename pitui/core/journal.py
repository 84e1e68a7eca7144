"""What pitui remembers of its own writes between runs, in ``$XDG_DATA_HOME/pitui``.

- ``own-writes.json``: for each file pitui wrote in the last minutes, its device, inode, size and
  modification time right after the write. A file still exactly so was last written by pitui, not
  by pi: a chained command (``pitui rename … && pitui label …``) is not refused as "busy".
- ``prunes.json``: for each file pitui pruned, the trash record of the original and the file's
  state right after the prune: restoring the original over a file still exactly so loses nothing.
- ``trash-log.jsonl``: one line per batch pitui moved to the trash (a ``pitui rm`` run, a delete in
  the picker), so that ``pitui restore --last`` gives back the whole batch, and only what pitui (or
  pi) trashed.

Losing either costs nothing but a question: a fresh file is then taken to be pi's, and a restore
gives back one file at a time. Both files are small and updated under a lock; a data dir that
cannot be written is ignored (the write itself has happened, the record is only a help).
"""

from __future__ import annotations

import contextlib
import os
import tempfile
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from pitui.core.paths import data_dir

try:
    import fcntl
except ImportError:  # no lock on Windows: two pitui processes may then lose a record
    fcntl = None  # type: ignore[assignment]

OWN_WRITES = "own-writes.json"
TRASH_LOG = "trash-log.jsonl"
PRUNES = "prunes.json"
# The prune records kept (the oldest are dropped past this many files).
PRUNE_RECORDS = 200
# A record of an own write only matters while the file would look "busy" (seconds); kept longer
# so that a slow chain of commands still finds it.
OWN_WRITE_KEEP_SECONDS = 600.0
# The trash log keeps this many batches (older ones are trimmed when it grows past twice that).
TRASH_LOG_BATCHES = 200

# (device, inode, size, mtime_ns) of pitui's last write to each file, in this process
_memory: dict[str, tuple[int, int, int, int]] = {}


def _key(path: str) -> str:
    return os.path.realpath(os.path.abspath(path))


def _signature(stat: os.stat_result) -> tuple[int, int, int, int]:
    return (stat.st_dev, stat.st_ino, stat.st_size, stat.st_mtime_ns)


@contextlib.contextmanager
def data_dir_locked(where: Path | None = None) -> Iterator[str | None]:
    """The data dir (or ``where``), locked against other pitui processes (``None`` if it
    cannot be made). Every read-modify-write of a file there holds it (journal, pins)."""
    folder = str(where if where is not None else data_dir())
    try:
        os.makedirs(folder, exist_ok=True)
        fd = os.open(os.path.join(folder, ".lock"), os.O_RDWR | os.O_CREAT, 0o600)
    except OSError:
        yield None
        return
    try:
        if fcntl is not None:
            fcntl.flock(fd, fcntl.LOCK_EX)
        yield folder
    finally:
        os.close(fd)  # releases the lock


def _replace(path: str, data: bytes) -> None:
    fd, temp = tempfile.mkstemp(prefix=".journal.", dir=os.path.dirname(path))
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise


def _read(path: str) -> bytes:
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except OSError:
        return b""


# ------------------------------------------------------------------------------- own writes


def _parse_own(data: bytes) -> dict[str, list[int | float]]:
    try:
        value = orjson.loads(data or b"{}")
    except orjson.JSONDecodeError:
        return {}  # a write cut short: the records are only a help
    return value if isinstance(value, dict) else {}


def _open_own(flags: int) -> int:
    folder = str(data_dir())
    if flags & os.O_CREAT:
        os.makedirs(folder, exist_ok=True)
    return os.open(os.path.join(folder, OWN_WRITES), flags, 0o600)


def _read_fd(fd: int) -> bytes:
    chunks = []
    while chunk := os.read(fd, 1 << 16):
        chunks.append(chunk)
    return b"".join(chunks)


def remember_write(path: str) -> None:
    """Note that pitui has just written ``path``: its state now is pitui's own. (Rewritten in
    place under a lock: a temp file and a rename cost more than the append they follow.)"""
    try:
        stat = os.stat(path)
    except OSError:
        return
    key, signature = _key(path), _signature(stat)
    _memory[key] = signature
    now = time.time()
    with contextlib.suppress(OSError):
        fd = _open_own(os.O_RDWR | os.O_CREAT)
        try:
            if fcntl is not None:
                fcntl.flock(fd, fcntl.LOCK_EX)
            records = {
                name: record
                for name, record in _parse_own(_read_fd(fd)).items()
                if isinstance(record, list)
                and len(record) == 5
                and now - float(record[4]) < OWN_WRITE_KEEP_SECONDS
            }
            records[key] = [*signature, now]
            data = orjson.dumps(records)
            os.pwrite(fd, data, 0)
            os.ftruncate(fd, len(data))
        finally:
            os.close(fd)


def written_by_pitui(path: str, stat: os.stat_result) -> bool:
    """Whether the file in state ``stat`` is exactly as pitui's own last write left it."""
    key, signature = _key(path), _signature(stat)
    if _memory.get(key) == signature:
        return True
    try:
        fd = _open_own(os.O_RDONLY)
    except OSError:
        return False
    try:
        if fcntl is not None:
            fcntl.flock(fd, fcntl.LOCK_SH)
        record = _parse_own(_read_fd(fd)).get(key)
    except OSError:
        return False
    finally:
        os.close(fd)
    return isinstance(record, list) and tuple(record[:4]) == signature


# ------------------------------------------------------------------------------- trash log


@dataclass(frozen=True, slots=True)
class LoggedTrash:
    """One file of a trashed batch: where it was, and its ``.trashinfo`` record."""

    original: str
    info: str


def log_trash_batch(items: Sequence[LoggedTrash]) -> None:
    """Record one batch pitui moved to the trash (newest last)."""
    if not items:
        return
    line = orjson.dumps(
        {"at": time.time(), "items": [{"original": i.original, "info": i.info} for i in items]}
    )
    with contextlib.suppress(OSError), data_dir_locked() as folder:
        if folder is None:
            return
        path = os.path.join(folder, TRASH_LOG)
        lines = _read(path).splitlines()
        if len(lines) >= 2 * TRASH_LOG_BATCHES:
            kept = lines[-(TRASH_LOG_BATCHES - 1) :]
            _replace(path, b"".join(entry + b"\n" for entry in kept) + line + b"\n")
            return
        with open(path, "ab") as handle:
            handle.write(line + b"\n")


def trash_batches() -> list[list[LoggedTrash]]:
    """Every batch in the trash log, newest first (lines that do not parse are skipped)."""
    batches: list[list[LoggedTrash]] = []
    for line in reversed(_read(os.path.join(str(data_dir()), TRASH_LOG)).splitlines()):
        try:
            record: Any = orjson.loads(line)
        except orjson.JSONDecodeError:
            continue
        items = record.get("items") if isinstance(record, dict) else None
        if not isinstance(items, list):
            continue
        batch = [
            LoggedTrash(item["original"], item["info"])
            for item in items
            if isinstance(item, dict)
            and isinstance(item.get("original"), str)
            and isinstance(item.get("info"), str)
        ]
        if batch:
            batches.append(batch)
    return batches


# ------------------------------------------------------------------------------- prunes


def log_prune(path: str, info: str) -> None:
    """Record that pitui pruned ``path`` (as it is now) and put the original in the trash under
    the ``.trashinfo`` record ``info``."""
    try:
        stat = os.stat(path)
    except OSError:
        return
    with contextlib.suppress(OSError), data_dir_locked() as folder:
        if folder is None:
            return
        file = os.path.join(folder, PRUNES)
        records = _parse_own(_read(file))
        records.pop(_key(path), None)
        records[_key(path)] = [*_signature(stat), info]  # type: ignore[list-item]
        kept = dict(list(records.items())[-PRUNE_RECORDS:])
        _replace(file, orjson.dumps(kept))


def pruned_state(path: str, info: str) -> tuple[int, int, int, int] | None:
    """The state ``path`` had right after the prune whose original is the trash record
    ``info`` (None when pitui has no record of that prune)."""
    record: Any = _parse_own(_read(os.path.join(str(data_dir()), PRUNES))).get(_key(path))
    if not isinstance(record, list) or len(record) != 5 or record[4] != info:
        return None
    return (int(record[0]), int(record[1]), int(record[2]), int(record[3]))


def is_pruned_state(path: str, stat: os.stat_result, info: str) -> bool:
    """Whether the file in state ``stat`` is exactly as that prune left it."""
    return pruned_state(path, info) == _signature(stat)
