"""The watcher's cursors: a grown file yields only its new entries; replaced, deleted, renamed."""

from __future__ import annotations

import asyncio
import contextlib
import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

from pitui.core.watch import (
    SessionCreated,
    SessionDeleted,
    SessionGrew,
    SessionRenamed,
    SessionReplaced,
    SessionWatcher,
    WatchEvent,
)
from tests.core.sessiondata import assistant, jsonl, user


def _session(tmp_path: Path) -> tuple[SessionWatcher, Path]:
    folder = tmp_path / "sessions" / "--home-ana--"
    folder.mkdir(parents=True)
    path = folder / "a.jsonl"
    path.write_bytes(jsonl(user("u1", None)))
    watcher = SessionWatcher(tmp_path / "sessions")
    watcher.track(str(path))
    return watcher, path


def test_growth_yields_only_new_entries_and_waits_for_half_lines(tmp_path: Path) -> None:
    watcher, path = _session(tmp_path)
    line = orjson.dumps(assistant("a1", "u1")) + b"\n"
    with open(path, "ab") as handle:
        handle.write(line[:20])
    assert watcher.process([str(path)]) == []  # half a line: nothing yet, no error
    with open(path, "ab") as handle:
        handle.write(line[20:])
    events = watcher.process([str(path)])
    assert len(events) == 1 and isinstance(events[0], SessionGrew)
    assert [obj["id"] for _, _, obj in events[0].entries] == ["a1"]
    assert watcher.process([str(path)]) == []  # nothing new


def test_truncate_and_rewrite_are_replacements(tmp_path: Path) -> None:
    watcher, path = _session(tmp_path)
    path.write_bytes(b"")
    assert watcher.process([str(path)]) == [SessionReplaced(str(path))]
    path.write_bytes(jsonl(user("x", None)))
    # the first line changed (it was empty): a new file in place of the old one
    assert watcher.process([str(path)]) == [SessionReplaced(str(path))]
    other = path.with_name("tmp")
    other.write_bytes(jsonl(user("z", None), header={**orjson.loads(jsonl().strip()), "id": "new"}))
    os.replace(other, path)
    assert watcher.process([str(path)]) == [SessionReplaced(str(path))]


def test_create_delete_rename(tmp_path: Path) -> None:
    watcher, path = _session(tmp_path)
    new = path.with_name("b.jsonl")
    new.write_bytes(jsonl())
    assert watcher.process([str(new)]) == [SessionCreated(str(new))]
    moved = path.with_name("c.jsonl")
    os.rename(path, moved)
    assert watcher.process([str(path), str(moved)]) == [SessionRenamed(str(path), str(moved))]
    os.unlink(new)
    assert watcher.process([str(new)]) == [SessionDeleted(str(new))]
    assert watcher.process([str(tmp_path / "ignored.txt")]) == []


def test_live_events_arrive(tmp_path: Path) -> None:
    watcher, path = _session(tmp_path)

    async def run() -> list[WatchEvent]:
        stop = asyncio.Event()
        seen: list[WatchEvent] = []

        async def consume() -> None:
            async for batch in watcher.events(stop):
                seen.extend(batch)
                if any(isinstance(e, SessionGrew) for e in seen):
                    stop.set()

        task = asyncio.create_task(consume())
        await asyncio.sleep(0.3)  # let the watch start
        with open(path, "ab") as handle:
            handle.write(orjson.dumps(assistant("a1", "u1")) + b"\n")
        await asyncio.wait_for(task, timeout=10)
        return seen

    seen = asyncio.run(run())
    grew = [e for e in seen if isinstance(e, SessionGrew)]
    assert grew and [obj["id"] for _, _, obj in grew[0].entries] == ["a1"]


def test_the_watcher_is_made_and_waited_on_off_the_event_loop(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # watchfiles walks every folder when it makes its watcher (75 ms for 500 folders): in a thread
    import watchfiles

    real_watch = watchfiles.watch
    threads: list[int] = []

    def watch(*args: Any, **kwargs: Any) -> Iterator[Any]:
        threads.append(threading.get_ident())  # (a generator: runs at the first next())
        yield from real_watch(*args, **kwargs)

    monkeypatch.setattr(watchfiles, "watch", watch)
    watcher, path = _session(tmp_path)

    async def run() -> int:
        stop = asyncio.Event()

        async def consume() -> None:
            async for _batch in watcher.events(stop):
                stop.set()

        task = asyncio.create_task(consume())
        await asyncio.sleep(0.3)
        with open(path, "ab") as handle:
            handle.write(orjson.dumps(assistant("a1", "u1")) + b"\n")
        await asyncio.wait_for(task, timeout=10)
        return threading.get_ident()

    loop_thread = asyncio.run(run())
    assert threads and loop_thread not in threads


def test_a_cancelled_watch_lets_its_thread_go(tmp_path: Path) -> None:
    watcher, _path = _session(tmp_path)
    before = threading.active_count()

    async def run() -> None:
        async def consume() -> None:
            async for _batch in watcher.events():  # no stop event: only cancelled
                pass

        task = asyncio.create_task(consume())
        await asyncio.sleep(0.3)
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task

    # asyncio.run joins its default executor: it would wait forever on a thread still watching
    loop = threading.Thread(target=asyncio.run, args=(run(),), daemon=True)
    loop.start()
    loop.join(10)
    assert not loop.is_alive()
    deadline = time.monotonic() + 5
    while threading.active_count() > before and time.monotonic() < deadline:
        time.sleep(0.05)
    assert threading.active_count() <= before
