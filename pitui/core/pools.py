"""How pitui starts worker processes (the store's cold parse, stats, the doctor over many files).

One place for two rules every pool needs:

- fork is cheapest, but forking a process that runs other threads (a UI) can deadlock the child
  on a lock some thread held: then the workers start from a clean server process (forkserver);
- multiprocessing's resource tracker is launched with ``sys.stderr.fileno()``; where stderr is
  replaced by an object without a descriptor (Textual captures it and answers -1), the pool would
  fail with "bad value(s) in fds_to_keep". The tracker is started with the process's own stderr.

And one for ending a pool early (:func:`close_pool`), and the initializer of pools whose workers
open sessions (:func:`one_process_per_file`).
"""

from __future__ import annotations

import contextlib
import multiprocessing.context
import sys
import threading
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from concurrent.futures import ProcessPoolExecutor

_tracker_lock = threading.Lock()


def pool_context() -> multiprocessing.context.BaseContext:
    """The start method for a new process pool, with the resource tracker ready for it."""
    import multiprocessing

    method = "fork" if threading.active_count() == 1 else "forkserver"
    if method == "forkserver":
        _ensure_resource_tracker()
    return multiprocessing.get_context(method)


def one_process_per_file() -> None:
    """Initializer of a pool whose workers open sessions: the pool already keeps every core busy,
    so a big session is read by its worker alone, not split with a forked helper (see
    :mod:`pitui.core.forkscan`)."""
    from pitui.core import session

    session.SPLIT_MIN_BYTES = sys.maxsize


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
