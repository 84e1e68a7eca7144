"""A session read in two processes (``pitui.core.forkscan``) is the session read in one.

Here every file is split, however small (``SPLIT_MIN_BYTES`` = 0), at several places; the child's
failures (an exception, death, lateness) must not change the result either, nor leave a process
behind.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pitui.core import forked, forkscan
from pitui.core import session as session_module
from pitui.core.session import Session, SessionError
from tests.conftest import FIXTURES
from tests.core.forks import count_forks, reaped
from tests.core.sessiondata import assistant, chain, entry, jsonl, user
from tests.core.test_damage_property import damaged_file
from tests.core.test_fast_load import snapshot

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork here")

SHARES = [0.0, 0.3, 0.55, 0.9]


@pytest.fixture
def split_calls(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """Every read from here is split; yields the list of the splits made (their child pids)."""
    monkeypatch.setattr(session_module, "SPLIT_MIN_BYTES", 0)
    monkeypatch.setattr(forkscan, "can_split", lambda: True)
    calls = count_forks(monkeypatch)
    yield calls
    assert all(reaped(pid) for pid in calls)


def outcome(data: bytes, *, final: bool) -> Any:
    try:
        return snapshot(Session.from_bytes(data, final=final))
    except SessionError as exc:
        return (type(exc).__name__, str(exc))


def one_process(data: bytes, *, final: bool) -> Any:
    saved = session_module.SPLIT_MIN_BYTES
    session_module.SPLIT_MIN_BYTES = 1 << 62
    try:
        return outcome(data, final=final)
    finally:
        session_module.SPLIT_MIN_BYTES = saved


def assert_same_in_two(data: bytes, share: float, *, final: bool = True) -> None:
    saved = forkscan.PARENT_SHARE
    forkscan.PARENT_SHARE = share
    try:
        assert outcome(data, final=final) == one_process(data, final=final)
    finally:
        forkscan.PARENT_SHARE = saved


def _fixture_files() -> list[Path]:
    return sorted(p for p in FIXTURES.rglob("*.jsonl") if p.is_file())


@pytest.mark.parametrize("path", _fixture_files(), ids=lambda p: str(p.relative_to(FIXTURES)))
def test_fixture_files_read_in_two_are_the_same(path: Path, split_calls: list[int]) -> None:
    data = path.read_bytes()
    for share in SHARES:
        assert_same_in_two(data, share)
    assert_same_in_two(data, 0.55, final=False)
    if data.count(b"\n") > 3 and Session.from_bytes(data).original_version > 1:
        assert split_calls  # (v1 files take the plain loader; a header and a line, no split)


def call(half: str) -> dict[str, Any]:
    return {"type": "toolCall", "id": f"call-{half}", "name": "read", "arguments": {}}


def tricky_file() -> bytes:
    """Every kind of line the scan treats apart, in both halves, and a cut last line."""
    lines: list[Any] = []
    for half in ("a", "b"):
        lines += [
            user(f"{half}1", "a1" if half == "b" else None, "hi"),
            assistant(f"{half}2", f"{half}1", content=[call(half), {"type": "text", "text": " "}]),
            {
                "type": "message",
                "id": f"{half}3",
                "parentId": f"{half}2",
                "timestamp": "x",
                "message": {"role": "toolResult", "toolCallId": f"call-{half}", "content": []},
            },
            entry("label", f"{half}4", f"{half}3", targetId="a1", label=f"label {half}"),
            entry("session_info", f"{half}5", f"{half}4", name=f"name {half}"),
            b"{not json",
            b"[1, 2]",
            b"",
            {"type": "session", "id": "again", "version": 3},
            {
                "type": "message",
                "parentId": f"{half}3",
                "timestamp": "2025-01-01T00:00:00Z",
                "message": {"role": "assistant", "content": [call(half)]},
            },  # no id
            {"type": "custom", "id": f"{half}6", "customType": "x"},  # parentId absent
            user(f"{half}7", "a2", "a branch"),
        ]
    return jsonl(*lines) + b'{"type":"message","id":"cut'


@pytest.mark.parametrize("share", [0.1, 0.25, 0.4, 0.5, 0.6, 0.75, 0.9])
@pytest.mark.parametrize("final", [True, False])
def test_every_kind_of_line_around_the_split(
    share: float, final: bool, split_calls: list[int]
) -> None:
    assert_same_in_two(tricky_file(), share, final=final)


def test_a_chain_links_across_the_split(split_calls: list[int]) -> None:
    data = jsonl(*chain(f"message {i}" for i in range(400)))
    two = Session.from_bytes(data)
    assert len(split_calls) == 1
    assert two.leaf_id == "m400"
    assert [m.id for m in two.branch()] == [f"m{i}" for i in range(1, 401)]
    assert_same_in_two(data, 0.55)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), final=st.booleans(), share=st.floats(0.0, 1.0))
def test_damaged_files_read_in_two_are_the_same(
    data: st.DataObject, final: bool, share: float
) -> None:
    # (hypothesis runs many examples in one test: no function-scoped fixture)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(session_module, "SPLIT_MIN_BYTES", 0)
        patch.setattr(forkscan, "can_split", lambda: True)
        calls = count_forks(patch)
        content, _ = damaged_file(data)
        assert_same_in_two(content, share, final=final)
    assert all(reaped(pid) for pid in calls)


def test_a_child_that_fails_leaves_the_parent_to_read_on(
    monkeypatch: pytest.MonkeyPatch, split_calls: list[int]
) -> None:
    def broken(part: Any) -> Any:
        raise RuntimeError("the child fails")

    monkeypatch.setattr(forkscan, "_pack", broken)
    assert_same_in_two(tricky_file(), 0.5)
    assert split_calls


def test_a_child_killed_while_writing_leaves_the_parent_to_read_on(
    monkeypatch: pytest.MonkeyPatch, split_calls: list[int]
) -> None:
    real_write_all = forked._write_all

    def dies_half_way(fd: int, data: bytes) -> None:
        if len(data) > forked._HEAD:
            real_write_all(fd, data[: len(data) // 2])
            os.kill(os.getpid(), signal.SIGKILL)
        real_write_all(fd, data)

    monkeypatch.setattr(forked, "_write_all", dies_half_way)
    assert_same_in_two(tricky_file(), 0.5)
    assert split_calls


def test_a_late_child_is_killed_and_its_part_read_by_the_parent(
    monkeypatch: pytest.MonkeyPatch, split_calls: list[int]
) -> None:
    real_scan = forkscan._scan

    def slow_in_the_child(*args: Any, **kwargs: Any) -> Any:
        if kwargs.get("link") is False and os.getpid() not in parent_pid:
            signal.pause()  # (every signal is blocked: it sleeps until killed)
        return real_scan(*args, **kwargs)

    parent_pid = {os.getpid()}
    monkeypatch.setattr(forkscan, "_scan", slow_in_the_child)
    monkeypatch.setattr(forkscan, "MIN_WAIT_SECONDS", 0.2)
    monkeypatch.setattr(forkscan, "WAIT_FACTOR", 0.0)
    assert_same_in_two(tricky_file(), 0.5)
    assert split_calls


def test_small_files_are_read_by_one_process(monkeypatch: pytest.MonkeyPatch) -> None:
    def no(*args: Any) -> Any:
        raise AssertionError("split")

    monkeypatch.setattr(forkscan, "scan_in_two", no)
    Session.from_bytes(jsonl(*chain(["a", "b"])))
    monkeypatch.setattr(session_module, "SPLIT_MIN_BYTES", 0)
    monkeypatch.setattr(forkscan, "can_split", lambda: False)  # one core, or threads on 3.12+
    Session.from_bytes(jsonl(*chain(["a", "b"])))


def test_a_file_read_in_two_refreshes_as_one(tmp_path: Path, split_calls: list[int]) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(jsonl(*chain(f"m {i}" for i in range(50))))
    two = Session.open(path, final=True)
    assert split_calls
    with path.open("ab") as handle:
        handle.write(jsonl(user("m51", "m50", "more", t=51), header=None))
    two.refresh()
    assert snapshot(two) == one_process(path.read_bytes(), final=True)
