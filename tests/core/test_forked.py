"""A forked helper (``pitui.core.forked``) hands back its function's result, or None when anything
goes wrong, and never leaves a process behind."""

from __future__ import annotations

import os
import signal
import time
import types
from typing import Any

import pytest

from pitui.core import forked
from tests.core.forks import reaped

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork here")


def squares(numbers: list[int]) -> dict[str, Any]:
    return {"squares": [n * n for n in numbers], "pid": os.getpid(), "none": None}


def test_the_result_comes_back_from_another_process() -> None:
    with forked.Helper(squares, [1, 2, 3]) as helper:
        pid = helper.pid
        assert pid is not None
        found = helper.result(10)
    assert found == {"squares": [1, 4, 9], "pid": pid, "none": None}
    assert pid != os.getpid()
    assert reaped(pid)


def fails() -> None:
    raise RuntimeError("no")


def unwritable() -> object:
    return object()  # marshal cannot write it


def dies() -> None:
    os.kill(os.getpid(), signal.SIGKILL)


@pytest.mark.parametrize("function", [fails, unwritable, dies])
def test_a_failing_helper_gives_none(function: Any) -> None:
    with forked.Helper(function) as helper:
        pid = helper.pid
        assert helper.result(10) is None
    assert pid is not None and reaped(pid)


def sleeps() -> None:
    signal.pause()  # (its signals are blocked: it sleeps until killed)


def test_a_late_helper_is_killed() -> None:
    started = time.monotonic()
    with forked.Helper(sleeps) as helper:
        pid = helper.pid
        assert helper.result(0.2) is None
    assert time.monotonic() - started < 5
    assert pid is not None and reaped(pid)


def test_leaving_early_kills_the_helper() -> None:
    with pytest.raises(KeyboardInterrupt), forked.Helper(sleeps) as helper:
        pid = helper.pid
        raise KeyboardInterrupt  # the caller's own part was interrupted
    assert pid is not None and reaped(pid)


def test_no_fork_left_means_no_helper(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_fork() -> int:
        raise BlockingIOError("fork: Resource temporarily unavailable")

    monkeypatch.setattr(forked.os, "fork", no_fork)
    with forked.Helper(squares, [2]) as helper:
        assert helper.pid is None
        assert helper.result(1) is None


def test_no_helper_on_one_core_or_where_forking_threads_is_deprecated(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(forked, "_cpu_count", lambda: 2)
    assert forked.available()
    monkeypatch.setattr(forked, "_cpu_count", lambda: 1)
    assert not forked.available()
    monkeypatch.setattr(forked, "_cpu_count", lambda: 2)
    monkeypatch.setattr(forked, "sys", types.SimpleNamespace(version_info=(3, 12, 0)))
    assert forked.available()  # one thread
    monkeypatch.setattr(forked.threading, "active_count", lambda: 2)
    assert not forked.available()
