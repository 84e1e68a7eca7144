"""The newest sessions of the last listing, to show before this listing is verified.

A warm listing of 10,000 sessions stats every file and decodes every cached row (about a third
of a second); a screen shows 50 rows. So after each listing the newest sessions are written to a
small file next to the index, with the stat key (size, mtime_ns, inode) their file had, and the
next start shows the ones whose file still has that key at once. What is shown is never stale
(each file is checked), but the page may miss a session that changed since the last run: the
full listing that follows puts it in its place.

Like the index it is disposable: any problem reading it means "no first page". When there is
none (a first run, a cleared cache), :func:`newest_named` stands in: pi names each file by the
time its session was created, so the newest names are recent sessions, read at once.
"""

from __future__ import annotations

import heapq
import marshal
import os
import zlib
from collections.abc import Iterable, Sequence
from pathlib import Path

from pitui.core.cachefile import replace_file
from pitui.core.summary import SessionInfo

PAGE_SIZE = 150  # rows kept: more than the tallest terminal shows
NEWEST_NAMED = 8  # sessions read for a first page when none is kept
NEWEST_NAMED_MAX_BYTES = 2 * 1024 * 1024  # (a big session is left to the listing)
_FORMAT = 2  # 2: tokens by pi's rule (core/facts.py)


def first_page_path(cache_dir: Path, key: str) -> Path:
    """Where the page of one listing (scope, folder, agent dir) lives."""
    # (the key is stored in the page too: two listings sharing a name only share the file)
    digest = zlib.crc32(key.encode("utf-8", "surrogatepass"))
    return cache_dir / f"first-page-{digest:08x}.marshal"


def _stat_key(path: str) -> tuple[int, int, int] | None:
    try:
        stat = os.stat(path)
    except OSError:
        return None
    return (stat.st_size, stat.st_mtime_ns, stat.st_ino)


def read_first_page(path: Path, key: str) -> list[SessionInfo]:
    """The sessions of the page whose file is unchanged since it was written (maybe none)."""
    try:
        data = path.read_bytes()
        version, stored_key, records = marshal.loads(data)
    except (OSError, ValueError, EOFError, TypeError):
        return []
    if version != _FORMAT or stored_key != key or type(records) is not list:
        return []
    found: list[SessionInfo] = []
    try:
        for session, size, mtime_ns, ino, row in records:
            if _stat_key(session) == (size, mtime_ns, ino):
                found.append(SessionInfo.from_row(session, size, row))
    except (TypeError, ValueError):
        return []  # written by another version: not worth guessing
    return found


def write_first_page(path: Path, key: str, newest_first: Sequence[SessionInfo]) -> None:
    """Keep the first :data:`PAGE_SIZE` of a listing; a file that changed since it was listed
    (its size differs) is left out. Rewritten only when it changed, atomically."""
    records = []
    for info in newest_first[:PAGE_SIZE]:
        stat_key = _stat_key(info.path)
        if stat_key is not None and stat_key[0] == info.size:
            records.append((info.path, *stat_key, info.to_row()))
    data = marshal.dumps((_FORMAT, key, records))
    try:
        if path.read_bytes() == data:
            return
    except OSError:
        pass
    replace_file(path, [data])


def newest_named(folders: Iterable[str]) -> list[SessionInfo]:
    """The sessions among the :data:`NEWEST_NAMED` newest ``.jsonl`` names of ``folders``
    (pi's names start with the creation time), each read now; unreadable or big files, and
    files that are no session, are left out."""
    from pitui.core.summary import summarise_file

    names: list[tuple[str, str]] = []
    for folder in folders:
        try:
            with os.scandir(folder) as entries:
                names.extend(
                    (entry.name, entry.path)
                    for entry in entries
                    if entry.name.endswith(".jsonl") and entry.is_file()
                )
        except OSError:
            continue
    found: list[SessionInfo] = []
    for _name, path in heapq.nlargest(NEWEST_NAMED, names):
        try:
            if os.stat(path).st_size > NEWEST_NAMED_MAX_BYTES:
                continue
        except OSError:
            continue
        result = summarise_file(path)
        if result.row is not None:
            found.append(SessionInfo.from_row(path, result.key[0], result.row))
    return found
