"""The files a listing found changed, read again: their summaries, newest first, in batches.

A listing (:meth:`pitui.core.store.Store.iter_load`) takes the index's rows for the files whose
key is unchanged; the others come here. Sessions are append-only, so a file that only grew
(same inode and device, bigger) is read from where the index stopped (:func:`resumes`; the
worker checks the file's first line and the bytes before that offset, and reads a file rewritten
in place whole); any other changed file is read whole. The reads run in the store's process pool
(:mod:`pitui.core.pools`, the one parallelism), newest file first, so the first rows a picker
paints are the ones on top; the pool's batches are joined into fewer, bigger ones
(:func:`grouped`: one index transaction each), which the index keeps, and each is handed out as
the listing's records (:class:`~pitui.core.session_info.SessionInfo`, or :class:`Listed` for
``pitui list --json``) with progress ``(loaded, total)`` per file.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from pitui.core import pools
from pitui.core.listed import Listed
from pitui.core.scan import Key, Scan

if TYPE_CHECKING:
    from pitui.core.file_summary import FileSummary, Resume
    from pitui.core.index import Index
    from pitui.core.session_info import SessionInfo

__all__ = ["GROUP_FILES", "GROUP_SECONDS", "Stale", "grouped", "reread", "resumes", "stale_files"]

Progress = Callable[[int, int], None]  # (loaded, total)
# A file to summarise: (path, folder, key).
Stale = tuple[str, str, Key]
# Summaries handed out (and stored) together: at most this many files, or what came in this long.
GROUP_FILES = 1000
GROUP_SECONDS = 0.25


def stale_files(stale: list[str], scanned: Scan) -> list[Stale]:
    """The files to summarise with their folder and key."""
    wanted = set(stale)
    return [
        (path, folder, key)
        for folder, found in scanned.items()
        for path, key in found.items()
        if key is not None and path in wanted
    ]


def reread(
    stale: list[Stale],
    old_keys: dict[str, Key],
    counts: tuple[int, int],
    *,
    index: Index | None,
    workers: int,
    read_texts: bool,
    keep_texts: bool,
    keep: Callable[[Any], bool] | None,
    brief: bool,
    known: dict[str, tuple[Key, SessionInfo]],
    progress: Progress | None,
    cancel: threading.Event | None,
) -> Iterator[list[SessionInfo] | list[Listed]]:
    """Batches of the sessions of ``stale`` files (``old_keys``: the index's keys of those it
    had), summarised newest first, the index keeping them; ``counts`` is ``(loaded, total)``
    before them. ``read_texts`` reads the message texts, ``keep_texts`` gives them to the
    sessions (also when the index could not keep them); ``keep`` filters the records; ``brief``
    makes :class:`Listed` records, else :class:`SessionInfo` ones, remembered in ``known``."""
    from pitui.core.session_info import SessionInfo

    loaded, total = counts
    # newest first (ties by path): the first rows a picker paints are the ones on top
    stale.sort(key=lambda c: (-c[2][1], c[0]))
    found = resumes(index, stale, old_keys)
    tasks = [(path, found.get(path)) for path, _, _ in stale]
    sizes = [key[0] - (found[path].offset if path in found else 0) for path, _, key in stale]
    dir_of = {path: folder for path, folder, _ in stale}
    for results in grouped(pools.summaries(tasks, sizes, cancel, read_texts, workers)):
        # texts not in the index (not asked to cache, or it could not store them) stay here
        stored = index is not None and index.put(results, dir_of)
        with_texts = not brief and (keep_texts or not stored)
        batch: list[Any] = []
        for result in results:
            loaded += 1
            if progress is not None:
                progress(loaded, total)  # per file, as pi reports it
            if result.row is None:
                continue
            if brief and result.brief is not None:  # (no SessionInfo: the worker's fields)
                listed = Listed(result.path, *result.brief, result.listing)
                if keep is None or keep(listed):
                    batch.append(listed)
                continue
            session = SessionInfo.from_row(result.path, result.key[0], result.row)
            if keep is not None and not keep(session):
                continue
            if brief:
                batch.append(Listed.of(session, result.listing))
                continue
            if with_texts:
                session.all_messages_text = result.search_text
            known[result.path] = (result.key, session)
            batch.append(session)
        if batch:
            yield batch


def resumes(index: Index | None, stale: list[Stale], old_keys: dict[str, Key]) -> dict[str, Resume]:
    """Where to resume the files that only grew: sessions are append-only, so a file that grew
    (same inode) is read from where it stopped (the worker also checks its first line and the
    bytes before that offset). A file that changed without growing (touched, edited in place)
    is read again whole."""
    resumable = [
        path
        for path, _, key in stale
        if (old := old_keys.get(path)) is not None
        and (old[2], old[3]) == (key[2], key[3])
        and key[0] > old[0]
    ]
    return index.resumes(resumable) if index is not None and resumable else {}


def grouped(batches: Iterator[list[FileSummary]]) -> Iterator[list[FileSummary]]:
    """The pool's batches joined into fewer, bigger ones (one index transaction each, a tenth
    of a cold listing's time in the parent when each had its own): the first as it comes (a
    picker paints it), then what came within :data:`GROUP_SECONDS`, up to :data:`GROUP_FILES`
    files."""
    group: list[FileSummary] = []
    first = True
    since = 0.0
    for results in batches:
        if not group:
            since = time.monotonic()
        group.extend(results)
        if first or len(group) >= GROUP_FILES or time.monotonic() - since >= GROUP_SECONDS:
            yield group
            group = []
            first = False
    if group:
        yield group
