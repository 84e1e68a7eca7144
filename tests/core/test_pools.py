"""Ending a process pool: finished work shuts down normally; unfinished work (a cancelled load, a
picker that quit) terminates the workers at once instead of waiting for their tasks, and leaves
no process behind for the interpreter's exit to wait on."""

from __future__ import annotations

import multiprocessing
import threading
import time
from concurrent.futures import ProcessPoolExecutor

import pytest

from pitui.core.pools import close_pool, pool_context


def _slow(seconds: float) -> float:
    time.sleep(seconds)
    return seconds


@pytest.mark.parametrize("start", ["fork", "forkserver"])
def test_unfinished_work_terminates_the_workers(start: str) -> None:
    pool = ProcessPoolExecutor(max_workers=2, mp_context=multiprocessing.get_context(start))
    futures = [pool.submit(_slow, 60.0) for _ in range(6)]
    while not any(future.running() for future in futures):
        time.sleep(0.01)
    workers = list(pool._processes.values())  # (what close_pool must not leave running)
    started = time.monotonic()
    close_pool(pool, unfinished=True)
    assert time.monotonic() - started < 20  # not the 60 s a task takes
    assert workers and not any(process.is_alive() for process in workers)
    assert all(future.done() for future in futures)
    assert not multiprocessing.active_children()


def test_finished_work_shuts_down_normally() -> None:
    pool = ProcessPoolExecutor(max_workers=2, mp_context=pool_context())
    assert sorted(pool.map(_slow, [0.0, 0.01, 0.02])) == [0.0, 0.01, 0.02]
    close_pool(pool, unfinished=False)
    assert not multiprocessing.active_children()


def test_a_pool_made_while_threads_run_is_a_forkserver_pool() -> None:
    stop = threading.Event()
    thread = threading.Thread(target=stop.wait)
    thread.start()
    try:
        assert pool_context().get_start_method() == "forkserver"
    finally:
        stop.set()
        thread.join()
