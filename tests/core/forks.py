"""Counting the helpers ``pitui.core.forked`` forks, and checking none is left behind."""

from __future__ import annotations

import os
from collections.abc import Callable

import pytest


def count_forks(patch: pytest.MonkeyPatch) -> list[int]:
    """From here on (while ``patch`` holds), the pid of every child forked goes in the list."""
    pids: list[int] = []
    real_fork = os.fork

    def fork() -> int:
        pid = real_fork()
        if pid:
            pids.append(pid)
        return pid

    patch.setattr(os, "fork", fork)
    return pids


def reaped(pid: int) -> bool:
    """Whether the child ``pid`` is gone and waited for (no zombie, nothing running)."""
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        return True
    return False


def in_child_only(parent: int, action: Callable[[], None]) -> Callable[[], None]:
    """``action`` when called in a forked child of ``parent``, nothing in ``parent`` itself."""

    def maybe() -> None:
        if os.getpid() != parent:
            action()

    return maybe
