"""Handing the memory pitui freed back to the system, where the C library would keep it.

A picker following pi re-reads the sessions that grew, twice a second: each re-read frees the old
texts and rows of those sessions and allocates new ones, a little longer, among the ones that
stay. glibc's malloc keeps such freed chunks inside its heap (it can shrink a heap only from the
top), so the process grew by 20-65 KB per appended line while the memory in use stayed flat
(``bench_soak --probe``: 390 MB in use throughout, free-but-kept 95 → 220 MB in 100 s; issue 24.13).
``malloc_trim(0)`` gives the whole free pages inside the heap back to the system (glibc ≥ 2.8);
elsewhere there is nothing to do.

And the cyclic garbage collector, in one place: paused while a reader makes millions of small
objects that hold no cycles (:func:`collector_paused`), a big session's index moved out of the
young generations at once (:func:`promote_to_oldest`), and at start-up (:func:`hold_collector`,
:func:`release_collector`):
importing Textual, Rich and the screens, then building the first screen, makes ~90,000 objects
the collector tracks, nearly all of them for the life of the process; it ran over that growing
heap again and again before the first frame (a third of the process's CPU time up to it, on a
busy machine).
"""

from __future__ import annotations

import gc
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

__all__ = [
    "TRIM_INTERVAL",
    "collector_paused",
    "hold_collector",
    "promote_to_oldest",
    "release_collector",
    "release_freed_memory",
    "skip_exit_collection",
    "trim_stats",
]

# At most one trim per this many seconds: a trim walks the heap's free chunks while holding its
# lock (tens of milliseconds for a few hundred MB), and the heap regrows by about a MB a second.
TRIM_INTERVAL = 10.0

_lock = threading.Lock()
_last = -TRIM_INTERVAL
_trim: Callable[[int], int] | None = None
_resolved = False
# (for the memory probe of bench_soak) trims done, seconds spent in them, the longest
trim_stats = {"count": 0, "seconds": 0.0, "longest": 0.0}


def _malloc_trim() -> Callable[[int], int] | None:
    global _trim, _resolved
    if not _resolved:
        _resolved = True
        if sys.platform.startswith("linux"):
            import ctypes

            try:
                trim = ctypes.CDLL("libc.so.6").malloc_trim  # (glibc's name; musl has none)
            except (OSError, AttributeError):
                trim = None
            if trim is not None:
                trim.argtypes = [ctypes.c_size_t]
                trim.restype = ctypes.c_int
                _trim = trim
    return _trim


def release_freed_memory(*, now: float | None = None, interval: float = TRIM_INTERVAL) -> bool:
    """Give the C heap's free pages back (``malloc_trim(0)``), unless the last time was less
    than ``interval`` seconds ago or another thread is at it; True when it ran. Meant for a
    worker thread after work that freed much (a re-read of the listing)."""
    global _last
    trim = _malloc_trim()
    if trim is None or not _lock.acquire(blocking=False):
        return False
    try:
        start = time.monotonic() if now is None else now
        if start - _last < interval:
            return False
        _last = start
        began = time.perf_counter()
        trim(0)
        took = time.perf_counter() - began
        trim_stats["count"] += 1
        trim_stats["seconds"] += took
        trim_stats["longest"] = max(trim_stats["longest"], took)
        return True
    finally:
        _lock.release()


@contextmanager
def collector_paused(*, freeze: bool = False) -> Iterator[None]:
    """No cyclic collection inside (objects are still freed when their last reference goes):
    for a reader's many short-lived objects without cycles, where the collector only costs
    time. As it was afterwards (nested pauses included). ``freeze``: what exists at the end
    leaves the collector's way for good (``gc.freeze``), for a short command's last step, whose
    result lives until the process ends (``pitui inspect``: a million objects for 200 MB)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if freeze:
            gc.freeze()
        if was_enabled:
            gc.enable()


def promote_to_oldest() -> None:
    """Move every object tracked now to the oldest generation (freeze then unfreeze: a list
    splice, no scan), for a long-lived index just built: left young, its objects would be
    scanned by the next two collections (0.4 s for 100k entries); only full collections see
    them, as they would anyway. Nothing to do while objects are frozen (they would be thawed)."""
    if gc.get_freeze_count() == 0:
        gc.freeze()
        gc.unfreeze()


def skip_exit_collection() -> None:
    """The process is about to end: what it built is left to the system to reclaim. Frozen, it
    is skipped by the collection Python makes at exit (for a 200 MB session's index, parent <->
    children cycles, that collection took a quarter of ``pitui inspect``'s time). Exit handlers
    and the flushing of the standard streams still run as usual."""
    gc.freeze()


_held = False  # the collector was paused by hold_collector and not released yet


def hold_collector() -> None:
    """Pause the cyclic garbage collector until :func:`release_collector` (start-up: from the
    command line's start to the app's first frame). Objects are still freed when their last
    reference goes; only cycles wait. Nothing to do when the collector is already off."""
    global _held
    if gc.isenabled():
        gc.disable()
        _held = True


def release_collector(*, freeze: bool = True) -> None:
    """End :func:`hold_collector`'s pause (nothing to do without one), and the collector runs
    again. With ``freeze`` (at the first frame), what the start-up made first leaves the
    collector's way for good (``gc.freeze``): modules, classes, the first screen's widgets,
    objects that live as long as the process, so that later collections scan only what came
    after them. (The cycles that became garbage during the start-up, ~7,000 objects for the
    picker, stay allocated: collecting them would cost the very full collection that was
    avoided, 0.1-0.3 s.)"""
    global _held
    if _held:
        _held = False
        if freeze:
            gc.freeze()
        gc.enable()
