"""Half of a task done by a forked child while the caller does the other half.

Reading a big session and looking at every file of a big store are Python work bound to one core;
on a machine with two or more, pitui forks a helper for part of it (see :mod:`pitui.core.forkscan`
and ``Store._scan`` in :mod:`pitui.core.store`). A fork costs a few milliseconds, needs no import
in the child and no pickling of the work: the child runs a function on what the parent already
holds and sends back its result as marshal data through a pipe.

The child is kept out of harm's way:

- it runs only the function (code that takes no lock another thread of the parent may hold:
  reading files, building plain values, marshal, ``os.write``), with every signal blocked, and
  leaves with ``os._exit``: no atexit handler, no buffer of the parent written a second time,
  nothing of a terminal the parent drives touched;
- on Python 3.12 and later, where CPython warns against forking a process that runs threads, a
  helper is used only while the process runs one thread;
- if it fails, or has not answered in time, it is killed and :meth:`Helper.result` is None: the
  caller does that part itself, with the same result.
"""

from __future__ import annotations

import contextlib
import marshal
import os
import select
import signal
import sys
import threading
import time
from collections.abc import Callable
from types import TracebackType
from typing import Any, NoReturn

_HEAD = 8  # the byte count of the marshal data, before it


def _cpu_count() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def available() -> bool:
    """Whether a helper process can share the work here (fork, two cores, see above)."""
    return (
        hasattr(os, "fork")
        and (sys.version_info < (3, 12) or threading.active_count() == 1)
        and _cpu_count() > 1
    )


class Helper:
    """``function(*args)`` run by a forked child from the moment this is made; use it as a
    context manager (leaving it kills and reaps the child if it has not finished)."""

    def __init__(self, function: Callable[..., Any], *args: Any) -> None:
        self.pid: int | None = None
        self._read_end: int | None = None
        read_end, write_end = os.pipe()
        try:
            pid = os.fork()
        except OSError:  # (no process left to make: the caller does all the work)
            os.close(read_end)
            os.close(write_end)
            return
        if pid == 0:
            _child(function, args, read_end, write_end)
        os.close(write_end)
        self.pid = pid
        self._read_end = read_end

    def result(self, timeout: float) -> Any | None:
        """What the function returned, or None when it failed or took more than ``timeout``
        seconds from now. The child is gone afterwards."""
        if self._read_end is None:
            return None
        data = _receive(self._read_end, time.monotonic() + timeout)
        self._end(kill=data is None)  # (all of it read: the child is leaving on its own)
        if data is None:
            return None
        try:
            return marshal.loads(data)
        except (ValueError, EOFError, TypeError):
            return None

    def close(self) -> None:
        """Kill the child if it may still run, and reap it."""
        self._end(kill=True)

    def _end(self, *, kill: bool) -> None:
        if self._read_end is not None:
            os.close(self._read_end)
            self._read_end = None
        if self.pid is not None:
            pid, self.pid = self.pid, None
            if kill:  # (not reaped yet: the pid is still the child's)
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
            with contextlib.suppress(ChildProcessError):  # reaped by someone's waitpid(-1)
                os.waitpid(pid, 0)

    def __enter__(self) -> Helper:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()


def _child(
    function: Callable[..., Any], args: tuple[Any, ...], read_end: int, write_end: int
) -> NoReturn:
    code = 1
    try:
        signal.pthread_sigmask(signal.SIG_BLOCK, signal.valid_signals())
        os.close(read_end)  # (else a parent gone would leave it writing to a full pipe forever)
        data = marshal.dumps(function(*args), 4)
        _write_all(write_end, len(data).to_bytes(_HEAD, "little"))
        _write_all(write_end, data)
        code = 0
    except BaseException:  # (whatever it was, the parent does the part itself)
        pass
    finally:
        os._exit(code)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _receive(fd: int, deadline: float) -> memoryview | None:
    """The child's marshal data, or None if it failed or is late."""
    poller = select.poll()
    poller.register(fd, select.POLLIN)
    chunks: list[bytes] = []
    while True:
        left = deadline - time.monotonic()
        if left <= 0 or not poller.poll(left * 1000):
            return None
        chunk = os.read(fd, 1 << 20)
        if not chunk:
            break
        chunks.append(chunk)
    data = b"".join(chunks)
    if len(data) < _HEAD or int.from_bytes(data[:_HEAD], "little") != len(data) - _HEAD:
        return None  # (it died while writing)
    return memoryview(data)[_HEAD:]
