"""How pitui starts worker processes (the store's cold parse, stats, the doctor over many files),
and the store's pool: the one parallelism of a listing (:func:`summaries`, :func:`run_tasks`).

One place for two rules every pool needs:

- fork is cheapest, but forking a process that runs other threads (a UI) can deadlock the child
  on a lock some thread held: then the workers start from a clean server process (forkserver);
- multiprocessing's resource tracker is launched with ``sys.stderr.fileno()``; where stderr is
  replaced by an object without a descriptor (Textual captures it and answers -1), the pool would
  fail with "bad value(s) in fds_to_keep". The tracker is started with the process's own stderr.

And one for ending a pool early (:func:`close_pool`).
"""

from __future__ import annotations

import contextlib
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    # (multiprocessing is imported when a pool starts: a listing from the index starts none)
    import multiprocessing.context
    from concurrent.futures import Future, ProcessPoolExecutor

    from pitui.core.file_summary import FileSummary, Resume
    from pitui.core.fulltext import FtsResult, FtsTask

T = TypeVar("T")
R = TypeVar("R")

# Below this many bytes to parse, a process pool costs more than it saves.
POOL_MIN_BYTES = 16 * 1024 * 1024
# Files per pool task: small first tasks so the first rows arrive early, bigger ones after.
_FIRST_TASK_FILES = 4
_TASK_FILES = 32
_TASK_BYTES = 16 * 1024 * 1024
# The newest files up to this size are summarised in the calling thread before a pool starts.
HEAD_BYTES = 2 * 1024 * 1024

_tracker_lock = threading.Lock()


def pool_context() -> multiprocessing.context.BaseContext:
    """The start method for a new process pool, with the resource tracker ready for it."""
    import multiprocessing

    method = "fork" if threading.active_count() == 1 else "forkserver"
    if method == "forkserver":
        _ensure_resource_tracker()
    return multiprocessing.get_context(method)


def _ensure_resource_tracker() -> None:
    from multiprocessing import resource_tracker

    with _tracker_lock:
        try:
            captured = sys.stderr is None or sys.stderr.fileno() < 0
        except (OSError, ValueError):
            captured = True
        real = sys.__stderr__
        if captured and real is not None:
            with contextlib.redirect_stderr(real):
                resource_tracker.ensure_running()
        else:
            resource_tracker.ensure_running()


def close_pool(pool: ProcessPoolExecutor, *, unfinished: bool) -> None:
    """Shut ``pool`` down; with ``unfinished`` work (the caller stopped early: a cancelled load,
    a picker that quit), its workers are terminated first instead of finishing their tasks.

    Their work is a disposable parse. And ``shutdown(cancel_futures=True)`` is not safe here:
    in Python 3.11 the pool's manager thread can die of "dictionary changed size during
    iteration" while cancelling, leaving workers that wait forever for work, and the
    interpreter's exit (which joins every child process) hanging with them. Terminated
    workers take the well-trodden "broken pool" path: the manager fails the pending futures
    and joins the processes.
    """
    if unfinished:
        processes = getattr(pool, "_processes", None) or {}
        for process in list(processes.values()):
            with contextlib.suppress(OSError, ValueError, AttributeError):
                process.terminate()
    pool.shutdown(wait=True)


# ------------------------------------------------------------------------------------------------
# The store's pool


def summarise_many(
    tasks: Sequence[tuple[str, Resume | None]], texts: bool = True
) -> list[FileSummary]:
    """Pool task: one unreadable or unexpected file must not stop the others."""
    from pitui.core.file_summary import FileSummary, summarise_file

    out: list[FileSummary] = []
    for path, resume in tasks:
        try:
            out.append(summarise_file(path, resume, texts=texts))
        except Exception as exc:  # a bug or MemoryError on one file: report it, keep going
            out.append(FileSummary(path, (0, 0, 0, 0), error=f"internal error: {exc!r}"))
    return out


def extract_many(tasks: Sequence[FtsTask]) -> list[FtsResult]:
    """Pool task: the full-text bodies of each file (an error stays that file's)."""
    from pitui.core.fulltext import FtsResult, extract_bodies

    out: list[FtsResult] = []
    for task in tasks:
        try:
            out.append(extract_bodies(task))
        except Exception as exc:
            out.append(FtsResult(task.file, task.path, task.start, task.line, [], repr(exc)))
    return out


def _groups(items: Sequence[T], sizes: Sequence[int], workers: int) -> list[list[T]]:
    """Pool tasks in order: the first ``workers`` small, then up to _TASK_FILES / _TASK_BYTES."""
    groups: list[list[T]] = []
    current: list[T] = []
    current_bytes = 0
    for item, size in zip(items, sizes, strict=True):
        limit = _FIRST_TASK_FILES if len(groups) < workers else _TASK_FILES
        if current and (len(current) >= limit or current_bytes + size > _TASK_BYTES):
            groups.append(current)
            current, current_bytes = [], 0
        current.append(item)
        current_bytes += size
    if current:
        groups.append(current)
    return groups


def summaries(
    tasks: list[tuple[str, Resume | None]],
    sizes: list[int],
    cancel: threading.Event | None,
    texts: bool,
    workers: int,
) -> Iterator[list[FileSummary]]:
    """Summaries of ``tasks`` (newest first) as they are ready. The newest few small files
    are summarised here first, before a pool is imported and started: a picker paints them
    while the pool's workers fork (or a forkserver starts) and parse the rest."""
    first = range(min(len(tasks), 2 * _FIRST_TASK_FILES))
    head = [i for i in first if sizes[i] <= HEAD_BYTES][:_FIRST_TASK_FILES]
    if head and not (cancel is not None and cancel.is_set()):
        yield summarise_many([tasks[i] for i in head], texts)
        taken = set(head)
        rest = [i for i in range(len(tasks)) if i not in taken]
        tasks, sizes = [tasks[i] for i in rest], [sizes[i] for i in rest]
    yield from run_tasks(tasks, sizes, summarise_many, (texts,), cancel, workers)


def run_tasks(
    tasks: list[T],
    sizes: list[int],
    worker: Callable[..., list[R]],
    extra: tuple[object, ...],
    cancel: threading.Event | None,
    workers: int,
    *,
    min_bytes: int | None = None,
) -> Iterator[list[R]]:
    """Run ``worker(group, *extra)`` over groups of tasks: in this process when the work is
    small (under ``min_bytes`` in all, default :data:`POOL_MIN_BYTES`), else in a pool of
    ``workers`` processes, yielding each group's results as it completes. The store, the stats
    and the doctor read many files through this one loop."""
    if not tasks:
        return
    groups = _groups(tasks, sizes, workers)
    floor = POOL_MIN_BYTES if min_bytes is None else min_bytes
    if workers <= 1 or sum(sizes) < floor or len(tasks) < 2 * workers:
        for group in groups:
            if cancel is not None and cancel.is_set():
                return
            yield worker(group, *extra)
        return
    # imported here: a listing served from the index never starts a pool
    from concurrent.futures import ProcessPoolExecutor, as_completed
    from concurrent.futures.process import BrokenProcessPool

    pool = ProcessPoolExecutor(max_workers=workers, mp_context=pool_context())
    pending: dict[Future[list[R]], list[T]] = {}
    try:
        for group in groups:
            pending[pool.submit(worker, group, *extra)] = group
        for future in as_completed(list(pending)):
            if cancel is not None and cancel.is_set():
                return
            group = pending.pop(future)
            try:
                results = future.result()
            except BrokenProcessPool:
                # a worker died (out of memory, killed): finish here, one group at a time
                for rest in [group, *pending.values()]:
                    yield worker(rest, *extra)
                pending.clear()
                return
            yield results
    finally:
        close_pool(pool, unfinished=bool(pending))
