"""Run a plug-in's code so that a call that never returns can be abandoned.

Python cannot pre-empt a function, so a renderer that loops for ever would hold whoever called
it: the export would never finish, the session view's context pane would stop and quitting would
wait on it. :func:`call_with_deadline` runs the call in a daemon thread of its own and waits at
most ``deadline`` seconds. A call that is late is abandoned: an exception is raised inside its
thread (which stops a pure-Python loop at its next bytecode; a call blocked in C just sleeps), the
thread being a daemon never holds up the process's exit, and the caller gets :class:`Abandoned`.
"""

from __future__ import annotations

import ctypes
import threading
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

#: Seconds a plug-in's call may run before it is abandoned.
DEFAULT_DEADLINE = 2.0


class Abandoned(Exception):
    """The call did not return within its deadline and was left behind."""

    def __init__(self, deadline: float) -> None:
        super().__init__(f"did not return within {deadline:g} s")
        self.deadline = deadline


class _Stop(BaseException):
    """Raised inside an abandoned call's thread to end it (never caught by ``except Exception``)."""


def call_with_deadline(func: Callable[[], T], deadline: float | None) -> T:
    """``func()``'s result or exception, or :class:`Abandoned` after ``deadline`` seconds
    (None: no deadline, the call runs in the caller's thread)."""
    if deadline is None:
        return func()
    outcome: list[T] = []
    failure: list[BaseException] = []

    def run() -> None:
        try:
            outcome.append(func())
        except _Stop:
            pass
        except BaseException as exc:  # handed to the caller, who decides
            failure.append(exc)

    thread = threading.Thread(target=run, name="pitui-plugin-call", daemon=True)
    thread.start()
    thread.join(deadline)
    if thread.is_alive():
        _interrupt(thread)
        raise Abandoned(deadline)
    if failure:
        raise failure[0]
    return outcome[0]


def _interrupt(thread: threading.Thread) -> None:
    """Raise :class:`_Stop` in ``thread`` at its next bytecode (a CPython API made for this)."""
    if thread.ident is None:
        return
    set_async_exc = ctypes.pythonapi.PyThreadState_SetAsyncExc
    set_async_exc(ctypes.c_ulong(thread.ident), ctypes.py_object(_Stop))
